/**
 * `npm run dev`: applies local migrations; on an empty local database creates a demo owner
 * and a demo website and prints how to use them; then serves the Worker with `wrangler dev`
 * on http://localhost:8787. Extra arguments go to `wrangler dev` (e.g. `-- --port 9000`).
 */
import { spawn } from 'node:child_process';
import { count } from 'drizzle-orm';
import { owners } from '../src/db/schema.ts';
import { root, withDatabase } from './lib/d1.ts';
import { DEMO, seedDemo } from './lib/demo.ts';

const passthrough = process.argv.slice(2);
const port = (() => {
  const i = passthrough.indexOf('--port');
  return i >= 0 ? passthrough[i + 1] : '8787';
})();

const created = await withDatabase({ remote: false }, async (db) => {
  const existing = await db.select({ n: count() }).from(owners).get();
  if ((existing?.n ?? 0) > 0) return null;
  return seedDemo(db, (line) => process.stdout.write(`${line}\n`));
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
      `  stats API curl -H "Authorization: Bearer ${created.owner.apiKey}" "${base}/api/v1/stats/${created.website.id}?name=pageviews&from=${created.from}&to=${created.to}&sort_by=value&sort=asc"`,
      `  stats     ${base}/stats/${created.website.domain}`,
      `  API docs  ${base}/api/v1/docs`,
      '',
    ].join('\n'),
  );
} else {
  process.stdout.write(
    `\nLocal database already set up: ${base}/login (${DEMO.email} / ${DEMO.password}).\nA new API key: npm run user:rotate-key -- --email ${DEMO.email}\nAPI docs: ${base}/api/v1/docs\n\n`,
  );
}

const child = spawn(`${root}node_modules/.bin/wrangler`, ['dev', ...passthrough], {
  cwd: root,
  stdio: 'inherit',
  env: { WRANGLER_SEND_METRICS: 'false', ...process.env },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
