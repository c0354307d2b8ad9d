/**
 * The statistics page's numbers for one view, read in one call: the overview (./overview.ts),
 * the custom properties the address asks for (./properties.ts) and the imports within the
 * range. They are read together, from one source, so that the website's log is flushed once
 * and the questions asked in the same turn share one read of it (../run/reader.ts).
 */
import type { StatName } from '../../counting/statistics.ts';
import type { Database } from '../../db/client.ts';
import type { Env } from '../../env.ts';
import { listGoals } from '../../goals/goals.ts';
import type { ImportRecord } from '../../imports/store.ts';
import type { SeriesUnit } from '../../lib/time/dates.ts';
import type { Filter, LogListing } from '../parse/v1.ts';
import { isUnavailable, type Unavailable, websiteNumbers } from './numbers.ts';
import { type Overview, overviewOf } from './overview.ts';

/** What the page asks of a range under its filters. */
export type PageQuestion = {
  range: { from: string; to: string };
  filters: Filter[];
  /**
   * The panels' statistics and listings shown, as they depend on whether the website has
   * goals (its Goals tab then comes first); `event`: its custom events by name.
   */
  panels: (hasGoals: boolean) => readonly (StatName | LogListing)[];
  /** The period compared with, drawn on the chart when `compare`. */
  compare: boolean;
  compared: { from: string; to: string; between?: [number, number] };
  /** The chart's unit. */
  unit: SeriesUnit;
  /** The custom property named by the address (`asked`), or the list of them (`listed`). */
  property: { asked: string; listed: boolean };
  /**
   * A change made in place: what can follow a moment later is left out (`Overview.later`;
   * docs/ARCHITECTURE.md, "The statistics page").
   */
  later?: boolean;
  /**
   * The panels alone (a tab loaded in place: its rows, the figures their shares are of, and
   * when comparing their changes): no chart, no realtime, no goals, no properties.
   */
  panelsOnly?: boolean;
};

/**
 * The custom properties shown: the names the range's hits carry (null: not asked for) and the
 * first values of the one named or, without one, of the first.
 */
type PropertyView = {
  name: string;
  names: string[] | null;
  /** Its values by visitors, and the visitors of the hits that carry it (their shares' base). */
  rows: { value: string; count: number }[] | null;
  carriers?: number;
};

export type StatisticsPage = {
  overview: Overview | Unavailable;
  /** The panels read (`PageQuestion.panels`), and whether the website has goals. */
  asked: readonly (StatName | LogListing)[];
  hasGoals: boolean;
  property: PropertyView;
  /** The imports whose dates the range touches. */
  imported: ImportRecord[];
};

/** Every number of the statistics page's view, read together. */
export async function statisticsPageOf(
  env: Env,
  db: Database,
  websiteId: number,
  q: PageQuestion,
): Promise<StatisticsPage> {
  const goals = await listGoals(db, websiteId);
  const website = websiteNumbers(env, db, websiteId, q.filters, goals);
  const { source } = website;
  const { range, filters } = q;
  const property = async (): Promise<PropertyView> => {
    if (!q.property.listed) return { name: '', names: null, rows: null };
    const found = await website.propertyNames(range, filters);
    const names = isUnavailable(found) ? [] : found.map((n) => n.name);
    const name = q.property.asked || names[0] || '';
    if (name === '') return { name, names, rows: null };
    const [page, carriers] = await Promise.all([
      source.page({
        name: 'property',
        property: name,
        from: range.from,
        to: range.to,
        sortBy: 'count',
        sort: 'desc',
        limit: 10,
        offset: 0,
        metrics: ['visitors'],
      }),
      source.carrying(name, range),
    ]);
    return {
      name,
      names,
      rows: isUnavailable(page) ? [] : page.rows,
      ...(isUnavailable(carriers) ? {} : { carriers }),
    };
  };
  // Imported history is in the roll-ups alone: unfiltered, the panels count what they hold.
  const imported = await website.importsWithin(range);
  const asked = q.panels(goals.length > 0);
  const [overview, shown] = await Promise.all([
    overviewOf(
      website,
      range,
      filters,
      asked.filter((name) => name !== 'event'),
      {
        compare: q.compare,
        compared: q.compared,
        unit: q.unit,
        imported: imported.length > 0 && filters.length === 0,
        events: asked.includes('event'),
        later: q.later === true,
        panelsOnly: q.panelsOnly === true,
      },
    ),
    q.panelsOnly ? { name: '', names: null, rows: null } : property(),
  ]);
  return { overview, asked, hasGoals: goals.length > 0, property: shown, imported };
}
