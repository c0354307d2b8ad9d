/**
 * `npm run dev`: applies local migrations; on an empty local database creates a demo owner
 * and a demo website; serves the Worker (and the Parquet Worker beside it) with `wrangler dev`
 * on http://localhost:8787; and,
 * for a new demo website, loads 90 days of sample traffic through the running Worker's hit
 * pipeline (its local-only replay route), showing progress, runs the hourly maintenance once
 * (which compacts the months that are over), then prints how to use it.
 * Extra arguments go to `wrangler dev` (e.g. `-- --port 9000`).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { count } from 'drizzle-orm';
import { owners } from '../src/db/schema.ts';
import { root, withDatabase } from './lib/d1.ts';
import { createDemo, DEMO, replayDemoTraffic } from './lib/demo.ts';

const passthrough = process.argv.slice(2);
const port = (() => {
  const i = passthrough.indexOf('--port');
  return i >= 0 ? passthrough[i + 1] : '8787';
})();
const base = `http://localhost:${port}`;
const say = (line: string) => process.stdout.write(`${line}\n`);
/** Seconds since this command started. */
const elapsed = () => `${process.uptime().toFixed(1)} s`;

const created = await withDatabase({ remote: false }, async (db) => {
  const existing = await db.select({ n: count() }).from(owners).get();
  if ((existing?.n ?? 0) > 0) return null;
  return createDemo(db);
});

const child = spawn(
  `${root}node_modules/.bin/wrangler`,
  // REPLAY=on opens the replay route for localhost, for the demo traffic (src/ingest/replay.ts);
  // DEVELOPMENT=on lets `localhost` be a website (src/websites/service.ts); PUBLIC_URL is where
  // this server answers, for the links of shared links, invitations and alerts.
  [
    'dev',
    // The main Worker and, beside it, the Parquet Worker its `PARQUET` binding reaches
    // (wrangler.parquet.toml; docs/ARCHITECTURE.md, "Exports").
    '--config',
    'wrangler.toml',
    '--config',
    'wrangler.parquet.toml',
    '--var',
    'REPLAY:on',
    '--var',
    'DEVELOPMENT:on',
    '--var',
    `PUBLIC_URL:${base}`,
    ...passthrough,
  ],
  {
    cwd: root,
    stdio: ['inherit', 'pipe', 'inherit'],
    env: { WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', ...process.env },
  },
);
/**
 * A request that went well, as wrangler logs each one (`[wrangler:info] GET /stats 200 OK
 * (12ms)`): left out of the output, which shows the requests that failed (4xx, 5xx) and
 * everything else.
 */
const QUIET = /^\[wrangler:info\] [A-Z]+ \S+ [23]\d\d /;
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colour codes
const COLOURS = /\x1b\[[0-9;]*m/g;
if (child.stdout)
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!QUIET.test(line.replace(COLOURS, ''))) process.stdout.write(`${line}\n`);
  });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));

/** Waits until the Worker answers `GET /health`. */
async function serving(): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`wrangler dev did not answer on ${base}`);
}

await serving();
say(`Serving on ${base}, ${elapsed()} after the command.`);
if (created) {
  const loading = process.uptime();
  await replayDemoTraffic(base, say);
  // The hourly maintenance once, as its cron would (wrangler dev fires no cron by itself):
  // the demo's months that are over are compacted into month and year roll-ups.
  await fetch(`${base}/cdn-cgi/local/scheduled?cron=${encodeURIComponent('0 * * * *')}`);
  say(
    [
      '',
      `Created a demo owner and website in the local database (the demo loaded in ${(process.uptime() - loading).toFixed(1)} s):`,
      `  login     ${DEMO.email} / ${DEMO.password}`,
      `  API key   ${created.owner.apiKey}   (shown once; npm run user:rotate-key -- --email ${DEMO.email} makes a new one)`,
      `  website   ${created.website.domain} (id ${created.website.id})`,
      `  try       curl -H "Authorization: Bearer ${created.owner.apiKey}" ${base}/api/v1/websites`,
      `  stats API curl -H "Authorization: Bearer ${created.owner.apiKey}" "${base}/api/v1/stats/${created.website.id}?name=pageviews&from=${created.from}&to=${created.to}&sort_by=value&sort=asc&per_page=100"`,
      `  stats     ${base}/stats/${created.website.domain}`,
      `  API docs  ${base}/api/v1/docs`,
      '',
    ].join('\n'),
  );
} else {
  say(
    `\nLocal database already set up: ${base}/login (${DEMO.email} / ${DEMO.password}).\nA new API key: npm run user:rotate-key -- --email ${DEMO.email}\nAPI docs: ${base}/api/v1/docs\n`,
  );
}
