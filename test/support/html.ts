/** Reading the statistics page's HTML in tests: links, tables of values, panels, the chart, the totals. */
import { ORIGIN } from './api.ts';

export const unescapeHtml = (text: string) =>
  text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');

/** Every `href` of the page, unescaped. */
export const hrefs = (html: string) =>
  [...html.matchAll(/\shref="([^"]*)"/g)].map((m) => unescapeHtml(m[1] ?? ''));

/**
 * The `<a>` whose text is `text` (first one; a shortcut's key, `<kbd>`, left out), as a URL
 * relative to the Worker.
 */
export function linkNamed(html: string, text: string | RegExp): URL | undefined {
  for (const m of html.matchAll(/<a\b[^>]*\shref="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)) {
    const shown = (m[2] ?? '').replace(/<kbd>[^<]*<\/kbd>/g, '');
    const label = unescapeHtml(shown.replace(/<[^>]*>/g, '')).trim();
    if (typeof text === 'string' ? label === text : text.test(label))
      return new URL(unescapeHtml(m[1] ?? ''), ORIGIN);
  }
  return undefined;
}

export const params = (url: URL | undefined) => Object.fromEntries(url?.searchParams ?? []);

export type Row = { value: string; count: string; href: string | null };

/**
 * Data rows of an HTML fragment: the value (the text of its first cell's first link, which
 * filters by it, or the cell's text; the bar behind it left out), the link that opens it
 * (`href`, or null) and the count (the first cell of class "num": the first metric's; a share,
 * a change and more metrics come after it).
 */
export function rowsOf(fragment: string): Row[] {
  const rows: Row[] = [];
  for (const tr of fragment.matchAll(/<tr>([\s\S]*?)<\/tr>/g)) {
    const cells = [...(tr[1] ?? '').matchAll(/<td(?: class="([^"]*)")?>([\s\S]*?)<\/td>/g)];
    const first = (cells[0]?.[2] ?? '').replace(/^<svg[\s\S]*?<\/svg>/, '');
    const counted = cells.find((c) => c[1] === 'num');
    if (!counted?.[2] || cells.length < 2) continue;
    const opens = first.match(
      /<a href="([^"]*)" rel="noopener noreferrer nofollow" target="_blank"/,
    );
    const text = first.match(/^<a\b[^>]*>([^<]*)<\/a>/)?.[1] ?? first;
    rows.push({
      value: unescapeHtml(text),
      count: counted[2] ?? '',
      href: opens ? unescapeHtml(opens[1] ?? '') : null,
    });
  }
  return rows;
}

/** The share column of a fragment's rows (`42%`), in order. */
export const sharesOf = (fragment: string) =>
  [...fragment.matchAll(/<td class="num share">([^<]*)<\/td>/g)].map((m) =>
    unescapeHtml(m[1] ?? ''),
  );

/** The widths of the bars behind a fragment's rows, in percent of the cell (`100.0`, …). */
export const barsOf = (fragment: string) =>
  [...fragment.matchAll(/<svg class="bar behind"[^>]*><rect class="fill" width="([^"]*)"/g)].map(
    (m) => m[1] ?? '',
  );

/** The tab panel of one statistic on the overview (`panel-page`, …). */
export function panel(html: string, name: string): string {
  const start = html.indexOf(`id="panel-${name}"`);
  if (start < 0) throw new Error(`no panel ${name}`);
  return html.slice(start, html.indexOf('</div>', start));
}

export const panelRows = (html: string, name: string) => rowsOf(panel(html, name));

/** The chart's data table: `[label, visitors, page views]`. */
export function chartRows(html: string): [string, number, number][] {
  const figure = html.match(/<figure class="chart">[\s\S]*?<\/figure>/)?.[0] ?? '';
  return [
    ...figure.matchAll(
      /<tr><td>([^<]*)<\/td><td class="num">([^<]*)<\/td><td class="num">([^<]*)<\/td><\/tr>/g,
    ),
  ].map((m) => [m[1] ?? '', Number(m[2]), Number(m[3])]);
}

/** A figure's card on the overview (`Visitors`, `Conversion rate`, …): its figure and hint. */
export function totalCard(html: string, title: string) {
  const m = html.match(
    // The title is a link when the chart can draw the figure.
    new RegExp(
      `<h2>(?:<a [^>]*>)?${title}(?:</a>)?</h2>\\s*<p class="big">([^<]*)</p>\\s*<p class="hint[^"]*">([\\s\\S]*?)</p>`,
    ),
  );
  if (!m) throw new Error(`no totals card ${title}`);
  return {
    value: m[1],
    // (the compared period is a span of its own: a phone leaves it to screen readers)
    change: unescapeHtml((m[2] ?? '').replace(/<[^>]*>/g, ''))
      .replace(/\s+/g, ' ')
      .trim(),
  };
}

/** The visitors' and page views' cards. */
export function totalsOf(html: string) {
  return { visitors: totalCard(html, 'Visitors'), pageviews: totalCard(html, 'Page views') };
}

/** "N visitors in the last 5 minutes". */
export function realtimeOf(html: string): string | undefined {
  const m = html.match(
    /<p class="live"[^>]*><strong>([^<]*)<\/strong>\s*(?:<span[^>]*>)?(visitors?)(?:<\/span>)?\s+in the last 5\s+minutes/,
  );
  return m ? `${m[1]} ${m[2]}` : undefined;
}
