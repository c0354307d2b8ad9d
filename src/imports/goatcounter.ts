/**
 * GoatCounter's CSV export (format version 2: `goatcounter-export-<site>-….csv.gz`, or the
 * CSV inside): one row per page view or event, 14 columns — `2Path, Title, Event, UserAgent,
 * Browser, System, Session, Bot, Referrer, Referrer scheme, Screen size, Location,
 * FirstVisit, Date` — counted as Sightline counts its own hits (./raw.ts). Bots are left out;
 * the device is the class of the screen's width (GoatCounter keeps only the width, so no
 * screen size); there is no language.
 */
import { countryName } from '../ingest/steps/geo.ts';
import {
  checkLocalDate,
  eventName,
  type FileHandler,
  type FormatReader,
  ImportError,
  instantOf,
} from './format.ts';
import { referrerHost } from './plausible-import.ts';
import { deviceOfWidth, RAW_STATISTICS, type RawCounter } from './raw.ts';

const COLUMNS = [
  '2Path',
  'Title',
  'Event',
  'UserAgent',
  'Browser',
  'System',
  'Session',
  'Bot',
  'Referrer',
  'Referrer scheme',
  'Screen size',
  'Location',
  'FirstVisit',
  'Date',
] as const;

const TRUE = new Set(['1', 'y', 'yes', 't', 'true']);
const FALSE = new Set(['', '0', 'n', 'no', 'f', 'false']);

/** `Chrome 86` → `Chrome`; `macOS 10.15` → `macOS`; '' → `Unknown`. */
const withoutVersion = (text: string) => text.replace(/\s+[\d._]+$/, '').trim() || 'Unknown';

/** The reader of GoatCounter's CSV export, for a website in `timeZone`. */
export function goatCounterReader(counter: RawCounter, timeZone: string): FormatReader {
  return {
    file(name): FileHandler {
      return {
        header(cells) {
          const first = cells[0] ?? '';
          if (!first.startsWith('2'))
            throw new ImportError(
              name,
              1,
              COLUMNS[0],
              `not GoatCounter's CSV export of version 2 (its header starts "${first.slice(0, 20)}", expected "2Path")`,
            );
          if (cells.length !== COLUMNS.length)
            throw new ImportError(
              name,
              1,
              null,
              `${cells.length} columns, expected ${COLUMNS.length}`,
            );
        },
        record(cells, line) {
          if (cells.length !== COLUMNS.length)
            throw new ImportError(
              name,
              line,
              null,
              `${cells.length} columns, expected ${COLUMNS.length}`,
            );
          const cell = (i: number) => (cells[i] ?? '').trim();
          const flag = (i: number) => {
            const text = cell(i).toLowerCase();
            if (TRUE.has(text)) return true;
            if (FALSE.has(text)) return false;
            throw new ImportError(
              name,
              line,
              COLUMNS[i] as string,
              `not true or false: "${text.slice(0, 20)}"`,
            );
          };
          const path = cell(0);
          if (path === '') throw new ImportError(name, line, COLUMNS[0], 'empty');
          const at = instantOf(cell(13));
          if (!Number.isFinite(at))
            throw new ImportError(
              name,
              line,
              'Date',
              `not a time (RFC 3339): "${cell(13).slice(0, 40)}"`,
            );
          checkLocalDate({ file: name, line, column: 'Date', text: cell(13) }, at, timeZone);
          const event = flag(2);
          if (!/^\d*$/.test(cell(7)))
            throw new ImportError(name, line, 'Bot', `not a number: "${cell(7).slice(0, 20)}"`);
          if (cell(7) !== '' && cell(7) !== '0') return;
          const scheme = cell(9);
          const referrer = cell(8);
          const code = cell(11).slice(0, 2).toUpperCase();
          const session = cell(6) || `line:${line}`;
          counter.add({
            at,
            visitor: session,
            visit: session,
            kind: event ? 'event' : 'pageview',
            page: event ? eventName({ file: name, line, column: COLUMNS[0] }, path) : path,
            referrer:
              scheme === 'c'
                ? ''
                : scheme === 'h' || scheme === ''
                  ? referrerHost(referrer)
                  : referrer,
            campaign: scheme === 'c' ? referrer : '',
            browser: withoutVersion(cell(4)),
            os: withoutVersion(cell(5)),
            device: deviceOfWidth(Number.parseInt(cell(10).split(',')[0] ?? '', 10)),
            country: /^[A-Z]{2}$/.test(code) ? `${code}:${countryName(code)}` : '',
            language: '',
            resolution: '',
          });
        },
      };
    },
    finish: () => counter.finish(),
    declared: () => null,
    statistics: () => RAW_STATISTICS,
  };
}
