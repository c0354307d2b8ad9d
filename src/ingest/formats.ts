/**
 * Other trackers' payloads, translated into Sightline's own (`{page, referrer,
 * screen_resolution, language, domain, event}`), so that a site can move by changing only
 * the script's host. Every translated hit then goes through the same validation and the
 * same pipeline as a native one: the same drops, the same counting.
 *
 * - Plausible: `POST /api/event` with `{n|name, u|url, d|domain, r|referrer, w, p|props, $|revenue}`
 *   (https://plausible.io/docs/events-api), told apart from the native payload by its keys.
 * - Umami: `POST /api/send` with `{type: "event", payload: {website, hostname, url, referrer,
 *   screen, language, title, name, data}}` (https://umami.is/docs/api/sending-stats).
 * - phpAnalytics: its tracker's payload is the native one, `event` as `name:value:unit`.
 */

import { storedEventName } from '../counting/statistics.ts';

export type NativeHit = Record<string, unknown>;

/** A translation: hits to process, or a reason not to count anything (still a 202). */
export type Translated =
  | { kind: 'hits'; hits: NativeHit[]; websiteId?: number }
  | { kind: 'ignored'; reason: 'not_counted' }
  | { kind: 'invalid'; message: string }
  /** Not a hit at all; `message` is the whole answer. */
  | { kind: 'malformed'; message: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Value and unit of an event from its properties: revenue first, then `value`/`unit`. */
function valueAndUnit(props: Record<string, unknown>, revenue: unknown) {
  const scalar = (v: unknown) => (typeof v === 'number' || typeof v === 'string' ? v : undefined);
  if (isObject(revenue)) return { value: scalar(revenue.amount), unit: scalar(revenue.currency) };
  return { value: scalar(props.value), unit: scalar(props.unit) };
}

/** The body of `POST /api/event`: Plausible's payload (told apart by its keys) or the native one. */
export function fromEventBody(body: unknown): Translated {
  if (!isObject(body)) return { kind: 'malformed', message: 'The hit must be a JSON object.' };
  return isPlausible(body) ? fromPlausible(body) : { kind: 'hits', hits: [body] };
}

/** True for a body in Plausible's shape: no native `page`, a name and a URL. */
export function isPlausible(body: Record<string, unknown>): boolean {
  return !('page' in body) && ('n' in body || 'name' in body) && ('u' in body || 'url' in body);
}

export function fromPlausible(body: Record<string, unknown>): Translated {
  const name = body.n ?? body.name;
  const url = body.u ?? body.url;
  const domains = body.d ?? body.domain;
  if (typeof name !== 'string' || name.trim() === '')
    return { kind: 'invalid', message: 'name must be a non-empty string' };
  if (typeof url !== 'string') return { kind: 'invalid', message: 'url must be a string' };
  // An engagement (time on page, scroll depth) updates its page view: its time since the last
  // send (`e`, ms, added up) and its deepest scroll (`sd`, percent; 255 or none: not measured).
  if (name === 'engagement') return fromPlausibleEngagement(body, url, domains);
  let props: unknown = body.p ?? body.props;
  if (typeof props === 'string') {
    try {
      props = JSON.parse(props);
    } catch {
      props = undefined;
    }
  }
  const event =
    name === 'pageview'
      ? undefined
      : {
          name: storedEventName(name),
          ...valueAndUnit(isObject(props) ? props : {}, body.$ ?? body.revenue),
        };
  // `d` may list several sites ("a.com,b.com"): the hit counts once for each of them.
  const hits = domainsOf(domains).map((domain) => ({
    page: url,
    referrer: body.r ?? body.referrer ?? null,
    ...(domain ? { domain } : {}),
    ...(event ? { event } : {}),
    ...(isObject(props) ? { props } : {}),
    ...(event && isObject(body.$ ?? body.revenue) ? { revenue: body.$ ?? body.revenue } : {}),
  }));
  return { kind: 'hits', hits };
}

/** The sites a Plausible hit names (`d`: "a.com,b.com"), at most ten; none: [undefined]. */
function domainsOf(domains: unknown): (string | undefined)[] {
  const list =
    typeof domains === 'string'
      ? domains
          .split(',')
          .map((d) => d.trim())
          .filter(Boolean)
      : [];
  return list.length > 0 ? list.slice(0, 10) : [undefined];
}

/** Plausible's engagement (`n: "engagement"`), as Sightline's (`engagement: {ms, scroll}`). */
function fromPlausibleEngagement(body: Record<string, unknown>, url: string, domains: unknown) {
  const scroll = typeof body.sd === 'number' && body.sd >= 0 && body.sd <= 100 ? body.sd : null;
  const engagement = { ms: typeof body.e === 'number' ? body.e : 0, scroll, added: true };
  const hits = domainsOf(domains).map((domain) => ({
    page: url,
    ...(domain ? { domain } : {}),
    engagement,
    ...(body.h === 1 ? { hash: true } : {}),
  }));
  return { kind: 'hits' as const, hits };
}

export function fromUmami(body: unknown): Translated {
  if (!isObject(body) || !isObject(body.payload))
    return { kind: 'invalid', message: 'expected {type, payload}' };
  if (body.type !== 'event') return { kind: 'ignored', reason: 'not_counted' };
  const p = body.payload;
  const hostname = typeof p.hostname === 'string' ? p.hostname : undefined;
  const website =
    typeof p.website === 'string' || typeof p.website === 'number' ? String(p.website) : '';
  const websiteId = /^[1-9]\d{0,15}$/.test(website) ? Number(website) : undefined;
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(website);
  // Umami's `url` is a path (with `hostname` beside it) or, from some clients, a full URL.
  // Without a host, the path (the root when there is no `url`: a server-side event) is kept
  // for the website named by id or domain to complete (`path`).
  let page: unknown = p.url;
  let path: string | undefined;
  if (typeof p.url === 'string' && !/^https?:\/\//i.test(p.url)) {
    const host =
      hostname ?? (websiteId === undefined && !uuid && website !== '' ? website : undefined);
    const relative = `${p.url.startsWith('/') ? '' : '/'}${p.url}`;
    page = host ? `https://${host}${relative}` : undefined;
    if (!host) path = relative;
  } else if (p.url === undefined) {
    if (hostname) page = `https://${hostname}/`;
    else path = '/';
  }
  const data = isObject(p.data) ? p.data : {};
  const hit: NativeHit = {
    referrer: typeof p.referrer === 'string' && p.referrer !== '' ? p.referrer : null,
    screen_resolution: typeof p.screen === 'string' && p.screen !== '' ? p.screen : null,
    language: typeof p.language === 'string' && p.language !== '' ? p.language : null,
  };
  if (page !== undefined) hit.page = page;
  if (path !== undefined) hit.path = path;
  // Without a website id, the website is named by its domain (or found from the page host).
  if (websiteId === undefined && website !== '' && !/^[0-9a-f-]{36}$/i.test(website))
    hit.domain = website;
  if (isObject(p.data)) hit.props = p.data;
  if ('revenue' in data) hit.revenue = { amount: data.revenue, currency: data.currency };
  if (typeof p.name === 'string' && p.name !== '') {
    hit.event = {
      name: storedEventName(p.name),
      ...valueAndUnit(
        data,
        'revenue' in data ? { amount: data.revenue, currency: data.currency } : undefined,
      ),
    };
  }
  return { kind: 'hits', hits: [hit], ...(websiteId !== undefined ? { websiteId } : {}) };
}
