/**
 * A website's imports and exports on its settings page (`/websites/{id}`): the imports
 * counted, each with a delete button; an upload of a file (with its progress when JavaScript
 * runs; a plain form post without); and the downloads of its data — through the same domain
 * functions and messages as the API (src/imports/, src/exports/).
 */

import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { createDb } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { AppEnv } from '../../env.ts';
import { exportResponse } from '../../exports/exports.ts';
import { routeBodyLimit } from '../../http/body-limits.ts';
import { formText } from '../../http/form.ts';
import { packingOf } from '../../imports/files.ts';
import { ImportError } from '../../imports/format.ts';
import { runImport } from '../../imports/run.ts';
import {
  deleteImport,
  IMPORT_SOURCES,
  type ImportRecord,
  type ImportSource,
  listImports,
} from '../../imports/store.ts';
import { ApiError } from '../../lib/errors.ts';
import { parseId } from '../../lib/ids.ts';
import { clientAddressKey } from '../../lib/ip.ts';
import { tooManyRequests, withinReadLimits } from '../../lib/rate-limit.ts';
import { isCalendarDate, MAX_DATE, MIN_DATE } from '../../lib/time/dates.ts';
import { flushBeforeReading } from '../../website-log/worker/partitions.ts';
import type { Role } from '../../websites/queries.ts';
import { SettingsSection } from './section.tsx';
import { settingsPath } from './settings-pages.tsx';

/** The largest file the settings page takes (the form is read whole; the API streams 100 MB). */
const UPLOAD_LIMIT = 50 * 1024 * 1024;
const uploadLimit = routeBodyLimit(
  UPLOAD_LIMIT,
  'The file is larger than 50 MB: import it with npm run import.',
);

const SOURCE_NAMES: Record<ImportSource, string> = {
  plausible: 'Plausible (its CSV export: the zip, or one of its CSV files)',
  goatcounter: 'GoatCounter (its CSV export, .csv.gz or .csv)',
  umami: "Umami (a website_event CSV, or Umami Cloud's export zip)",
};

export const ImportsSection: FC<{
  site: WebsiteRow;
  imports: ImportRecord[];
  csrf: string;
  error?: string | undefined;
}> = ({ site, imports, csrf, error }) => (
  <SettingsSection
    id="imports"
    title="Imports and exports"
    hint="Bring your history from Plausible, GoatCounter or Umami: it is added to this website's numbers on its dates. Filters and hourly charts count only what Sightline recorded itself. Importing the same dates again replaces what the older import held."
    csrf={csrf}
    table={{
      head: ['Source', 'Dates', { label: 'Rows', num: true }],
      rows: imports.map((i) => ({
        cells: [i.source, `${i.from} to ${i.to}`, i.rows.toLocaleString('en-US')],
        remove: {
          action: `/websites/${site.id}/imports/${i.id}/delete`,
          what: `the import of ${i.from} to ${i.to}`,
        },
      })),
    }}
    empty="No imports yet."
    add={{
      action: `/websites/${site.id}/imports`,
      button: 'Import',
      class: 'stack',
      upload: true,
      fields: (
        <>
          <label>
            From{' '}
            <select name="source">
              {IMPORT_SOURCES.map((s) => (
                <option value={s}>{SOURCE_NAMES[s]}</option>
              ))}
            </select>
          </label>
          <label>
            File (at most 50 MB here; larger ones with npm run import){' '}
            <input type="file" name="file" required accept=".zip,.csv,.gz" />
          </label>
          <label class="check">
            <input type="checkbox" name="overlap" value="own_wins" /> Import dates this website has
            events of its own on too (its own counts win for those dates)
          </label>
          {error ? (
            <p class="error" role="alert">
              {error}
            </p>
          ) : null}
          <progress value="0" max="100" hidden>
            Uploading
          </progress>
        </>
      ),
    }}
  >
    <h3>Export</h3>
    <ul>
      <li>
        <a href={`/websites/${site.id}/export?format=plausible`}>
          Numbers, as Plausible's CSV export
        </a>{' '}
        <span class="hint">(a zip that Plausible and Sightline import)</span>
      </li>
      <li>
        <form method="get" action={`/websites/${site.id}/export`} class="inline">
          <input type="hidden" name="format" value="events" />
          <label>
            Every event, as{' '}
            <select name="as">
              <option value="ndjson">NDJSON</option>
              <option value="csv">CSV</option>
              <option value="parquet">Parquet</option>
            </select>
          </label>{' '}
          <label>
            from <input type="date" name="from" />
          </label>{' '}
          <label>
            to <input type="date" name="to" />
          </label>{' '}
          <button type="submit">Download</button>{' '}
          <span class="hint">(no dates: all of them; Parquet reads in DuckDB, pandas, Spark)</span>
        </form>
      </li>
    </ul>
  </SettingsSection>
);

/** The event log's file formats (src/exports/exports.ts). */
const EVENT_FILES = ['ndjson', 'csv', 'parquet'] as const;
const isEventFile = (as: string): as is (typeof EVENT_FILES)[number] =>
  (EVENT_FILES as readonly string[]).includes(as);

/** The settings page again, with the import's error (a 422, or 409 for own dates). */
type Reshow = (error: string, status: 409 | 422) => Promise<Response>;

/**
 * `POST /websites/:id/imports` (upload), `POST /websites/:id/imports/:import/delete` and
 * `GET /websites/:id/export`, for the website of the path (`siteOf`: the owner's and admins';
 * an export any member's), each form after its CSRF check (`formBody`).
 */
export function registerImportPages(
  pages: Hono<AppEnv>,
  siteOf: (c: Context<AppEnv>, need?: Role) => Promise<WebsiteRow>,
  formBody: (c: Context<AppEnv>) => Promise<Record<string, unknown>>,
  reshow: (c: Context<AppEnv>, site: WebsiteRow) => Reshow,
) {
  pages.post('/:id/imports', uploadLimit, async (c) => {
    const site = await siteOf(c);
    const body = await formBody(c);
    const source = formText(body.source) as ImportSource;
    const file = body.file;
    if (!IMPORT_SOURCES.includes(source))
      return reshow(c, site)('Choose where the file comes from.', 422);
    if (!(file instanceof File) || file.size === 0) return reshow(c, site)('Choose a file.', 422);
    const packing = packingOf(file.type, file.name);
    if (!packing) return reshow(c, site)(`${file.name}: not a zip, a gzip or a CSV file.`, 422);
    try {
      await runImport(createDb(c.env.DB), site, file.stream(), {
        source,
        packing,
        fileName: file.name,
        overlap: formText(body.overlap) === 'own_wins',
        flush: () => flushBeforeReading(c.env, site.id),
      });
    } catch (err) {
      if (err instanceof ImportError) return reshow(c, site)(err.message, 422);
      if (err instanceof ApiError && err.status === 409)
        return reshow(c, site)(
          err.message.replace('Import with overlap=own_wins', 'Tick the box below'),
          409,
        );
      throw err;
    }
    return c.redirect(settingsPath(site.id, 'imports', 'import=added'), 303);
  });
  pages.post('/:id/imports/:import/delete', async (c) => {
    const site = await siteOf(c);
    await formBody(c);
    const id = parseId(c.req.param('import'));
    if (id === null || !(await deleteImport(createDb(c.env.DB), site.id, id)))
      throw new ApiError(404, 'There is no such import.');
    return c.redirect(settingsPath(site.id, 'imports', 'import=deleted'), 303);
  });
  pages.get('/:id/export', async (c) => {
    // Any member reads everything of the website: an export too.
    const site = await siteOf(c, 'viewer');
    const format = c.req.query('format');
    const as = c.req.query('as') || 'ndjson';
    if ((format !== 'plausible' && format !== 'events') || !isEventFile(as))
      throw new ApiError(404, 'There is no such export.');
    // The form's dates, either or both left empty (all of them).
    const from = c.req.query('from') || MIN_DATE;
    const to = c.req.query('to') || MAX_DATE;
    if (!isCalendarDate(from) || !isCalendarDate(to) || to < from)
      throw new ApiError(422, 'Choose a first date on or before the last.');
    const range = from === MIN_DATE && to === MAX_DATE ? undefined : { from, to };
    // An export reads all of a website: readers' limits apply (src/lib/rate-limit.ts).
    if (!(await withinReadLimits(c.env, clientAddressKey(c), site.id, true)))
      throw tooManyRequests();
    return exportResponse(c.env, createDb(c.env.DB), site, {
      format,
      as,
      range: format === 'events' ? range : undefined,
    });
  });
}

/** The imports the settings page lists. */
export const importsOf = (c: Context<AppEnv>, site: WebsiteRow) =>
  listImports(createDb(c.env.DB), site.id);
