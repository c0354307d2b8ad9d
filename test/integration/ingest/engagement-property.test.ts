/**
 * Time on page and scroll depth against a reference worked out from the raw hits
 * (docs/ARCHITECTURE.md, "Time on page and scroll depth"): random visits of a few pages, each
 * page view with none, one or several engagements — repeated, sent late (after the next page
 * view), in Sightline's shape (totals so far, the largest kept) or Plausible's (time since the
 * last send, added up) — and engagements of pages never viewed. The reference follows the
 * hits in the order they arrived: an engagement's time goes to the visit's last view of its
 * page so far (never more than the time since that page view arrived), its scroll to the
 * visit's first; then per page the seconds per visitor and
 * the average of the visits' deepest scrolls, as the Stats API v2 answers them. A visit's
 * duration counts the gaps between its page views, each at least the engaged time of the
 * page view before it, and its last page view's engaged time — from the roll-ups, which
 * readers ask for between the hits (so some engagements come after their page view was
 * rolled up), and from the log.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../../support/api.ts';
import { sendHit } from '../../support/hits.ts';
import { freezeAt, site } from '../../support/ingest-fixtures.ts';

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

/** Seconds between the hits as they arrive. */
const STEP_MS = 10_000;

/**
 * What the API should answer per page (visitors, time on page, scroll depth) and for the day
 * (visits, visit duration).
 */
function reference(sent: Sent[]): {
  pages: Record<string, [number, number, number | null]>;
  day: [number, number];
} {
  /** A page view: `at` its arrival. */
  type Row = { page: string; ms: number; scroll: number | null; at: number };
  /** A visitor's visit: its pages, last page view (`at`: its arrival), seconds and tail. */
  type Open = {
    seen: Map<string, { first: Row; last: Row }>;
    last?: Row;
    at: number;
    seconds: number;
    tail: number;
  };
  const rows: Row[] = [];
  const visits = new Map<number, Open>();
  const visitorsOf = new Map<string, Set<number>>();
  for (const [i, hit] of sent.entries()) {
    const visit: Open = visits.get(hit.visitor) ?? { seen: new Map(), at: 0, seconds: 0, tail: 0 };
    visits.set(hit.visitor, visit);
    const e = hit.engagement;
    if (!e) {
      const row: Row = { page: hit.page, ms: 0, scroll: null, at: i };
      rows.push(row);
      const known = visit.seen.get(hit.page);
      visit.seen.set(hit.page, { first: known?.first ?? row, last: row });
      if (visit.last) visit.seconds += Math.max(0, (i - visit.at) * (STEP_MS / 1000) - visit.tail);
      Object.assign(visit, { last: row, at: i, tail: 0 });
      visitorsOf.set(hit.page, (visitorsOf.get(hit.page) ?? new Set()).add(hit.visitor));
      continue;
    }
    const at = visit.seen.get(hit.page);
    // An engagement of a page its visit has not viewed (yet) counts nothing.
    if (!at) continue;
    const asked = e.plausible ? at.last.ms + e.ms : Math.max(at.last.ms, e.ms);
    // Never more than the page view has existed.
    at.last.ms = Math.min(asked, Math.max(at.last.ms, (i - at.last.at) * STEP_MS));
    if (e.scroll !== null) at.first.scroll = Math.max(at.first.scroll ?? 0, e.scroll);
    // The visit's last page view: its engaged time counts in the visit's duration.
    if (at.last === visit.last) {
      const tail = Math.floor(at.last.ms / 1000);
      visit.seconds += tail - visit.tail;
      visit.tail = tail;
    }
  }
  const viewed = [...visits.values()].filter((v) => v.last);
  const seconds = viewed.reduce((sum, v) => sum + v.seconds, 0);
  const day: [number, number] = [
    viewed.length,
    viewed.length ? Number((seconds / viewed.length).toFixed(0)) : 0,
  ];
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
  return { pages: out, day };
}

/** A v2 query of the day. */
async function query(key: string, json: Record<string, unknown>) {
  const res = await call('/api/v2/query', {
    method: 'POST',
    key,
    body: { json: { date_range: [DAY, DAY], ...json } },
  });
  expect(res.status, res.text).toBe(200);
  return (res.json as { results: { dimensions: string[]; metrics: number[] }[] }).results;
}

afterAll(() => freezeAt(Date.now()));

describe('time on page and scroll depth, for any visits and engagements', () => {
  it('equal the reference worked out from the raw hits, in the order they arrived', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(visitArb, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 2, max: 7 }),
        async (visits, readEvery) => {
          const s = await site('engagement-property');
          const sent = arrivals(visits);
          const start = Date.parse(`${DAY}T09:00:00Z`);
          const duration = { site_id: s.domain, metrics: ['visits', 'visit_duration'] };
          for (const [i, hit] of sent.entries()) {
            // A reader of the roll-ups: what the log holds so far is rolled up.
            if (i % readEvery === readEvery - 1) await query(s.key, duration);
            freezeAt(start + i * STEP_MS);
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
          const byPage = await query(s.key, {
            site_id: s.domain,
            metrics: ['visitors', 'time_on_page', 'scroll_depth'],
            dimensions: ['event:page'],
          });
          const expected = reference(sent);
          expect(Object.fromEntries(byPage.map((r) => [r.dimensions[0], r.metrics]))).toEqual(
            expected.pages,
          );
          // The roll-ups, and the log (a filter on visits no roll-up holds).
          expect((await query(s.key, duration))[0]?.metrics).toEqual(expected.day);
          const fromLog = { ...duration, filters: [['is_not', 'visit:browser', ['Lynx']]] };
          expect((await query(s.key, fromLog))[0]?.metrics).toEqual(expected.day);
        },
      ),
      { numRuns: 15, seed: 49 },
    );
  });
});
