/**
 * The Filtered traffic settings page (`/websites/{id}/filtered`): what the website's pipeline
 * and event log kept out of its statistics over the last 30 days of its time zone — per day
 * in a chart (./filtered-chart.tsx), by reason, and the bots by name and kind — as the API's
 * `GET /api/v1/websites/{id}/filtered` answers it (src/filtered-traffic/filtered-traffic.ts).
 */
import type { FC } from 'hono/jsx';
import type { WebsiteRow } from '../../db/schema.ts';
import type { Env } from '../../env.ts';
import {
  type FilteredTraffic,
  filteredTrafficOf,
} from '../../filtered-traffic/filtered-traffic.ts';
import { addDays, localDateHour } from '../../lib/time/dates.ts';
import { formatNumber, rangeLabel } from '../../query/present/readable.ts';
import { SettingsSection } from '../settings/section.tsx';
import { FilteredChart } from './filtered-chart.tsx';

/** The days the page shows, up to today in the website's time zone. */
const DAYS = 30;

/** What each reason means, as the page says it. */
const REASONS: Record<string, string> = {
  host_mismatch: 'A page not on the website’s domain',
  bot: 'A bot, crawler or automated browser',
  datacenter: 'From a hosting or cloud network',
  excluded_ip: 'From an excluded IP address',
  dnt: 'Do Not Track or Global Privacy Control',
  too_fast: 'A visitor faster than a person (over 30 page views a minute)',
  rate_limited: 'Over the rate limit of its address',
};

/** What a crawler does, as the page says it (src/ingest/steps/crawlers.ts's kinds). */
const KINDS: Record<string, string> = {
  ai_training: 'AI training',
  ai_search: 'AI search',
  ai_agent: 'AI agent',
  search_engine: 'Search engine',
  seo: 'SEO',
  monitor: 'Monitor',
  other: 'Other',
};

/** The website's filtered traffic of the last 30 days, for its page. */
export async function filteredTrafficPage(env: Env, site: WebsiteRow): Promise<FilteredTraffic> {
  const today = localDateHour(Date.now(), site.timezone).date;
  return filteredTrafficOf(env, site.id, { from: addDays(today, 1 - DAYS), to: today });
}

export const FilteredSection: FC<{ site: WebsiteRow; traffic: FilteredTraffic }> = ({
  site,
  traffic,
}) => {
  const range = rangeLabel({ from: traffic.from, to: traffic.to });
  return (
    <>
      <SettingsSection
        id="filtered"
        title="Filtered traffic"
        hint={`The hits kept out of the statistics of ${site.domain} over ${range}: ${formatNumber(traffic.total)} in all. Each is counted by day and reason — never stored — and a bot by its name and kind when it says it.`}
        table={{
          head: ['Reason', { label: 'Hits', num: true }],
          rows: traffic.reasons.map((r) => ({
            cells: [REASONS[r.reason] ?? r.reason, formatNumber(r.hits)],
          })),
        }}
        empty={`No hit was kept out over ${range}.`}
      >
        {traffic.total > 0 ? <FilteredChart days={traffic.days} rangeText={range} /> : null}
      </SettingsSection>
      <SettingsSection
        id="filtered-bots"
        title="Bots"
        hint={
          site.excludeBots === 1
            ? 'The bots kept out, by the name their User-Agent gives and what they do.'
            : 'Bots are counted as visitors: the website’s settings do not exclude them.'
        }
        table={{
          head: ['Bot', 'Kind', { label: 'Hits', num: true }],
          rows: traffic.bots.map((b) => ({
            cells: [
              b.name ?? 'Unnamed (automation, an empty User-Agent, a prefetch)',
              b.kind ? (KINDS[b.kind] ?? b.kind) : '—',
              formatNumber(b.hits),
            ],
          })),
        }}
        empty="No bot was kept out."
      />
    </>
  );
};
