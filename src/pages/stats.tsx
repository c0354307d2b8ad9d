/**
 * `/stats/{domain}`: the statistics page (docs/ARCHITECTURE.md, The HTTP contract). Public websites are open to anyone;
 * private ones only to their owner (everyone else gets the same 404 as for a missing site,
 * and no figure leaks); password-protected ones ask for the password once and then trust a
 * per-site cookie signed with the server secret over the site's password hash, so changing
 * the password revokes every such cookie. All state is in the URL, so views can be shared.
 */
import { eq } from 'drizzle-orm';
import { type Context, Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { FC } from 'hono/jsx';
import { verifyPassword } from '../accounts/password.ts';
import { consumeStatsPasswordAttempt, statsPasswordSucceeded } from '../accounts/throttle.ts';
import { createDb, type Database } from '../db/client.ts';
import { websites } from '../db/schema.ts';
import type { AppEnv } from '../env.ts';
import { flushBeforeReading, websiteLog } from '../event-log/client.ts';
import { timingSafeEqual } from '../lib/crypto.ts';
import { ApiError } from '../lib/errors.ts';
import { clientAddressKey } from '../lib/ip.ts';
import { hmacHex, serverSecret } from '../lib/secret.ts';
import { STAT_NAMES, type StatName } from '../stats/names.ts';
import {
  type ChartMetric,
  chartMetricsFor,
  formatFigure,
  formatNumber,
  MAX_RANGE_DAYS,
  RANGES,
  type Range,
  type RangeName,
  type RequestedRange,
  resolveRange,
  type SeriesPoint,
  SHOWN_FIGURES,
  series,
  summary,
} from '../stats/overview.ts';
import { queryStats } from '../stats/queries.ts';
import { normalizeDomain } from '../websites/domain.ts';
import { Field, render } from './layout.tsx';

type Site = typeof websites.$inferSelect;

/** The panels of the page, in order, with their titles. */
const PANELS: [StatName, string][] = [
  ['page', 'Pages'],
  ['landing_page', 'Landing pages'],
  ['referrer', 'Referrers'],
  ['campaign', 'Campaigns'],
  ['country', 'Countries'],
  ['city', 'Cities'],
  ['continent', 'Continents'],
  ['language', 'Languages'],
  ['browser', 'Browsers'],
  ['os', 'Operating systems'],
  ['device', 'Devices'],
  ['resolution', 'Screen resolutions'],
  ['event', 'Events'],
  ['exit_page', 'Exit pages'],
];
const TITLES = new Map<string, string>([
  ...PANELS,
  ['pageviews', 'Page views'],
  ['pageviews_hours', 'Page views by hour'],
  ['visitors', 'Visitors'],
  ['visitors_hours', 'Visitors by hour'],
  ['visits', 'Visits'],
  ['visits_hours', 'Visits by hour'],
  ['bounces', 'Bounces'],
  ['visit_duration', 'Visit duration (seconds)'],
]);
const RANGE_LABELS: Record<RangeName, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  this_month: 'This month',
  last_month: 'Last month',
  custom: 'Custom',
};

const cookieName = (site: Site) => `sl_site_${site.id}`;

async function siteToken(db: Database, site: Site): Promise<string> {
  return hmacHex(
    await serverSecret(db, 'stats-cookie'),
    `${site.id}\u0000${site.passwordHash ?? ''}`,
  );
}

type Access = 'granted' | 'hidden' | 'password';

async function accessTo(c: Context<AppEnv>, db: Database, site: Site): Promise<Access> {
  if (site.privacy === 0 || c.get('owner')?.id === site.ownerId) return 'granted';
  if (site.privacy === 2 && site.passwordHash) {
    const cookie = getCookie(c, cookieName(site));
    return cookie && timingSafeEqual(cookie, await siteToken(db, site)) ? 'granted' : 'password';
  }
  return 'hidden';
}

async function findByDomain(db: Database, raw: string): Promise<Site | undefined> {
  const normalized = normalizeDomain(raw);
  if (!normalized.ok) return undefined;
  return db.select().from(websites).where(eq(websites.domain, normalized.domain)).get();
}

/** A display form of a stored value: `US:United States` → `United States`. */
function displayValue(name: string, value: string): string {
  if (name === 'country' || name === 'continent' || name === 'city')
    return value.slice(value.indexOf(':') + 1);
  return value;
}

/** An http(s) link for a value, or null: pages on the site, referrer hosts. Nothing else links. */
function linkFor(name: string, value: string, domain: string): string | null {
  if ((name === 'page' || name === 'landing_page' || name === 'exit_page') && value.startsWith('/'))
    return `https://${domain}${value}`;
  if (name === 'referrer' && /^[a-z0-9.-]+$/i.test(value)) return `https://${value}/`;
  return null;
}

/** CSV cell: quoted when needed; formulas neutralised (a leading `'`) so spreadsheets never run them. */
function csvCell(value: string | number): string {
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function query(range: Range, extra: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams({ range: range.name });
  if (range.name === 'custom') {
    params.set('from', range.from);
    params.set('to', range.to);
  }
  for (const [k, v] of Object.entries(extra))
    if (v !== undefined && v !== '') params.set(k, String(v));
  return `?${params.toString()}`;
}

function change(now: number, before: number): string {
  if (before === 0) return now === 0 ? '±0%' : 'new';
  const pct = Math.round(((now - before) / before) * 100);
  return `${pct > 0 ? '+' : ''}${pct}%`;
}

const METRIC_TITLES: Record<ChartMetric, string> = {
  overview: 'Visitors and page views',
  ...(Object.fromEntries(SHOWN_FIGURES) as Record<Exclude<ChartMetric, 'overview'>, string>),
};

/** What the chart shows: `?chart=`, when it names a metric the range has, else both lines. */
function chartMetric(asked: string | undefined, hourly: boolean): ChartMetric {
  return chartMetricsFor(hourly).find((m) => m === asked) ?? 'overview';
}

const Chart: FC<{
  points: SeriesPoint[];
  hourly: boolean;
  metric: ChartMetric;
  /** The page's address for another metric. */
  hrefFor: (metric: ChartMetric) => string;
}> = ({ points, hourly, metric, hrefFor }) => {
  const width = 800;
  const height = 220;
  const pad = 28;
  const shown: Exclude<ChartMetric, 'overview'>[] =
    metric === 'overview' ? ['visitors', 'pageviews'] : [metric];
  // One line is drawn in the accent colour; with two, visitors on top of page views.
  const colour = (key: string) =>
    key === 'visitors' && shown.length > 1 ? 'visitors' : 'pageviews';
  const drawn = [...shown].reverse();
  const value = (p: SeriesPoint, key: Exclude<ChartMetric, 'overview'>) => p[key];
  const max = Math.max(1, ...points.flatMap((p) => shown.map((key) => value(p, key))));
  const x = (i: number) =>
    pad + (points.length === 1 ? 0 : (i * (width - 2 * pad)) / (points.length - 1));
  const y = (v: number) => height - pad - (v * (height - 2 * pad)) / max;
  const line = (key: Exclude<ChartMetric, 'overview'>) =>
    points.map((p, i) => `${x(i).toFixed(1)},${y(value(p, key)).toFixed(1)}`).join(' ');
  const unit = hourly ? 'hour' : 'day';
  const summary =
    metric === 'overview'
      ? `${hourly ? 'Hourly' : 'Daily'} visitors and page views: ${points.reduce((s, p) => s + p.visitors, 0)} visitors, ${points.reduce((s, p) => s + p.pageviews, 0)} page views in total; the busiest ${unit} had ${max} page views.`
      : `${METRIC_TITLES[metric]} per ${unit}; the highest: ${formatFigure(metric, max)}.`;
  return (
    <figure class="chart">
      <nav class="chart-metrics" aria-label="Chart">
        {chartMetricsFor(hourly).map((m) => (
          <a href={hrefFor(m)} aria-current={m === metric ? 'true' : undefined}>
            {METRIC_TITLES[m]}
          </a>
        ))}
      </nav>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby="chart-title chart-desc">
        <title id="chart-title">{METRIC_TITLES[metric]}</title>
        <desc id="chart-desc">{summary}</desc>
        <line class="axis" x1={pad} y1={height - pad} x2={width - pad} y2={height - pad} />
        <text class="tick" x={pad} y={pad - 10}>
          {metric === 'overview' ? formatNumber(max) : formatFigure(metric, max)}
        </text>
        <text class="tick" x={pad} y={height - 8}>
          {points[0]?.label ?? ''}
        </text>
        <text class="tick end" x={width - pad} y={height - 8}>
          {points.at(-1)?.label ?? ''}
        </text>
        {drawn.map((key) => (
          <polyline class={colour(key)} points={line(key)} />
        ))}
      </svg>
      <figcaption>
        {drawn.map((key) => (
          <>
            <span class={`key ${colour(key)}`}>{METRIC_TITLES[key]}</span>{' '}
          </>
        ))}
      </figcaption>
      <details>
        <summary>Chart data as a table</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">{hourly ? 'Hour' : 'Date'}</th>
              {shown.map((key) => (
                <th scope="col" class="num">
                  {METRIC_TITLES[key]}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr>
                <td>{p.label}</td>
                {shown.map((key) => (
                  <td class="num">{formatFigure(key, value(p, key))}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
};

const ValueCell: FC<{ name: string; value: string; domain: string }> = ({
  name,
  value,
  domain,
}) => {
  const href = linkFor(name, value, domain);
  const text = displayValue(name, value);
  return href ? (
    <a href={href} rel="noopener noreferrer nofollow" target="_blank">
      {text}
    </a>
  ) : (
    text
  );
};

/** The body of a statistic's table: one row per value with its count. */
const ValueRows: FC<{ name: string; rows: { value: string; count: number }[]; domain: string }> = ({
  name,
  rows,
  domain,
}) => (
  <tbody>
    {rows.map((row) => (
      <tr>
        <td>
          <ValueCell name={name} value={row.value} domain={domain} />
        </td>
        <td class="num">{formatNumber(row.count)}</td>
      </tr>
    ))}
  </tbody>
);

/**
 * Range links and the custom range form; `keep` carries the rest of the view (search, sort).
 * Dates in the URL that could not be used are said so, without repeating them.
 */
const RangeNav: FC<{ base: string; range: RequestedRange; keep?: Record<string, string> }> = ({
  base,
  range,
  keep = {},
}) => {
  const kept = Object.entries(keep).filter(([, v]) => v !== '');
  return (
    <>
      {range.invalid ? (
        <p class="notice range-notice" role="alert">
          The dates in this address are not a valid date range (from and to must be dates written
          YYYY-MM-DD, from on or before to, at most {formatNumber(MAX_RANGE_DAYS)} days). Showing
          the last 30 days instead.
        </p>
      ) : null}
      <nav class="ranges" aria-label="Date range">
        {RANGES.filter((r) => r !== 'custom').map((r) => (
          <a
            href={`${base}?${new URLSearchParams([['range', r], ...kept]).toString()}`}
            aria-current={range.name === r ? 'page' : undefined}
          >
            {RANGE_LABELS[r]}
          </a>
        ))}
        <form method="get" action={base} class="custom-range">
          <input type="hidden" name="range" value="custom" />
          {kept.map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          <label>
            From <input type="date" name="from" value={range.from} required />
          </label>
          <label>
            To <input type="date" name="to" value={range.to} required />
          </label>
          <button type="submit" class="secondary">
            Show
          </button>
        </form>
      </nav>
    </>
  );
};

export function createStatsPages() {
  const pages = new Hono<AppEnv>();

  // A missing website, a private one and an unknown statistic look exactly alike.
  const notFound = () => new ApiError(404, 'There are no statistics here.');

  const passwordPage = (
    c: Context<AppEnv>,
    site: Site,
    error?: string,
    status: 200 | 422 | 429 = 200,
  ) =>
    render(
      c,
      {
        title: site.domain,
        children: (
          <>
            <h1>{site.domain}</h1>
            <form
              method="post"
              action={`/stats/${site.domain}/password`}
              class="stack card"
              novalidate
            >
              <p>The statistics of this website are protected by a password.</p>
              <Field label="Password" name="password" error={error ? [error] : undefined}>
                <input
                  id="password"
                  name="password"
                  type="password"
                  autocomplete="current-password"
                  required
                />
              </Field>
              <div class="actions">
                <button type="submit">Show statistics</button>
              </div>
            </form>
          </>
        ),
      },
      status,
    );

  /** Resolves the site and the visitor's access; answers 404 or the password form itself. */
  async function guarded(c: Context<AppEnv>): Promise<{ site: Site; db: Database } | Response> {
    const db = createDb(c.env.DB);
    const site = await findByDomain(db, c.req.param('domain') ?? '');
    if (!site) throw notFound();
    const access = await accessTo(c, db, site);
    if (access === 'hidden') throw notFound();
    if (access === 'password') return passwordPage(c, site);
    await flushBeforeReading(c.env, site.id);
    return { site, db };
  }

  pages.post('/:domain/password', async (c) => {
    const db = createDb(c.env.DB);
    const site = await findByDomain(db, c.req.param('domain'));
    if (site?.privacy !== 2 || !site.passwordHash) throw notFound();
    // Counted before the password is hashed: a refused guess costs no PBKDF2.
    const address = clientAddressKey(c);
    const wait = await consumeStatsPasswordAttempt(db, site.id, address);
    if (wait > 0) {
      c.header('Retry-After', String(wait));
      return passwordPage(c, site, 'Too many attempts. Try again later.', 429);
    }
    const password = (await c.req.parseBody()).password;
    if (typeof password !== 'string' || !(await verifyPassword(password, site.passwordHash))) {
      return passwordPage(c, site, 'The password is incorrect.', 422);
    }
    await statsPasswordSucceeded(db, site.id, address);
    setCookie(c, cookieName(site), await siteToken(db, site), {
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
      path: `/stats/${site.domain}`,
      maxAge: 30 * 24 * 3600,
    });
    return c.redirect(`/stats/${site.domain}`, 303);
  });

  pages.get('/:domain', async (c) => {
    const found = await guarded(c);
    if (found instanceof Response) return found;
    const { site, db } = found;
    const range = resolveRange(c.req.query(), site.timezone);
    const hourly = range.from === range.to;
    const metric = chartMetric(c.req.query('chart'), hourly);
    const [sums, points, live, panels] = await Promise.all([
      summary(db, site.id, range),
      series(db, site.id, range),
      websiteLog(c.env, site.id).realtime(Date.now()),
      Promise.all(
        PANELS.map(([name]) =>
          queryStats(db, {
            websiteId: site.id,
            name,
            from: range.from,
            to: range.to,
            sortBy: 'count',
            sort: 'desc',
            limit: 10,
            offset: 0,
          }),
        ),
      ),
    ]);
    const base = `/stats/${site.domain}`;
    return render(c, {
      title: `${site.domain} statistics`,
      children: (
        <>
          <div class="actions">
            <h1>{site.domain}</h1>
            <p class="live" role="status">
              <strong>{formatNumber(live)}</strong> {live === 1 ? 'visitor' : 'visitors'} in the
              last 5 minutes
            </p>
          </div>
          <RangeNav base={base} range={range} />
          <p class="hint">
            {range.from === range.to ? range.from : `${range.from} – ${range.to}`} ({site.timezone})
          </p>
          <section class="totals" aria-label="Totals">
            {SHOWN_FIGURES.map(([key, title]) => (
              <div class="card">
                <h2>{title}</h2>
                <p class="big">{formatFigure(key, sums.data[key])}</p>
                <p class="hint">{change(sums.data[key], sums.previous[key])} vs previous period</p>
              </div>
            ))}
          </section>
          <Chart
            points={points}
            hourly={hourly}
            metric={metric}
            hrefFor={(m) => `${base}${query(range, { chart: m === 'overview' ? undefined : m })}`}
          />
          <div class="panels">
            {PANELS.map(([name, title], i) => {
              const data = panels[i];
              return (
                <section class="card panel" aria-labelledby={`panel-${name}`}>
                  <h2 id={`panel-${name}`}>{title}</h2>
                  {data && data.rows.length > 0 ? (
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">{title}</th>
                          <th scope="col" class="num">
                            Count
                          </th>
                        </tr>
                      </thead>
                      <ValueRows name={name} rows={data.rows} domain={site.domain} />
                    </table>
                  ) : (
                    <p class="hint">No data for this range.</p>
                  )}
                  <p class="actions">
                    <a href={`${base}/${name}${query(range)}`}>
                      Show all {data?.total ? `(${formatNumber(data.total)})` : ''}
                    </a>
                    <a href={`${base}/${name}.csv${query(range)}`}>CSV</a>
                  </p>
                </section>
              );
            })}
          </div>
        </>
      ),
    });
  });

  pages.get('/:domain/:name{[a-z_]+\\.csv}', async (c) => {
    const found = await guarded(c);
    if (found instanceof Response) return found;
    const { site, db } = found;
    const name = c.req.param('name').replace(/\.csv$/, '');
    if (!(STAT_NAMES as readonly string[]).includes(name)) throw notFound();
    const range = resolveRange(c.req.query(), site.timezone);
    const { rows } = await queryStats(db, {
      websiteId: site.id,
      name: name as StatName,
      from: range.from,
      to: range.to,
      search: c.req.query('search') || undefined,
      sortBy: 'count',
      sort: 'desc',
      limit: 100_000,
      offset: 0,
    });
    const csv = ['value,count', ...rows.map((r) => `${csvCell(r.value)},${csvCell(r.count)}`)].join(
      '\r\n',
    );
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header(
      'Content-Disposition',
      `attachment; filename="${site.domain}-${name}-${range.from}-${range.to}.csv"`,
    );
    return c.body(`${csv}\r\n`);
  });

  pages.get('/:domain/:name{[a-z_]+}', async (c) => {
    const found = await guarded(c);
    if (found instanceof Response) return found;
    const { site, db } = found;
    const name = c.req.param('name');
    if (!(STAT_NAMES as readonly string[]).includes(name)) throw notFound();
    const range = resolveRange(c.req.query(), site.timezone);
    const search = (c.req.query('search') ?? '').slice(0, 255);
    const sortBy = c.req.query('sort_by') === 'value' ? 'value' : 'count';
    const sort = c.req.query('sort') === 'asc' ? 'asc' : 'desc';
    const page = Math.max(
      1,
      Math.min(1_000_000, Number.parseInt(c.req.query('page') ?? '1', 10) || 1),
    );
    const perPage = 25;
    const data = await queryStats(db, {
      websiteId: site.id,
      name: name as StatName,
      from: range.from,
      to: range.to,
      search: search || undefined,
      sortBy,
      sort,
      limit: perPage,
      offset: (page - 1) * perPage,
    });
    const lastPage = Math.max(1, Math.ceil(data.total / perPage));
    const base = `/stats/${site.domain}/${name}`;
    const title = TITLES.get(name) ?? name;
    const link = (extra: Record<string, string | number | undefined>) =>
      `${base}${query(range, { search, sort_by: sortBy, sort, ...extra })}`;
    const sortLink = (by: 'value' | 'count') =>
      link({
        sort_by: by,
        sort: sortBy === by && sort === 'desc' ? 'asc' : 'desc',
        page: undefined,
      });
    return render(c, {
      title: `${title} · ${site.domain}`,
      children: (
        <>
          <p>
            <a href={`/stats/${site.domain}${query(range)}`}>← {site.domain}</a>
          </p>
          <h1>{title}</h1>
          <RangeNav base={base} range={range} keep={{ search, sort_by: sortBy, sort }} />
          <form method="get" action={base} class="actions search">
            <input type="hidden" name="range" value={range.name} />
            {range.name === 'custom' ? (
              <>
                <input type="hidden" name="from" value={range.from} />
                <input type="hidden" name="to" value={range.to} />
              </>
            ) : null}
            <label for="search" class="sr-only">
              Search {title.toLowerCase()}
            </label>
            <input id="search" name="search" type="search" value={search} placeholder="Search" />
            <button type="submit" class="secondary">
              Search
            </button>
            <a href={`/stats/${site.domain}/${name}.csv${query(range, { search })}`}>Export CSV</a>
          </form>
          <table>
            <thead>
              <tr>
                <th
                  scope="col"
                  aria-sort={
                    sortBy === 'value' ? (sort === 'asc' ? 'ascending' : 'descending') : undefined
                  }
                >
                  <a href={sortLink('value')}>{title}</a>
                </th>
                <th
                  scope="col"
                  class="num"
                  aria-sort={
                    sortBy === 'count' ? (sort === 'asc' ? 'ascending' : 'descending') : undefined
                  }
                >
                  <a href={sortLink('count')}>Count</a>
                </th>
              </tr>
            </thead>
            <ValueRows name={name} rows={data.rows} domain={site.domain} />
          </table>
          {data.rows.length === 0 ? <p class="hint">Nothing found.</p> : null}
          <nav class="actions" aria-label="Pages">
            {page > 1 ? <a href={link({ page: page - 1 })}>← Previous</a> : null}
            <span>
              Page {page} of {lastPage} ({formatNumber(data.total)} values)
            </span>
            {page < lastPage ? <a href={link({ page: page + 1 })}>Next →</a> : null}
          </nav>
        </>
      ),
    });
  });

  return pages;
}
