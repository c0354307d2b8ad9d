/**
 * What a website costs on Cloudflare's plans, from the benchmark's exact counts per page view:
 * the page views a day the Workers Free plan allows (the first daily limit reached), and what
 * a million page views cost at the Workers Paid plan's prices. The limits and prices are
 * Cloudflare's published ones, checked on the date below; they are inputs here, not measured.
 */

/** Where the figures come from, and when they were checked. */
export const PLAN_SOURCES = {
  checked: '2026-11-25',
  pages: [
    'https://developers.cloudflare.com/workers/platform/pricing/',
    'https://developers.cloudflare.com/durable-objects/platform/pricing/',
    'https://developers.cloudflare.com/d1/platform/pricing/',
  ],
};

/** What one page view costs, on average, of each thing the plans count. */
export type PerPageview = {
  /** Requests to the Worker: the hit itself. */
  workersRequests: number;
  /** Requests to Durable Objects: the hit's call to its website's log, and the log's alarms. */
  doRequests: number;
  doRowsWritten: number;
  doRowsRead: number;
  d1RowsWritten: number;
  d1RowsRead: number;
};

/** The Workers Free plan's daily limits (a limit reached makes further operations fail). */
export const FREE_PLAN_DAILY: Record<keyof PerPageview, number> = {
  workersRequests: 100_000,
  doRequests: 100_000,
  doRowsWritten: 100_000,
  doRowsRead: 5_000_000,
  d1RowsWritten: 100_000,
  d1RowsRead: 5_000_000,
};

/** The Workers Paid plan's prices beyond what its $5 a month includes, in US dollars per million. */
const PAID_PRICE_PER_MILLION: Record<keyof PerPageview, number> = {
  workersRequests: 0.3,
  doRequests: 0.15,
  doRowsWritten: 1.0,
  doRowsRead: 0.001,
  d1RowsWritten: 1.0,
  d1RowsRead: 0.001,
};

/**
 * The alarms a website's log runs a day whatever its traffic: the hourly maintenance (its
 * flushes are counted per page view).
 */
const DAILY_ALARMS = 24;

/** The page views a day one website can take on the Workers Free plan, and the limit that binds. */
export function freePlanCapacity(per: PerPageview): {
  pageviewsPerDay: number;
  binding: keyof PerPageview;
} {
  let best = {
    pageviewsPerDay: Number.POSITIVE_INFINITY,
    binding: 'workersRequests' as keyof PerPageview,
  };
  for (const key of Object.keys(FREE_PLAN_DAILY) as (keyof PerPageview)[]) {
    const room = FREE_PLAN_DAILY[key] - (key === 'doRequests' ? DAILY_ALARMS : 0);
    const pageviews = per[key] > 0 ? Math.floor(room / per[key]) : Number.POSITIVE_INFINITY;
    if (pageviews < best.pageviewsPerDay) best = { pageviewsPerDay: pageviews, binding: key };
  }
  return best;
}

/** What a million page views cost at the Paid plan's prices (beyond its included usage). */
export function paidCostPerMillion(per: PerPageview): {
  usd: number;
  parts: Record<keyof PerPageview, number>;
} {
  const parts = {} as Record<keyof PerPageview, number>;
  let usd = 0;
  for (const key of Object.keys(PAID_PRICE_PER_MILLION) as (keyof PerPageview)[]) {
    parts[key] = Number((per[key] * PAID_PRICE_PER_MILLION[key]).toFixed(4));
    usd += parts[key];
  }
  return { usd: Number(usd.toFixed(2)), parts };
}
