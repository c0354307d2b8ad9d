/**
 * The overview's goals' tab (./panels.tsx).
 */
import type { FC } from 'hono/jsx';
import type { Overview } from '../../../query/present/overview.ts';
import { formatMoney, formatNumber } from '../../../query/present/readable.ts';
import { type Extra, FilterLink, type View } from '../view.tsx';
import { BarCell, TabActions } from './panel-rows.tsx';

/**
 * The goals' tab: each goal with conversions — its converting visitors, completions,
 * conversion rate and revenue — its name a link that filters the overview by it.
 */
export const GoalsTab: FC<{ goals: Overview['goals']; view: View; keep: Extra }> = ({
  goals,
  view,
  keep,
}) => {
  const max = Math.max(0, ...goals.map((g) => g.visitors));
  // Revenue only where a goal counts it; no table (only its headers) without a conversion.
  const revenue = goals.some((g) => g.goal.currency);
  return (
    <>
      {goals.length === 0 ? (
        <p class="hint">No conversion in this range.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Goal</th>
              <th scope="col" class="num">
                Visitors
              </th>
              <th scope="col" class="num">
                Conversions
              </th>
              <th scope="col" class="num">
                Rate
              </th>
              {revenue ? (
                <th scope="col" class="num">
                  Revenue
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {goals.map((g) => (
              <tr>
                <BarCell count={g.visitors} max={max}>
                  <FilterLink view={view} keep={keep} dimension="goal" value={g.goal.displayName}>
                    {g.goal.displayName}
                  </FilterLink>
                </BarCell>
                <td class="num">{formatNumber(g.visitors)}</td>
                <td class="num">{formatNumber(g.events)}</td>
                <td class="num">{g.rate}%</td>
                {revenue ? (
                  <td class="num">
                    {g.goal.currency ? formatMoney(g.revenue, g.goal.currency) : ''}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <TabActions name="goal" view={view} />
    </>
  );
};
