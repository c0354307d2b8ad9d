/**
 * `npm run export -- --website example.com --format plausible|events [--as csv|parquet]
 *   [--from DATE] [--to DATE] [--out FILE] [--url URL] [--key KEY]`
 * Downloads a website's data through a running Sightline's API (`GET …/websites/{id}/export`):
 * `plausible`, its numbers as Plausible's CSV export (a zip); `events`, its event log as NDJSON,
 * CSV or Parquet — of the dates `--from` to `--to` only (the website's time zone), if given. Streams to FILE (default: the name the server gives), never holding the file in
 * memory. `--url` defaults to `npm run dev`'s http://localhost:8787; the key is `--key` or
 * `SIGHTLINE_API_KEY`.
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { fail, parseOptions } from './lib/d1.ts';
import { websiteIdOf } from './lib/website-id.ts';

const USAGE =
  'usage: npm run export -- --website DOMAIN --format plausible|events [--as ndjson|csv|parquet] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--out FILE] [--url URL] [--key KEY]';

const { values } = parseOptions(() =>
  parseArgs({
    options: {
      website: { type: 'string' },
      format: { type: 'string' },
      as: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      out: { type: 'string' },
      url: { type: 'string', default: 'http://localhost:8787' },
      key: { type: 'string' },
    },
    strict: true,
  }),
);
const key = values.key ?? process.env.SIGHTLINE_API_KEY;
if (!values.website || !values.format) fail(USAGE);
if (!key) fail('an API key is needed: --key KEY or SIGHTLINE_API_KEY');
if (values.format !== 'plausible' && values.format !== 'events')
  fail('--format must be plausible or events');
if (values.as && !['ndjson', 'csv', 'parquet'].includes(values.as))
  fail('--as must be ndjson, csv or parquet');
const base = values.url.replace(/\/+$/, '');
const headers = { authorization: `Bearer ${key}` };

const id = await websiteIdOf(base, headers, values.website);
const query = new URLSearchParams({
  format: values.format,
  ...(values.as ? { as: values.as } : {}),
  ...(values.from ? { from: values.from } : {}),
  ...(values.to ? { to: values.to } : {}),
});
const started = performance.now();
const res = await fetch(`${base}/api/v1/websites/${id}/export?${query}`, { headers });
if (!res.ok || !res.body) fail(`${res.status} ${await res.text()}`);
const named = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1];
const out = values.out ?? named ?? `export-${id}`;
const file = createWriteStream(out);
await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), file);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
process.stdout.write(`Wrote ${out}: ${(file.bytesWritten / 1e6).toFixed(1)} MB in ${seconds} s.\n`);
