/**
 * The hit payload of `POST /api/event` (docs/ARCHITECTURE.md, The HTTP contract): `{page, referrer, screen_resolution,
 * language?, domain?, event?, props?}`. Every field is bounded; a hit that fails here stores nothing.
 */
import { z } from 'zod';
import { storedEventName } from '../counting/statistics.ts';
import { hasControlCharacter } from '../lib/text.ts';
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
  /** A `#fragment` of the page makes a page of its own (the tag's `data-hash`). */
  hash: boolean;
  /** The snippet asked for Do Not Track to be honoured (`data-dnt="true"`). */
  dnt: boolean;
  /** The website's id, when the tracker names it so (Umami); else `domain` or the page host decide. */
  websiteId?: number;
};

const httpUrl = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .max(MAX_URL, `${field} is longer than ${MAX_URL} characters`)
    .transform((value, ctx) => {
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {
        // reported below
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
        ctx.addIssue({ code: 'custom', message: `${field} must be an absolute http(s) URL` });
        return z.NEVER;
      }
      return url;
    });

/** Event names and units are identifiers; `:` separates the parts of an event value. */
const token = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(max, `${field} is longer than ${max} characters`)
    .refine(
      (v) => !v.includes(':') && !hasControlCharacter(v),
      `${field} must not contain ":" or control characters`,
    );

const eventValue = z.union(
  [
    z
      .number()
      .finite('event.value must be a finite number')
      .transform((n) => String(n)),
    z
      .string()
      .trim()
      .max(64, 'event.value is longer than 64 characters')
      .refine(
        (v) => !v.includes(':') && !hasControlCharacter(v),
        'event.value must not contain ":" or control characters',
      ),
  ],
  { error: 'event.value must be a number or a string' },
);

const eventObject = z.object({
  // A name may hold `:` ("Outbound Link: Click"): kept as the log keeps other trackers'.
  name: z
    .string({ error: 'event.name must be a string' })
    .transform(storedEventName)
    .pipe(token('event.name', 64)),
  value: eventValue.nullish().transform((v) => (v === '' ? null : (v ?? null))),
  unit: token('event.unit', 32)
    .nullish()
    .transform((v) => v ?? null),
});

/** phpAnalytics' own tracker sends an event as one string `name:value:unit`. */
const eventString = z
  .string()
  .max(200, 'event is longer than 200 characters')
  .transform((value, ctx) => {
    const [name = '', val = '', unit = ''] = value.split(':');
    const parsed = eventObject.safeParse({ name, value: val || null, unit: unit || null });
    if (!parsed.success || value.split(':').length > 3) {
      ctx.addIssue({
        code: 'custom',
        message: 'event must be "name", "name:value" or "name:value:unit"',
      });
      return z.NEVER;
    }
    return parsed.data;
  });

const hitSchema = z.object({
  page: httpUrl('page'),
  referrer: z
    .string({ error: 'referrer must be a string' })
    .max(MAX_URL, `referrer is longer than ${MAX_URL} characters`)
    .nullish()
    .transform((value) => {
      // Referrers are informational: an app referrer (android-app://…) or garbage is no referrer.
      if (!value) return null;
      try {
        const url = new URL(value);
        return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
      } catch {
        return null;
      }
    }),
  screen_resolution: z
    .string({ error: 'screen_resolution must be a string like 1920x1080' })
    .nullish()
    .refine((value) => {
      if (value === null || value === undefined || value === '') return true;
      const match = /^(\d{1,5})x(\d{1,5})$/.exec(value);
      return (
        !!match && [match[1], match[2]].every((n) => Number(n) >= 1 && Number(n) <= MAX_SCREEN)
      );
    }, `screen_resolution must be WIDTHxHEIGHT, each between 1 and ${MAX_SCREEN}`)
    .transform((value) => value || null),
  language: z
    .string({ error: 'language must be a string' })
    .max(35, 'language is longer than 35 characters')
    .nullish(),
  domain: z
    .string({ error: 'domain must be a string' })
    .max(253, 'domain is longer than 253 characters')
    .nullish(),
  // Chosen by type rather than z.union, so that each form reports its own message.
  event: z
    .unknown()
    .transform((value, ctx): HitEvent | null => {
      if (value === null || value === undefined) return null;
      const form =
        typeof value === 'string'
          ? eventString
          : typeof value === 'object' && !Array.isArray(value)
            ? eventObject
            : null;
      const parsed = form?.safeParse(value);
      if (!parsed?.success) {
        const message = parsed?.error.issues[0]?.message;
        ctx.addIssue({
          code: 'custom',
          message: message ?? 'event must be an object {name, value?, unit?} or a string',
        });
        return z.NEVER;
      }
      return parsed.data;
    })
    .optional(),
  dnt: z.boolean({ error: 'dnt must be a boolean' }).optional(),
  hash: z.boolean({ error: 'hash must be a boolean' }).optional(),
  props: z
    .unknown()
    .transform((value, ctx) => {
      if (value === null || value === undefined) return [];
      if (typeof value !== 'object' || Array.isArray(value)) {
        ctx.addIssue({ code: 'custom', message: 'props must be an object of names and values' });
        return z.NEVER;
      }
      return propsFrom(value as Record<string, unknown>);
    })
    .optional(),
  revenue: z.unknown().optional(),
});

export type HitParse = { ok: true; hit: Hit } | { ok: false; message: string };

/** Validates a decoded JSON body as a hit. */
export function parseHit(body: unknown): HitParse {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, message: 'The hit must be a JSON object.' };
  }
  const result = hitSchema.safeParse(body);
  if (!result.success)
    return { ok: false, message: result.error.issues[0]?.message ?? 'Invalid hit.' };
  const d = result.data;
  return {
    ok: true,
    hit: {
      page: d.page,
      referrer: d.referrer,
      resolution: d.screen_resolution ?? null,
      language: d.language ?? null,
      domain: d.domain ?? null,
      event: d.event ?? null,
      props: d.props ?? [],
      revenue: d.event ? revenueFrom(d.revenue) : null,
      hash: d.hash === true,
      dnt: d.dnt === true,
    },
  };
}

/** The `event` statistic's value: `name`, or `name:value:unit` when a value or unit was sent. */
export function eventLabel(event: HitEvent): string {
  return event.value === null && event.unit === null
    ? event.name
    : `${event.name}:${event.value ?? ''}:${event.unit ?? ''}`;
}
