/**
 * The overview's panels (../overview-page.tsx), grouped as people read them — Sources, Pages,
 * Locations, Devices, Goals and events — each group a card with a tab per statistic (the
 * custom properties' card: ./properties-card.tsx). Every row has a bar behind it as long as
 * its count and its share of the range's figure (./panel-rows.tsx, `ValueRows`).
 *
 * Tabs work without JavaScript: each is a link to the overview with that tab chosen (the
 * group's parameter, e.g. `sources=campaign`), so the address holds the choice like the rest
 * of the view. With JavaScript, the page's script switches tabs in place (every tab's table
 * is in the page already, but a log's listing not shown: its tab is then its link) and writes
 * the same address into the history; the arrow keys move between a group's tabs.
 */
import type { FC } from 'hono/jsx';
import {
  type FilterDimension,
  isLogListing,
  V1_FILTER_LABELS,
  V1_STATISTICS,
} from '../../../query/parse/v1.ts';
import { metricTitle, pageMetricOf, shareBaseOf } from '../../../query/present/listed-metrics.ts';
import type { Listing } from '../../../query/present/numbers.ts';
import type { Overview } from '../../../query/present/overview.ts';
import { type Extra, type View, viewHref } from '../view.tsx';
import { EventsTab } from './events-tab.tsx';
import { GoalsTab } from './goals-tab.tsx';
import {
  ChangeHeader,
  EngagementHeaders,
  ShareHeader,
  TabActions,
  ValueRows,
} from './panel-rows.tsx';

/** A tab of a group: a statistic (or the goals) and its label. */
type Tab = readonly [name: FilterDimension | 'goal', label: string];

type Group = {
  /** The group's id, its element's and the address's parameter naming its chosen tab. */
  id: string;
  title: string;
  tabs: readonly Tab[];
};

/** A statistic's tab, labelled as API v1's vocabulary has it. */
const tab = (name: FilterDimension): Tab => [name, V1_FILTER_LABELS[name].tab];

/** The overview's groups, in the order they are shown; a group's first tab is its default. */
const GROUPS: readonly Group[] = [
  {
    id: 'sources',
    title: 'Sources',
    tabs: [
      tab('referrer'),
      tab('channel'),
      tab('source'),
      tab('utm_medium'),
      tab('utm_source'),
      tab('campaign'),
      tab('utm_term'),
      tab('utm_content'),
    ],
  },
  {
    id: 'pages',
    title: 'Pages',
    tabs: [tab('page'), tab('landing_page'), tab('exit_page')],
  },
  {
    id: 'locations',
    title: 'Locations',
    tabs: [tab('country'), tab('city'), tab('continent')],
  },
  {
    id: 'devices',
    title: 'Devices',
    tabs: [tab('browser'), tab('os'), tab('device'), tab('resolution'), tab('language')],
  },
  {
    id: 'events',
    title: 'Goals and events',
    tabs: [['goal', 'Goals'], tab('event')],
  },
];

/** Every statistic the overview's tabs show, in the order of the groups. */
const PANEL_NAMES: readonly FilterDimension[] = GROUPS.flatMap((g) =>
  g.tabs.flatMap(([name]) => (name === 'goal' ? [] : [name])),
);

/** A group's tabs on this overview: the goals only when the website has goals. */
const tabsOf = (group: Group, hasGoals: boolean) =>
  group.tabs.filter(([name]) => name !== 'goal' || hasGoals);

/** The tab a group shows: the one the address chooses (`sources=campaign`), else its first. */
const chosenTab = (group: Group, asked: string | undefined, hasGoals: boolean) => {
  const tabs = tabsOf(group, hasGoals);
  return (tabs.find(([name]) => name === asked) ?? tabs[0])?.[0];
};

/** Whether the roll-ups hold a statistic by visitors (countries, browsers, …: no log read). */
const rolledUpByVisitors = (name: FilterDimension) =>
  !isLogListing(name) && V1_STATISTICS[name].metric === 'visitors';

/**
 * The panels an overview asks for: the tab each group shows, and, unfiltered, the hidden tabs
 * the roll-ups hold by visitors (switched to in place). Every other tab's visitors are a pass
 * over the log's rows of the range — under filters, every tab's — made when it is chosen:
 * until then it is a link that loads the page with it chosen (`data-load`), in place. `event`:
 * the custom events by name.
 */
export function panelsAsked(
  query: (name: string) => string | undefined,
  hasGoals: boolean,
  filtered: boolean,
): FilterDimension[] {
  const shown = GROUPS.map((group) => chosenTab(group, query(group.id), hasGoals));
  return PANEL_NAMES.filter(
    (name) => shown.includes(name) || (!filtered && rolledUpByVisitors(name)),
  );
}

/**
 * The tab the address chooses in each group (`sources=campaign`), as parameters for the
 * overview's links to keep: a group's default tab is left out.
 */
export function chosenTabs(query: (name: string) => string | undefined, hasGoals: boolean): Extra {
  const chosen: Extra = {};
  for (const group of GROUPS) {
    const shown = chosenTab(group, query(group.id), hasGoals);
    if (shown !== tabsOf(group, hasGoals)[0]?.[0]) chosen[group.id] = shown;
  }
  return chosen;
}

type PanelsProps = {
  overview: Overview;
  domain: string;
  view: View;
  /** The overview's parameters besides the view (chart, comparison, chosen tabs). */
  keep: Extra;
};

/**
 * A statistic's tab: its top values by visitors (or, over imported history, by its own
 * metric: `pageMetricOf`), each with its share of the range's figure of that metric — or,
 * when comparing, its change — and a page's engagement; links to its full view and CSV.
 */
const StatisticTab: FC<
  PanelsProps & {
    name: FilterDimension;
    label: string;
    data?: Listing | undefined;
    before?: { counts: Map<string, number>; complete: boolean } | undefined;
  }
> = ({ overview, domain, view, keep, name, label, data, before: read }) => {
  const metric = pageMetricOf(name, overview.imported);
  // In a change made in place, the changes and the engagement follow (`Overview.later`).
  const before = overview.later?.compared ? 'later' : read;
  return (
    <>
      {data && data.rows.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">{label}</th>
              <th scope="col" class="num">
                {metricTitle(metric)}
              </th>
              {before ? <ChangeHeader /> : <ShareHeader />}
              {name === 'page' ? <EngagementHeaders /> : null}
            </tr>
          </thead>
          <ValueRows
            name={name}
            rows={data.rows}
            domain={domain}
            view={view}
            keep={keep}
            base={before ? null : (shareBaseOf(name, metric)?.(overview.summary.data) ?? null)}
            before={before}
            {...(name === 'page'
              ? { engagement: overview.later ? ('later' as const) : overview.engagement }
              : {})}
          />
        </table>
      ) : data === undefined && overview.logFrom ? (
        <p class="hint">
          The event log holds these from {overview.logFrom}: choose a range that starts then or
          later.
        </p>
      ) : (
        <p class="hint">No data for this range.</p>
      )}
      <TabActions name={name} view={view} total={data?.total} />
    </>
  );
};

/**
 * A tab's rows while they are read (`Overview.later`: a filtered view changed in place shows
 * its figures and chart first): a neutral mark, as tall as a tab of rows, so that nothing
 * below jumps; the page's script asks for the whole view and morphs the rows in.
 */
const RowsLater: FC<{ label: string }> = ({ label }) => (
  <p class="hint rows-later" data-later="">
    <span aria-hidden="true">…</span>
    <span class="sr-only">{label} being read</span>
  </p>
);

/**
 * A tab's panel: its rows, a mark while they follow, or — not read — a link that loads them
 * (`data-load`: the page's script asks for the panel alone, `panelPart`).
 */
const TabPanel: FC<
  PanelsProps & {
    name: FilterDimension | 'goal';
    label: string;
    tabbed: boolean;
    shown: boolean;
    href: string;
    data: Map<string, Listing | undefined>;
    asked: readonly FilterDimension[];
  }
> = (props) => {
  const { name, label, overview, view, keep, asked, data } = props;
  const unread = name !== 'goal' && !asked.includes(name);
  return (
    <div
      id={`panel-${name}`}
      // A group of one statistic has no tabs: its panel is the card's content.
      {...(props.tabbed ? { role: 'tabpanel', 'aria-labelledby': `tab-${name}` } : {})}
      hidden={!props.shown}
      {...(unread ? { 'data-load': '' } : {})}
    >
      {unread ? (
        <p class="hint">
          <a href={props.href}>Show {label}</a>
        </p>
      ) : name !== 'goal' &&
        (overview.later?.filtered || (name === 'event' && overview.later?.events)) ? (
        <RowsLater label={label} />
      ) : name === 'goal' ? (
        <GoalsTab goals={overview.goals} view={view} keep={keep} />
      ) : name === 'event' ? (
        <EventsTab events={overview.events} view={view} keep={keep} />
      ) : (
        <StatisticTab
          {...props}
          name={name}
          data={data.get(name)}
          before={overview.previousPanels?.[counted(asked).indexOf(name)]}
        />
      )}
    </div>
  );
};

/**
 * A group's card: its title, a tab per statistic (links that choose it; the page's script
 * switches in place) and a tab panel each, the chosen one shown.
 */
const GroupCard: FC<
  PanelsProps & {
    group: Group;
    data: Map<string, Listing | undefined>;
    asked: readonly FilterDimension[];
    hasGoals: boolean;
  }
> = (props) => {
  const { group, view, keep, hasGoals } = props;
  const tabs = tabsOf(group, hasGoals);
  const chosen = (keep[group.id] as string | undefined) ?? tabs[0]?.[0];
  const hrefOf = (name: string) =>
    `${viewHref(view.base, view, { ...keep, [group.id]: name === tabs[0]?.[0] ? undefined : name })}#${group.id}`;
  return (
    <section class="card panel" id={group.id} aria-labelledby={`group-${group.id}`}>
      <div class="panel-head">
        <h2 id={`group-${group.id}`}>{group.title}</h2>
        {tabs.length > 1 ? (
          <div class="tabs" role="tablist" aria-labelledby={`group-${group.id}`}>
            {tabs.map(([name, label]) => (
              <a
                href={hrefOf(name)}
                // The page's script shows a tab, or asks for its panel alone: never the whole
                // view (without the script, the link).
                hx-boost="false"
                role="tab"
                id={`tab-${name}`}
                aria-controls={`panel-${name}`}
                aria-selected={name === chosen ? 'true' : 'false'}
              >
                {label}
              </a>
            ))}
          </div>
        ) : null}
      </div>
      {tabs.map(([name, label]) => (
        <TabPanel
          {...props}
          name={name}
          label={label}
          tabbed={tabs.length > 1}
          shown={name === chosen}
          href={hrefOf(name)}
        />
      ))}
    </section>
  );
};

/** The panels asked whose rows the overview reads as listings (the events it reads by name). */
const counted = (asked: readonly FilterDimension[]) => asked.filter((name) => name !== 'event');

/**
 * The overview's groups of panels; `overview.panels` are the `asked` panels' top values
 * (`counted`: the events aside).
 */
export const PanelGroups: FC<
  PanelsProps & { asked: readonly FilterDimension[]; hasGoals: boolean }
> = (props) => {
  const data = new Map(counted(props.asked).map((name, i) => [name, props.overview.panels[i]]));
  return (
    <>
      {GROUPS.map((group) => (
        <GroupCard {...props} group={group} data={data} />
      ))}
    </>
  );
};

/**
 * The tab a request asks for alone (`Sightline-Part: panel-<name>`, sent by the page's script
 * when it loads a tab in place), or null: a statistic or listing of the panels.
 */
export function panelPart(header: string | undefined): FilterDimension | null {
  const name = header?.startsWith('panel-') ? header.slice('panel-'.length) : '';
  return PANEL_NAMES.find((n) => n === name && n !== 'event') ?? null;
}

/** One tab's panel alone, its rows read (the answer to `panelPart`), shown. */
export const PanelAlone: FC<PanelsProps & { name: FilterDimension; hasGoals: boolean }> = (
  props,
) => {
  const { name, hasGoals } = props;
  const group = GROUPS.find((g) => tabsOf(g, hasGoals).some(([n]) => n === name));
  const label = group?.tabs.find(([n]) => n === name)?.[1] ?? name;
  return (
    <TabPanel
      {...props}
      label={label}
      tabbed={(group ? tabsOf(group, hasGoals).length : 1) > 1}
      shown={true}
      href=""
      data={new Map([[name, props.overview.panels[0]]])}
      asked={[name]}
    />
  );
};
