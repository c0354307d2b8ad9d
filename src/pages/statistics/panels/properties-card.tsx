/**
 * The overview's custom properties' card (../overview-page.tsx), beside the groups of panels
 * (./panels.tsx).
 */
import type { FC } from 'hono/jsx';
import { formatNumber } from '../../../query/present/readable.ts';
import { type Extra, FilterLink, HiddenFields, type View, viewHref, viewParams } from '../view.tsx';
import { BarCell, shareText } from './panel-rows.tsx';

/**
 * The overview's custom properties: a link that lists the names the range's hits carry
 * (`properties=1`), or that list, each name a link that shows its values (kept in the address
 * as `property`; the most carried without one); a box for any name; and the shown property's
 * values with their visitors and share of the visitors whose hits carry the property (as
 * Plausible's shares of a goal's visitors), each a link that filters the overview by it.
 */
export const PropertiesPanel: FC<{
  property: string;
  /** Null until the address asks for them. */
  names: string[] | null;
  rows: { value: string; count: number }[] | null;
  /** The visitors of the hits that carry it: what its values' shares are of. */
  carriers: number | undefined;
  view: View;
  keep: Extra;
}> = ({ property, names, rows, carriers, view, keep }) => {
  const max = Math.max(0, ...(rows ?? []).map((r) => r.count));
  const base = carriers ?? null;
  return (
    <section class="card panel" id="properties" aria-labelledby="panel-properties">
      <div class="panel-head">
        <h2 id="panel-properties">Properties</h2>
        {names === null ? (
          <a href={`${viewHref(view.base, view, { ...keep, properties: 1 })}#properties`}>
            List this range's properties
          </a>
        ) : names.length > 0 ? (
          <nav class="tabs" aria-label="Properties of this range">
            {names.map((name) => (
              <a
                href={`${viewHref(view.base, view, { ...keep, property: name })}#properties`}
                aria-current={name === property ? 'true' : undefined}
              >
                {name}
              </a>
            ))}
          </nav>
        ) : null}
      </div>
      <form method="get" action={view.base} class="actions search">
        <HiddenFields params={viewParams(view, keep)} />
        <label for="property-name">Property</label>
        <input
          id="property-name"
          name="property"
          value={property}
          maxlength={300}
          placeholder="plan, author, …"
        />
        <button type="submit" class="secondary">
          Show
        </button>
      </form>
      {rows === null ? (
        <p class="hint">
          {names?.length === 0
            ? 'No hit of this range carries a custom property.'
            : 'Name a property your hits carry (plan, author, …) to see its values.'}
        </p>
      ) : rows.length === 0 ? (
        <p class="hint">No hit of this range carries it.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{property}</th>
              <th scope="col" class="num">
                Visitors
              </th>
              <th
                scope="col"
                class="num share"
                title={`Of the visitors whose hits carry ${property}`}
              >
                Share
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr>
                <BarCell count={row.count} max={max}>
                  <FilterLink
                    view={view}
                    keep={{ ...keep, property }}
                    dimension={`props:${property}`}
                    value={row.value}
                  >
                    {row.value}
                  </FilterLink>
                </BarCell>
                <td class="num">{formatNumber(row.count)}</td>
                <td class="num share">{shareText(row.count, base)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {rows && rows.length > 0 ? (
        <p class="actions">
          <a href={viewHref(`${view.base}/property`, view, { property })}>Show all</a>
          <a
            href={viewHref(`${view.base}/property.csv`, view, { property })}
            hx-boost="false"
            download
          >
            CSV
          </a>
        </p>
      ) : null}
    </section>
  );
};
