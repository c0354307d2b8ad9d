/**
 * A website's data as a download (docs/ARCHITECTURE.md, "Exports"), for the API and the
 * settings page alike: its own numbers as Plausible's CSV export (./plausible-export.ts), or its
 * event log — all of it or a range of dates — as NDJSON, CSV (src/website-log/object/read/event-lines.ts)
 * or Parquet (src/parquet/), streamed.
 */
import type { Database } from '../db/client.ts';
import type { WebsiteRow } from '../db/schema.ts';
import type { Env } from '../env.ts';
import { localDateHour } from '../lib/time/dates.ts';
import { readerOf } from '../query/run/reader.ts';
import { rollupDates } from '../rollups/sums.ts';
import { exportLog } from '../website-log/worker/calls.ts';
import { plausibleExport, plausibleZipName } from './plausible-export.ts';

export type ExportFormat = {
  format: 'plausible' | 'events';
  as?: 'ndjson' | 'csv' | 'parquet' | undefined;
  /** The events' local dates, inclusive (none: all of them). */
  range?: { from: string; to: string } | undefined;
};

/** Each events file's type. */
const EVENT_TYPES = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};

/** Headers of a download. */
const download = (type: string, name: string) => ({
  'content-type': type,
  'content-disposition': `attachment; filename="${name}"`,
  'cache-control': 'private, no-store',
});

/** The download of a website's data in a format. */
export async function exportResponse(
  env: Env,
  db: Database,
  website: WebsiteRow,
  q: ExportFormat,
): Promise<Response> {
  const date = localDateHour(Date.now(), website.timezone).date;
  const today = date.replaceAll('-', '');
  if (q.format === 'plausible') {
    const reader = readerOf(db, website.id, env, { imports: false });
    // The reader's one flush: the range's last date is then in the roll-ups.
    await reader.flush();
    const range = await rollupDates(db, website.id);
    return new Response(plausibleExport(reader, range, date), {
      headers: download('application/zip', plausibleZipName(website.domain, today)),
    });
  }
  const as = q.as ?? 'ndjson';
  const stream = await exportLog(env, website.id, as, q.range);
  const dates = q.range ? `${q.range.from}_${q.range.to}`.replaceAll('-', '') : today;
  const name = `${website.domain.replaceAll('.', '_')}_events_${dates}.${as}`;
  return new Response(stream, { headers: download(EVENT_TYPES[as], name) });
}
