/**
 * `npm run archive -- --website example.com --from YYYY-MM-DD --to YYYY-MM-DD [--url URL] [--key KEY]`
 *   The backfill of the daily archive (docs/ARCHIVE.md): writes the website's past dates into
 *   the `ARCHIVE` bucket through a running Sightline's API (`POST …/websites/{id}/archive`), a
 *   few dates a request, until the range is done. Dates already written are left as they are.
 *   `--url` defaults to `npm run dev`'s http://localhost:8787; the key is `--key` or
 *   `SIGHTLINE_API_KEY`.
 * `npm run archive -- --download DIR`
 *   Copies the local bucket that `npm run dev` writes (`.wrangler/state`) into DIR as files,
 *   `DIR/sightline/site=…/date=…/events.parquet`, for DuckDB and the like to read.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fail, parseOptions, root } from './lib/d1.ts';
import { websiteIdOf } from './lib/website-id.ts';

const USAGE =
  'usage: npm run archive -- --website DOMAIN --from YYYY-MM-DD --to YYYY-MM-DD [--url URL] [--key KEY]\n' +
  '       npm run archive -- --download DIR';

const { values } = parseOptions(() =>
  parseArgs({
    options: {
      website: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      url: { type: 'string', default: 'http://localhost:8787' },
      key: { type: 'string' },
      download: { type: 'string' },
    },
    strict: true,
  }),
);

if (values.download) await download(resolve(values.download));
else await backfill();

async function backfill() {
  const key = values.key ?? process.env.SIGHTLINE_API_KEY;
  if (!values.website || !values.from || !values.to) fail(USAGE);
  if (!key) fail('an API key is needed: --key KEY or SIGHTLINE_API_KEY');
  const base = values.url.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${key}` };
  const id = await websiteIdOf(base, headers, values.website);
  let from: string | null = values.from;
  let written = 0;
  while (from) {
    const query = new URLSearchParams({ from, to: values.to });
    const res = await fetch(`${base}/api/v1/websites/${id}/archive?${query}`, {
      method: 'POST',
      headers,
    });
    if (!res.ok) fail(`${res.status} ${await res.text()}`);
    const { data } = (await res.json()) as {
      data: { written: string[]; written_before: number; busy: string[]; next: string | null };
    };
    for (const date of data.written) process.stdout.write(`Archived ${date}.\n`);
    for (const date of data.busy)
      process.stdout.write(`${date} is being written by the hourly run: left to it.\n`);
    written += data.written.length;
    from = data.next;
  }
  process.stdout.write(
    `Done: ${written} dates archived (a date without events is in the manifest, with no file).\n`,
  );
}

/**
 * The local bucket through wrangler's platform proxy, configured as wrangler.toml's
 * `[[r2_buckets]]` block (which has to be enabled) and kept where `wrangler dev` keeps it.
 */
async function download(dir: string) {
  const block = readFileSync(`${root}wrangler.toml`, 'utf8').match(
    /^\[\[r2_buckets\]\][\s\S]*?(?=^\s*$|^\[)/m,
  )?.[0];
  if (!block?.includes('"ARCHIVE"'))
    fail('wrangler.toml has no [[r2_buckets]] block with binding "ARCHIVE": see docs/ARCHIVE.md');
  const config = `${root}.wrangler-archive-${process.pid}.toml`;
  writeFileSync(config, `name = "sightline-archive"\ncompatibility_date = "2026-11-01"\n${block}`);
  const { getPlatformProxy } = await import('wrangler');
  const proxy = await getPlatformProxy<{ ARCHIVE: R2Bucket }>({
    configPath: config,
    persist: { path: resolve(root, '.wrangler/state', 'v3') },
  });
  let files = 0;
  try {
    let cursor: string | undefined;
    do {
      const listed = await proxy.env.ARCHIVE.list({ prefix: 'sightline/', cursor });
      for (const { key } of listed.objects) {
        const object = await proxy.env.ARCHIVE.get(key);
        if (!object) continue;
        const path = join(dir, ...key.split('/'));
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, new Uint8Array(await object.arrayBuffer()));
        files++;
      }
      cursor = listed.truncated ? listed.cursor : undefined;
    } while (cursor);
  } finally {
    await proxy.dispose();
    rmSync(config, { force: true });
  }
  process.stdout.write(`Copied ${files} files into ${dir}.\n`);
}
