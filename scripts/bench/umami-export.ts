/**
 * A generated Umami export for the import's memory benchmark (`imports.peakHeap`): the
 * `website_event` CSV of docs/GUIDE.md's query (each event's session columns beside it), of
 * `sessions` sessions spread over `days` days before `end`, each one visit of one to four page
 * views a few minutes apart and now and then a custom event, in time order as Umami's
 * databases hand out their rows. Seeded: the same options give the same bytes.
 */
import { rng } from '../lib/traffic.ts';

export type UmamiExportOptions = { sessions: number; days: number; end: number; seed: number };

const HEADER =
  'session_id,visit_id,created_at,url_path,url_query,referrer_domain,utm_campaign,event_type,event_name,browser,os,device,screen,language,country';
const PAGES = ['/', '/pricing', '/docs', '/blog', '/about', '/docs/start', '/blog/launch'];
const REFERRERS = ['', '', '', 'google.com', 'news.ycombinator.com', 'twitter.com'];
const BROWSERS = ['chrome', 'firefox', 'safari', 'edge-chromium', 'ios', 'crios'];
const SYSTEMS = ['Windows 10', 'Mac OS', 'Linux', 'iOS', 'Android OS'];
const DEVICES = ['desktop', 'laptop', 'mobile', 'tablet'];
const SCREENS = ['1920x1080', '1440x900', '390x844', '768x1024'];
const LANGUAGES = ['en-US', 'de-DE', 'fr-FR', 'ja-JP'];
const COUNTRIES = ['US', 'DE', 'FR', 'JP', 'GB', 'IN'];

const DAY = 86_400_000;

/** The export's lines (header first), a day's rows at a time, in time order. */
export function* umamiExportLines(o: UmamiExportOptions): Generator<string> {
  const random = rng(o.seed);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)] as T;
  const uuid = () => {
    let hex = '';
    for (let i = 0; i < 4; i++)
      hex += Math.floor(random() * 2 ** 32)
        .toString(16)
        .padStart(8, '0');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
  };
  yield HEADER;
  const first = Math.floor(o.end / DAY) * DAY - o.days * DAY;
  let carried: [number, string][] = [];
  for (let day = 0; day < o.days; day++) {
    const start = first + day * DAY;
    const rows = carried;
    carried = [];
    const sessions =
      Math.floor(((day + 1) * o.sessions) / o.days) - Math.floor((day * o.sessions) / o.days);
    for (let s = 0; s < sessions; s++) {
      const session = uuid();
      const visit = uuid();
      const who = [pick(BROWSERS), pick(SYSTEMS), pick(DEVICES), pick(SCREENS)];
      const place = [pick(LANGUAGES), pick(COUNTRIES)];
      const referrer = pick(REFERRERS);
      const campaign = random() < 0.05 ? 'spring' : '';
      let at = start + Math.floor(random() * DAY);
      const views = 1 + Math.floor(random() * random() * 4);
      for (let v = 0; v < views; v++) {
        const row = (page: string, type: number, name: string) =>
          [
            session,
            visit,
            new Date(at).toISOString().slice(0, 19).replace('T', ' '),
            page,
            '',
            v === 0 ? referrer : '',
            v === 0 ? campaign : '',
            type,
            name,
            ...who,
            ...place,
          ].join(',');
        rows.push([at, row(pick(PAGES), 1, '')]);
        if (random() < 0.03) rows.push([at + 1000, row('/pricing', 2, 'Signup')]);
        at += 1000 + Math.floor(random() * 300_000);
      }
    }
    rows.sort((a, b) => a[0] - b[0]);
    for (const [at, line] of rows) {
      if (at >= start + DAY) carried.push([at, line]);
      else yield line;
    }
  }
  for (const [, line] of carried) yield line;
}
