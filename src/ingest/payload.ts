/**
 * The hit payload of `POST /api/event` (docs/ARCHITECTURE.md, The HTTP contract): `{page, referrer, screen_resolution,
 * language?, domain?, event?, props?}`. Every field is bounded; a hit that fails here stores nothing.
 */
import { storedEventName } from '../counting/statistics.ts';
import type { Check } from '../lib/json-schema.ts';
import { hasControlCharacter } from '../lib/text/text.ts';
import type { Engagement } from '../website-log/events.ts';
import { propsFrom } from './props.ts';
import { type Revenue, revenueFrom } from './revenue.ts';

export const MAX_URL = 2048;
const MAX_SCREEN = 20_000;

export type HitEvent = { name: string; value: string | null; unit: string | null };

export type Hit = {
  page: URL;
  referrer: URL | null;
  resolution: string | null;
  language: string | null;
  domain: string | null;
  event: HitEvent | null;
  /** Custom properties, as sent (./props.ts). */
  props: [name: string, value: string][];
  /** A custom event's revenue (./revenue.ts): none for a page view or one not valid. */
  revenue: Revenue | null;
  /** A page view's engagement: the time it was seen and its deepest scroll (no new hit). */
  engagement: Engagement | null;
  /** A `#fragment` of the page makes a page of its own (the tag's `data-hash`). */
  hash: boolean;
  /** The snippet asked for Do Not Track to be honoured (`data-dnt="true"`). */
  dnt: boolean;
  /** The website's id, when the tracker names it so (Umami); else `domain` or the page host decide. */
  websiteId?: number;
};

const fail = (message: string) => ({ ok: false, message }) as const;
const ok = <T>(value: T) => ({ ok: true, value }) as const;

/** A string of at most `max` characters, or nothing (undefined or null). */
function optionalText(field: string, raw: unknown, max: number): Check<string | null> {
  if (raw === undefined || raw === null) return ok(null);
  if (typeof raw !== 'string') return fail(`${field} must be a string`);
  return raw.length > max ? fail(`${field} is longer than ${max} characters`) : ok(raw);
}

/** The URL of `text` when it is an http(s) one. */
function webUrl(text: string): URL | null {
  const url = URL.parse(text);
  return url && (url.protocol === 'http:' || url.protocol === 'https:') ? url : null;
}

function pageUrl(raw: unknown): Check<URL> {
  if (typeof raw !== 'string') return fail('page must be a string');
  if (raw.length > MAX_URL) return fail(`page is longer than ${MAX_URL} characters`);
  const url = webUrl(raw);
  return url && url.hostname !== '' ? ok(url) : fail('page must be an absolute http(s) URL');
}

/** Referrers are informational: an app referrer (android-app://…) or garbage is no referrer. */
function referrerUrl(raw: unknown): Check<URL | null> {
  const text = optionalText('referrer', raw, MAX_URL);
  if (!text.ok) return text;
  return ok(text.value ? webUrl(text.value) : null);
}

function screenResolution(raw: unknown): Check<string | null> {
  if (raw === undefined || raw === null || raw === '') return ok(null);
  if (typeof raw !== 'string') return fail('screen_resolution must be a string like 1920x1080');
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(raw);
  return match && [match[1], match[2]].every((n) => Number(n) >= 1 && Number(n) <= MAX_SCREEN)
    ? ok(raw)
    : fail(`screen_resolution must be WIDTHxHEIGHT, each between 1 and ${MAX_SCREEN}`);
}

const noColons = (field: string, value: string) =>
  value.includes(':') || hasControlCharacter(value)
    ? fail(`${field} must not contain ":" or control characters`)
    : ok(value);

/** Event names and units are identifiers; `:` separates the parts of an event value. */
function token(field: string, raw: unknown, max: number): Check<string> {
  if (typeof raw !== 'string') return fail(`${field} must be a string`);
  const value = raw.trim();
  if (value === '') return fail(`${field} must not be empty`);
  if (value.length > max) return fail(`${field} is longer than ${max} characters`);
  return noColons(field, value);
}

/** A number (written as text) or a string of at most 64 characters; empty is none. */
function eventValue(raw: unknown): Check<string | null> {
  if (raw === undefined || raw === null) return ok(null);
  if (typeof raw === 'number' && Number.isFinite(raw)) return ok(String(raw));
  if (typeof raw !== 'string') return fail('event.value must be a number or a string');
  const value = raw.trim();
  if (value.length > 64) return fail('event.value is longer than 64 characters');
  const checked = noColons('event.value', value);
  return checked.ok && value === '' ? ok(null) : checked;
}

function eventObject(raw: Record<string, unknown>): Check<HitEvent> {
  // A name may hold `:` ("Outbound Link: Click"): kept as the log keeps other trackers'.
  if (typeof raw.name !== 'string') return fail('event.name must be a string');
  const name = token('event.name', storedEventName(raw.name), 64);
  if (!name.ok) return name;
  const value = eventValue(raw.value);
  if (!value.ok) return value;
  const unit =
    raw.unit === undefined || raw.unit === null ? ok(null) : token('event.unit', raw.unit, 32);
  if (!unit.ok) return unit;
  return ok({ name: name.value, value: value.value, unit: unit.value });
}

/** phpAnalytics' own tracker sends an event as one string `name:value:unit`. */
function eventString(raw: string): Check<HitEvent> {
  if (raw.length > 200) return fail('event is longer than 200 characters');
  const parts = raw.split(':');
  const [name = '', value = '', unit = ''] = parts;
  const parsed = eventObject({ name, value: value || null, unit: unit || null });
  return parsed.ok && parts.length <= 3
    ? parsed
    : fail('event must be "name", "name:value" or "name:value:unit"');
}

/** Chosen by type, so that each form reports its own message. */
function hitEvent(raw: unknown): Check<HitEvent | null> {
  if (raw === undefined || raw === null) return ok(null);
  if (typeof raw === 'string') return eventString(raw);
  if (typeof raw === 'object' && !Array.isArray(raw))
    return eventObject(raw as Record<string, unknown>);
  return fail('event must be an object {name, value?, unit?} or a string');
}

function flag(field: string, raw: unknown): Check<boolean> {
  if (raw === undefined) return ok(false);
  return typeof raw === 'boolean' ? ok(raw) : fail(`${field} must be a boolean`);
}

function hitProps(raw: unknown): Check<[name: string, value: string][]> {
  if (raw === undefined || raw === null) return ok([]);
  if (typeof raw !== 'object' || Array.isArray(raw))
    return fail('props must be an object of names and values');
  return ok(propsFrom(raw as Record<string, unknown>));
}

/** The longest engagement of one page view counted: a day. */
const MAX_ENGAGED_MS = 86_400_000;

/**
 * `{ms, scroll?}`: the milliseconds a page view was seen (its total so far; with `added`,
 * Plausible's, since the last send) and its deepest scroll in percent.
 */
function hitEngagement(raw: unknown): Check<Engagement | null> {
  if (raw === undefined || raw === null) return ok(null);
  if (typeof raw !== 'object' || Array.isArray(raw))
    return fail('engagement must be an object {ms, scroll?}');
  const { ms, scroll, added } = raw as Record<string, unknown>;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
    return fail('engagement.ms must be a number of milliseconds, 0 or more');
  if (
    scroll !== undefined &&
    scroll !== null &&
    (typeof scroll !== 'number' || !(scroll >= 0 && scroll <= 100))
  )
    return fail('engagement.scroll must be a percentage from 0 to 100');
  const engagement: Engagement = {
    // A tab left open for days counts a day.
    ms: Math.floor(Math.min(ms, MAX_ENGAGED_MS)),
    scroll: typeof scroll === 'number' ? Math.round(scroll) : null,
  };
  return ok(added === true ? { ...engagement, added: true } : engagement);
}

export type HitParse = { ok: true; hit: Hit } | { ok: false; message: string };

/** Validates a decoded JSON body as a hit: the first bad field, in this order, is the message. */
export function parseHit(body: unknown): HitParse {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, message: 'The hit must be a JSON object.' };
  }
  const raw = body as Record<string, unknown>;
  const page = pageUrl(raw.page);
  if (!page.ok) return page;
  const referrer = referrerUrl(raw.referrer);
  if (!referrer.ok) return referrer;
  const resolution = screenResolution(raw.screen_resolution);
  if (!resolution.ok) return resolution;
  const language = optionalText('language', raw.language, 35);
  if (!language.ok) return language;
  const domain = optionalText('domain', raw.domain, 253);
  if (!domain.ok) return domain;
  const event = hitEvent(raw.event);
  if (!event.ok) return event;
  const dnt = flag('dnt', raw.dnt);
  if (!dnt.ok) return dnt;
  const hash = flag('hash', raw.hash);
  if (!hash.ok) return hash;
  const props = hitProps(raw.props);
  if (!props.ok) return props;
  const engagement = hitEngagement(raw.engagement);
  if (!engagement.ok) return engagement;
  if (engagement.value && event.value)
    return fail('a hit is a page view, an event or an engagement: not both event and engagement');
  return {
    ok: true,
    hit: {
      page: page.value,
      referrer: referrer.value,
      resolution: resolution.value,
      language: language.value,
      domain: domain.value,
      event: event.value,
      props: props.value,
      revenue: event.value ? revenueFrom(raw.revenue) : null,
      engagement: engagement.value,
      hash: hash.value,
      dnt: dnt.value,
    },
  };
}

/** The `event` statistic's value: `name`, or `name:value:unit` when a value or unit was sent. */
export function eventLabel(event: HitEvent): string {
  return event.value === null && event.unit === null
    ? event.name
    : `${event.name}:${event.value ?? ''}:${event.unit ?? ''}`;
}
