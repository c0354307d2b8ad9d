/**
 * Time on page and scroll depth against a reference worked out from the raw hits
 * (docs/ARCHITECTURE.md, "Time on page and scroll depth"): random visits of a few pages, each
 * page view with none, one or several engagements — repeated, sent late (after the next page
 * view), in Sightline's shape (totals so far, the largest kept) or Plausible's (time since the
 * last send, added up) — and engagements of pages never viewed. The reference follows the
 * hits in the order they arrived: an engagement's time goes to the visit's last view of its
 * page so far, its scroll to the visit's first; then per page the seconds per visitor and
 * the average of the visits' deepest scrolls, as the Stats API v2 answers them.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../support/api.ts';
import { sendHit } from '../support/hits.ts';
import { freezeAt, site } from '../support/ingest-fixtures.ts';

const PAGES = ['/a', '/b', '/c'];
const DAY = '2026-08-04';

type Sent = {
  visitor: number;
  page: string;
  /** A page view, or an engagement: `ms` and `scroll` as sent. */
  engagement?: { ms: number; scroll: number | null; plausible: boolean };
};

/** A visitor's page views and each one's engagements (cumulative totals, then as sent). */
const visitArb = fc.record({
  plausible: fc.boolean(),
  views: fc.array(
    fc.record({
      page: fc.constantFrom(...PAGES),
      sends: fc.array(
        fc.record({
          ms: fc.integer({ min: 0, max: 20_000 }),
          scroll: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
          late: fc.boolean(),
          repeated: fc.boolean(),
        }),
        { maxLength: 3 },
      ),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  stray: fc.option(fc.constantFrom('/never', '/a'), { nil: null }),
});

/** The hits of the visits in the order they arrive: each after its slot, stable. */
function arrivals(visits: Visit[]): Sent[] {
  const slotted: { slot: number; sent: Sent }[] = [];
  visits.forEach((visit, visitor) => {
    visit.views.forEach((view, i) => {
      slotted.push({ slot: 4 * i, sent: { visitor, page: view.page } });
      let ms = 0;
      let scroll: number | null = null;
      for (const send of view.sends) {
        // Totals so far: never less than before.
        const total = Math.max(ms, send.ms);
        const deepest: number | null =
          send.scroll === null ? scroll : Math.max(scroll ?? 0, send.scroll);
        const engagement = visit.plausible
          ? { ms: total - ms, scroll: deepest, plausible: true }
          : { ms: total, scroll: deepest, plausible: false };
        ms = total;
        scroll = deepest;
        const slot = 4 * i + (send.late ? 5 : 1);
        slotted.push({ slot, sent: { visitor, page: view.page, engagement } });
        // Sightline's tracker may send the same totals again (a retry).
        if (send.repeated && !visit.plausible)
          slotted.push({ slot, sent: { visitor, page: view.page, engagement } });
      }
    });
    if (visit.stray)
      slotted.push({
        slot: 0,
        sent: {
          visitor,
          page: visit.stray,
          engagement: { ms: 1_000, scroll: 50, plausible: false },
        },
      });
  });
  return slotted.sort((a, b) => a.slot - b.slot).map((s) => s.sent);
}

type Visit = {
  plausible: boolean;
  views: {
    page: string;
    sends: { ms: number; scroll: number | null; late: boolean; repeated: boolean }[];
  }[];
  stray: string | null;
};

/** What the API should answer per page: visitors, time on page, scroll depth. */
function reference(sent: Sent[]): Record<string, [number, number, number | null]> {
  type Row = { page: string; ms: number; scroll: number | null };
  const rows: Row[] = [];
  const pages = new Map<number, Map<string, { first: Row; last: Row }>>();
  const visitorsOf = new Map<string, Set<number>>();
  for (const hit of sent) {
    const seen = pages.get(hit.visitor) ?? new Map<string, { first: Row; last: Row }>();
    pages.set(hit.visitor, seen);
    const e = hit.engagement;
    if (!e) {
      const row: Row = { page: hit.page, ms: 0, scroll: null };
      rows.push(row);
      const known = seen.get(hit.page);
      seen.set(hit.page, { first: known?.first ?? row, last: row });
      visitorsOf.set(hit.page, (visitorsOf.get(hit.page) ?? new Set()).add(hit.visitor));
      continue;
    }
    const at = seen.get(hit.page);
    // An engagement of a page its visit has not viewed (yet) counts nothing.
    if (!at) continue;
    at.last.ms = e.plausible ? at.last.ms + e.ms : Math.max(at.last.ms, e.ms);
    if (e.scroll !== null) at.first.scroll = Math.max(at.first.scroll ?? 0, e.scroll);
  }
  const out: Record<string, [number, number, number | null]> = {};
  for (const [page, visitors] of visitorsOf) {
    const own = rows.filter((r) => r.page === page);
    const ms = own.reduce((sum, r) => sum + r.ms, 0);
    const scrolls = own.flatMap((r) => (r.scroll === null ? [] : [r.scroll]));
    out[page] = [
      visitors.size,
      Number((ms / (visitors.size * 1000)).toFixed(0)),
      scrolls.length === 0
        ? null
        : Number((scrolls.reduce((a, b) => a + b, 0) / scrolls.length).toFixed(0)),
    ];
  }
  return out;
}

afterAll(() => freezeAt(Date.now()));

describe('time on page and scroll depth, for any visits and engagements', () => {
  it('equal the reference worked out from the raw hits, in the order they arrived', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(visitArb, { minLength: 1, maxLength: 3 }), async (visits) => {
        const s = await site('engagement-property');
        const sent = arrivals(visits);
        const start = Date.parse(`${DAY}T09:00:00Z`);
        for (const [i, hit] of sent.entries()) {
          freezeAt(start + i * 10_000);
          const page = `https://${s.domain}${hit.page}`;
          const e = hit.engagement;
          const body = !e
            ? { page }
            : e.plausible
              ? {
                  n: 'engagement',
                  u: page,
                  d: s.domain,
                  e: e.ms,
                  ...(e.scroll === null ? {} : { sd: e.scroll }),
                }
              : {
                  page,
                  engagement: { ms: e.ms, ...(e.scroll === null ? {} : { scroll: e.scroll }) },
                };
          const res = await sendHit(body, { ip: `198.51.100.${hit.visitor + 1}` });
          expect(res.status).toBe(202);
        }
        const res = await call('/api/v2/query', {
          method: 'POST',
          key: s.key,
          body: {
            json: {
              site_id: s.domain,
              date_range: [DAY, DAY],
              metrics: ['visitors', 'time_on_page', 'scroll_depth'],
              dimensions: ['event:page'],
            },
          },
        });
        expect(res.status, res.text).toBe(200);
        const got = Object.fromEntries(
          (res.json as { results: { dimensions: string[]; metrics: number[] }[] }).results.map(
            (r) => [r.dimensions[0], r.metrics],
          ),
        );
        expect(got).toEqual(reference(sent));
      }),
      { numRuns: 15, seed: 49 },
    );
  });
});
