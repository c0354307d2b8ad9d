/**
 * Umami's events: a CSV of its `website_event` table with each event's session columns beside
 * it — the `website_event.csv` of Umami Cloud's data export (whose rows carry them), or, from
 * a self-hosted Umami, the query in docs/GUIDE.md run with `psql`'s `\copy` — columns matched by
 * their header's names. Page views (`event_type` 1) and custom events (2) are counted as
 * Sightline counts its own hits (./raw.ts), by Umami's sessions and visits; other event types
 * are left out. Other files of a zip (`session_data.csv`, `event_data.csv`) are not read.
 */
import { countryName } from '../ingest/steps/geo.ts';
import { languageOf } from '../ingest/steps/language.ts';
import {
  Columns,
  checkLocalDate,
  eventName,
  type FileHandler,
  type FormatReader,
  ImportError,
  instantOf,
} from './format.ts';
import { RAW_STATISTICS, type RawCounter } from './raw.ts';

/** Umami's browser ids (detect-browser's) as the names Sightline keeps. */
const BROWSERS: Record<string, string> = {
  chrome: 'Chrome',
  crios: 'Chrome',
  'chromium-webview': 'Chrome',
  firefox: 'Firefox',
  fxios: 'Firefox',
  safari: 'Safari',
  ios: 'Safari',
  'ios-webview': 'Safari',
  'edge-chromium': 'Edge',
  edge: 'Edge',
  'edge-ios': 'Edge',
  opera: 'Opera',
  'opera-mini': 'Opera',
  samsung: 'Samsung Internet for Android',
  yandexbrowser: 'Yandex Browser',
  brave: 'Brave',
  vivaldi: 'Vivaldi',
};

/** Umami's system names as Sightline's. */
function systemOf(os: string): string {
  if (os === '') return 'Unknown';
  if (/^windows/i.test(os)) return 'Windows';
  if (/^mac ?os/i.test(os)) return 'macOS';
  if (/^android/i.test(os)) return 'Android';
  if (/^chrome ?os/i.test(os)) return 'Chrome OS';
  return os;
}

/** Umami's device as Sightline's; a laptop is a desktop. */
function deviceOf(device: string): string {
  const d = device.toLowerCase();
  if (d === 'desktop' || d === 'laptop') return 'desktop';
  if (d === 'mobile' || d === 'tablet') return d;
  return 'Unknown';
}

/** The reader of Umami's `website_event` CSV, for a website in `timeZone`. */
export function umamiReader(counter: RawCounter, timeZone: string): FormatReader {
  let events = 0;
  return {
    file(name): FileHandler {
      const base = name.slice(name.lastIndexOf('/') + 1).toLowerCase();
      if (/^(session_data|event_data)/.test(base)) return { header() {}, record() {} };
      events++;
      let cols: Columns | undefined;
      return {
        header(cells) {
          cols = new Columns(name, cells);
          for (const column of ['session_id', 'created_at', 'url_path']) cols.required(column);
        },
        record(cells, line) {
          const c = cols as Columns;
          const text = (column: string) => {
            const value = c.text(cells, column);
            return value === '\\N' || value.toUpperCase() === 'NULL' ? '' : value;
          };
          const type = text('event_type') || (text('event_name') ? '2' : '1');
          if (!/^\d+$/.test(type))
            throw new ImportError(name, line, 'event_type', `not a number: "${type.slice(0, 20)}"`);
          if (type !== '1' && type !== '2') return;
          const at = instantOf(text('created_at'));
          if (!Number.isFinite(at))
            throw new ImportError(
              name,
              line,
              'created_at',
              `not a time: "${text('created_at').slice(0, 40)}"`,
            );
          checkLocalDate(
            { file: name, line, column: 'created_at', text: text('created_at') },
            at,
            timeZone,
          );
          const session = text('session_id');
          if (session === '') throw new ImportError(name, line, 'session_id', 'empty');
          const query = text('url_query').replace(/^\?/, '');
          const page =
            type === '2'
              ? eventName({ file: name, line, column: 'event_name' }, text('event_name'))
              : `${text('url_path')}${query ? `?${query}` : ''}`;
          if (page === '' || page.startsWith('?'))
            throw new ImportError(name, line, type === '2' ? 'event_name' : 'url_path', 'empty');
          const code = text('country').toUpperCase();
          const browser = text('browser');
          counter.add({
            at,
            visitor: session,
            visit: text('visit_id') || session,
            kind: type === '2' ? 'event' : 'pageview',
            page,
            referrer: text('referrer_domain').toLowerCase(),
            campaign: text('utm_campaign'),
            browser: browser === '' ? 'Unknown' : (BROWSERS[browser] ?? browser),
            os: systemOf(text('os')),
            device: deviceOf(text('device')),
            country: /^[A-Z]{2}$/.test(code) ? `${code}:${countryName(code)}` : '',
            language: languageOf(text('language'), null) ?? '',
            resolution: text('screen'),
          });
        },
      };
    },
    finish() {
      if (events === 0)
        throw new ImportError('the upload', null, null, 'it holds no website_event CSV of Umami');
      return counter.finish();
    },
    declared: () => null,
    statistics: () => RAW_STATISTICS,
  };
}
