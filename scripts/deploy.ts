/**
 * `npm run deploy`: Sightline on your Cloudflare account in one command, safe to run again.
 * 1. The D1 database: found by its name (`sightline`) in the account, or created once;
 *    its id never goes into wrangler.toml (each command gets a copy of it with the id).
 * 2. Its pending migrations applied (`wrangler d1 migrations apply --remote`).
 * 3. The Workers deployed (`wrangler deploy`): first the Parquet Worker (wrangler.parquet.toml),
 *    which the main one's `PARQUET` service binding names, then the main Worker: the Durable
 *    Object, the cron, the bindings.
 * 4. When no owner exists yet: how to make the first one.
 * `-- --dry-run` builds the Worker and checks it without uploading anything (no account
 * needed; CI runs it), printing each bundle's size.
 */
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { configWithDatabase, parseOptions, remoteDatabaseId, wrangler } from './lib/d1.ts';

const { values } = parseOptions(() =>
  parseArgs({ options: { 'dry-run': { type: 'boolean', default: false } }, strict: true }),
);
const say = (line: string) => process.stdout.write(`${line}\n`);
/** The Parquet Worker's configuration (docs/ARCHITECTURE.md, "Exports"). */
const PARQUET_CONFIG = 'wrangler.parquet.toml';

if (values['dry-run']) {
  const out = wrangler(['deploy', '--dry-run', '--outdir', '.wrangler/deploy']);
  const size = out.match(/Total Upload:.*$/m)?.[0];
  say(`The Worker builds and passes wrangler's checks (nothing uploaded). ${size ?? ''}`.trim());
  const parquet = wrangler([
    'deploy',
    '--dry-run',
    '--config',
    PARQUET_CONFIG,
    '--outdir',
    '.wrangler/deploy-parquet',
  ]).match(/Total Upload:.*$/m)?.[0];
  say(`The Parquet Worker builds too. ${parquet ?? ''}`.trim());
  process.exit(0);
}

const id = remoteDatabaseId({ create: true });
say(`D1 database ${id}.`);
const config = configWithDatabase(id);
try {
  wrangler(['d1', 'migrations', 'apply', 'DB', '--remote', '--config', config], { show: true });
  wrangler(['deploy', '--config', PARQUET_CONFIG], { show: true });
  wrangler(['deploy', '--config', config], { show: true });
  const out = wrangler([
    'd1',
    'execute',
    'DB',
    '--remote',
    '--json',
    '--config',
    config,
    '--command',
    'SELECT count(*) AS n FROM owners',
  ]);
  const owners = Number(out.match(/"n":\s*(\d+)/)?.[1] ?? '0');
  say(
    owners > 0
      ? 'Deployed.'
      : [
          "Deployed. No owner yet: open /register on the Worker's address (the first sign-up is",
          'always open), or run npm run user:create -- --remote --email you@example.com --password "…"',
        ].join('\n'),
  );
} finally {
  rmSync(config, { force: true });
}
