/**
 * The statistics pages' one date control (`RangeNav`): the range and its dates, the presets
 * with a key each, a custom range, the comparisons on the overview, and the keyboard
 * shortcuts' dialog (`?`).
 */
import type { FC } from 'hono/jsx';
import {
  MAX_DATE,
  MAX_RANGE_DAYS,
  MIN_DATE,
  RANGES,
  type RangeName,
} from '../../lib/time/dates.ts';
import { comparedLabel, formatNumber, rangeLabel } from '../../query/present/readable.ts';
import { type Extra, HiddenFields, type View, viewParams } from './view.tsx';

const RANGE_LABELS: Record<RangeName, string> = {
  realtime: 'Realtime',
  today: 'Today',
  yesterday: 'Yesterday',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  this_month: 'This month',
  last_month: 'Last month',
  '12mo': 'Last 12 months',
  this_year: 'This year',
  all: 'All time',
  custom: 'Custom',
};

/**
 * The keys that choose a range (Plausible's where it has one), and `c`, which goes to the custom
 * dates; `?` lists them. They work when JavaScript runs (the page's script reads `data-key`).
 */
const RANGE_KEYS: Record<RangeName, string> = {
  realtime: 'r',
  today: 'd',
  yesterday: 'e',
  '7d': 'w',
  '30d': 't',
  this_month: 'm',
  last_month: 'l',
  '12mo': 'n',
  this_year: 'y',
  all: 'a',
  custom: 'c',
};

/**
 * The list of the keyboard shortcuts, opened with `?` (a dialog; nothing without JavaScript);
 * `X` where there is a chart to compare.
 */
const ShortcutsDialog: FC<{ chart: boolean }> = ({ chart }) => (
  <dialog id="shortcuts" aria-labelledby="shortcuts-title">
    <h2 id="shortcuts-title">Keyboard shortcuts</h2>
    <dl>
      {RANGES.map((r) => (
        <>
          <dt>
            <kbd>{RANGE_KEYS[r].toUpperCase()}</kbd>
          </dt>
          <dd>{r === 'custom' ? 'Choose dates' : RANGE_LABELS[r]}</dd>
        </>
      ))}
      {chart ? (
        <>
          <dt>
            <kbd>X</kbd>
          </dt>
          <dd>Compare with the previous period (on or off)</dd>
        </>
      ) : null}
      <dt>
        <kbd>?</kbd>
      </dt>
      <dd>This list</dd>
    </dl>
    <form method="dialog">
      <button type="submit">Close</button>
    </form>
  </dialog>
);

/**
 * What the date control compares with: the comparison shown (null: none), and the page's
 * address with another comparison (`{ compare: 'year' }`) or none (false).
 */
export type DateComparison = {
  shown: { mode: string; from: string; to: string; between?: [number, number] } | null;
  hrefFor: (comparison: { compare: string } | false) => string;
};

/**
 * The page's one date control: a button that says the range and its dates (and what it is
 * compared with), opening the presets (a key each), a custom range and, on the overview, the
 * comparisons — the previous period, a year before, dates of one's own, or none. A disclosure
 * that works without JavaScript; with it, the keys choose a range however the control stands.
 */
export const RangeNav: FC<{
  path: string;
  view: View;
  keep?: Extra;
  chart?: boolean;
  comparison?: DateComparison | undefined;
}> = ({ path, view, keep = {}, chart = false, comparison }) => {
  const kept = viewParams(view, keep).filter(([k]) => k !== 'range' && k !== 'from' && k !== 'to');
  const { range } = view;
  const shown = comparison?.shown ?? null;
  return (
    <>
      {range.invalid ? (
        <p class="notice range-notice" role="alert">
          The dates in this address are not a valid date range (from and to must be dates written
          YYYY-MM-DD, from {MIN_DATE} to {MAX_DATE}, from on or before to, at most{' '}
          {formatNumber(MAX_RANGE_DAYS)} days). Showing the last 30 days instead.
        </p>
      ) : null}
      <nav class="ranges" aria-label="Date range">
        <details class="date-menu">
          <summary>
            <strong>{RANGE_LABELS[range.name]}</strong>{' '}
            <span class="dates">
              {range.name === 'realtime' ? 'last 30 minutes' : rangeLabel(range)}
            </span>
            {shown ? (
              <span class="dates"> vs {comparedLabel(shown, range.to.slice(0, 4))}</span>
            ) : null}
          </summary>
          <div class="menu">
            {view.timeZone ? <p class="hint zone">Dates and hours in {view.timeZone}</p> : null}
            <ul class="presets">
              {RANGES.filter((r) => r !== 'custom').map((r) => (
                <li>
                  <a
                    href={`${path}?${new URLSearchParams([['range', r], ...kept]).toString()}`}
                    aria-current={range.name === r ? 'page' : undefined}
                    data-key={RANGE_KEYS[r]}
                    aria-keyshortcuts={RANGE_KEYS[r].toUpperCase()}
                  >
                    {RANGE_LABELS[r]} <kbd>{RANGE_KEYS[r].toUpperCase()}</kbd>
                  </a>
                </li>
              ))}
            </ul>
            <form method="get" action={path} class="custom-range" id="custom-range">
              <input type="hidden" name="range" value="custom" />
              <HiddenFields params={kept} />
              <label>
                From{' '}
                <input
                  type="date"
                  name="from"
                  value={range.from}
                  required
                  data-key={RANGE_KEYS.custom}
                  aria-keyshortcuts={RANGE_KEYS.custom.toUpperCase()}
                />
              </label>
              <label>
                To <input type="date" name="to" value={range.to} required />
              </label>
              <button type="submit" class="secondary">
                Show
              </button>
            </form>
            {comparison ? <CompareChoices path={path} comparison={comparison} kept={kept} /> : null}
          </div>
        </details>
      </nav>
      <ShortcutsDialog chart={chart} />
    </>
  );
};

/** The date control's comparisons: the period before, a year before, one's own dates, none. */
const CompareChoices: FC<{
  path: string;
  comparison: DateComparison;
  kept: [string, string][];
}> = ({ path, comparison, kept }) => {
  const { shown, hrefFor } = comparison;
  return (
    <div class="compare-choices">
      <p class="menu-title">Compare</p>
      <ul>
        <li>
          <a
            href={hrefFor(shown?.mode === 'previous' ? false : { compare: 'previous' })}
            aria-current={shown?.mode === 'previous' ? 'true' : undefined}
            data-key="x"
            aria-keyshortcuts="X"
          >
            With the period before <kbd>X</kbd>
          </a>
        </li>
        <li>
          <a
            href={hrefFor(shown?.mode === 'year' ? false : { compare: 'year' })}
            aria-current={shown?.mode === 'year' ? 'true' : undefined}
          >
            With a year before
          </a>
        </li>
        {shown ? (
          <li>
            <a href={hrefFor(false)}>Stop comparing</a>
          </li>
        ) : null}
      </ul>
      <form method="get" action={path} class="compare-custom">
        <HiddenFields params={kept.filter(([name]) => !name.startsWith('compare'))} />
        <input type="hidden" name="compare" value="custom" />
        <label>
          With{' '}
          <input
            type="date"
            name="compare_from"
            value={shown?.mode === 'custom' ? shown.from : ''}
            required
          />
        </label>
        <label>
          to{' '}
          <input
            type="date"
            name="compare_to"
            value={shown?.mode === 'custom' ? shown.to : ''}
            required
          />
        </label>
        <button type="submit" class="secondary">
          Compare
        </button>
      </form>
    </div>
  );
};
