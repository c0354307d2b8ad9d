/**
 * `npm run dev`: applies local migrations; on an empty local database creates a demo owner
 * and a demo website and prints how to use them; then serves the Worker with `wrangler dev`
 * on http://localhost:8787. Extra arguments go to `wrangler dev` (e.g. `-- --port 9000`).
 */
import { spawn } from 'node:child_process';
import { count } from 'drizzle-orm';
import { createOwner } from '../src/accounts/owners.ts';
import { owners } from '../src/db/schema.ts';
import { createWebsite } from '../src/websites/service.ts';
import { root, withDatabase } from './lib/d1.ts';
import { generateTraffic, loadTraffic } from './lib/traffic.ts';

export const DEMO = {
  email: 'demo@sightline.local',
  password: 'sightline-demo',
  domain: 'demo.example.com',
};

const passthrough = process.argv.slice(2);
const port = (() => {
  const i = passthrough.indexOf('--port');
  return i >= 0 ? passthrough[i + 1] : '8787';
})();

const created = await withDatabase({ remote: false }, async (db) => {
  const existing = await db.select({ n: count() }).from(owners).get();
  if ((existing?.n ?? 0) > 0) return null;
  const owner = await createOwner(db, { email: DEMO.email, password: DEMO.password });
  const website = await createWebsite(db, owner.id, { domain: DEMO.domain, privacy: 0 });
  // 90 days of sample traffic, through the same pipeline real hits take.
  const today = new Date();
  const hits = generateTraffic({
    seed: 42,
    domain: DEMO.domain,
    days: 90,
    end: Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) + 86_400_000,
    visitorsPerDay: 30,
  }).filter((hit) => hit.req.now <= Date.now());
  process.stdout.write(`Generating 90 days of sample traffic (${hits.length} hits)…\n`);
  const loaded = await loadTraffic(db, hits, (done) =>
    process.stdout.write(`  ${done}/${hits.length}\r`),
  );
  process.stdout.write(`  ${loaded.stored} hits counted, ${loaded.dropped} dropped (bots)\n`);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { owner, website, from: day(Date.now() - 89 * 86_400_000), to: day(Date.now()) };
});

const base = `http://localhost:${port}`;
if (created) {
  process.stdout.write(
    [
      '',
      'Created a demo owner and website in the local database:',
      `  login     ${DEMO.email} / ${DEMO.password}`,
      `  API key   ${created.owner.apiKey}   (shown once; npm run user:rotate-key -- --email ${DEMO.email} makes a new one)`,
      `  website   ${created.website.domain} (id ${created.website.id})`,
      `  try       curl -H "Authorization: Bearer ${created.owner.apiKey}" ${base}/api/v1/websites`,
      `  stats     curl -H "Authorization: Bearer ${created.owner.apiKey}" "${base}/api/v1/stats/${created.website.id}?name=pageviews&from=${created.from}&to=${created.to}&sort_by=value&sort=asc"`,
      `  API docs  ${base}/api/v1/docs`,
      '',
    ].join('\n'),
  );
} else {
  process.stdout.write(
    `\nLocal database already set up. A new API key: npm run user:rotate-key -- --email ${DEMO.email}\nAPI docs: ${base}/api/v1/docs\n\n`,
  );
}

const child = spawn(`${root}node_modules/.bin/wrangler`, ['dev', ...passthrough], {
  cwd: root,
  stdio: 'inherit',
  env: { WRANGLER_SEND_METRICS: 'false', ...process.env },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
