/**
 * What a report says: totals with change, top pages, referrers and countries, the top goals
 * with their conversion rates (when the website has goals), the period's annotations, a link.
 */
import { listAnnotations } from '../annotations/annotations.ts';
import type { Database } from '../db/client.ts';
import { withoutControlCharacters } from '../lib/text/text.ts';
import { V1_STATISTICS } from '../query/parse/v1.ts';
import type { Figures } from '../query/present/figures.ts';
import { rollupSource, summaryOf } from '../query/present/numbers.ts';
import {
  formatFigure,
  formatNumber,
  percentChange,
  SHOWN_FIGURES,
  valueLabel,
} from '../query/present/readable.ts';
import type { Period } from './period.ts';

export type ReportData = {
  domain: string;
  period: Period;
  figures: Figures;
  previous: Figures;
  top: { title: string; rows: { value: string; count: number }[] }[];
  /** The annotations of the period (src/annotations/): `2026-11-20: Launched pricing v2`. */
  notes: string[];
  statsUrl: string;
  /** RFC 8058's one-click address (`List-Unsubscribe`): mail providers post to it as it is. */
  unsubscribeUrl: string;
  /**
   * The e-mail's own unsubscribe link, its secret after `#` (docs/ARCHITECTURE.md, "Secrets
   * out of addresses"); the one-click address when none is given.
   */
  unsubscribePage: string;
  /** Why the address gets it, in words (the owner's reports when not given). */
  reason?: string;
  /** A test sent on request: said in its subject and first line. */
  test?: boolean;
};

/** The first line of a test report. */
const TEST_NOTE =
  'This is a test, sent on request: the report of the last complete period. The reports themselves go out as usual.';

/** Why an address gets the report, in words. */
const reasonOf = (r: ReportData) =>
  r.reason ?? `You get this because e-mail reports are on for ${r.domain}.`;

/** The top lists a report shows, each titled by its statistic's title. */
const TOP = (['page', 'referrer', 'country'] as const).map(
  (name) => [name, `Top ${V1_STATISTICS[name].title.toLowerCase()}`] as const,
);

/** A report's top goals: each goal's name with its conversion rate, and its converting visitors. */
export type GoalRows = { value: string; count: number }[];

export async function reportData(
  db: Database,
  site: { id: number; domain: string },
  period: Period,
  links: { statsUrl: string; unsubscribeUrl: string; unsubscribePage?: string },
  goals: GoalRows = [],
): Promise<ReportData> {
  const rollups = rollupSource(db, site.id);
  const sums = await summaryOf(rollups, period);
  const top = await Promise.all(
    TOP.map(async ([name, title]) => {
      const { rows } = await rollups.page({
        name,
        from: period.from,
        to: period.to,
        sortBy: 'count',
        sort: 'desc',
        limit: 5,
        offset: 0,
      });
      return {
        title,
        rows: rows.map((r) => ({
          value: valueLabel(name, r.value),
          count: r.count,
        })),
      };
    }),
  );
  if (goals.length > 0) top.push({ title: 'Top goals', rows: goals });
  const notes = (await listAnnotations(db, site.id, period)).map(
    (n) => `${n.date}${n.endDate ? ` to ${n.endDate}` : ''}: ${n.text}`,
  );
  return {
    domain: site.domain,
    period,
    figures: sums.data,
    previous: sums.previous,
    top,
    notes,
    ...links,
    unsubscribePage: links.unsubscribePage ?? links.unsubscribeUrl,
  };
}

function change(now: number, before: number): string {
  const percent = percentChange(now, before);
  if (percent === null) return now === 0 ? 'no change' : 'new';
  return `${percent} vs the period before`;
}

export function subjectOf(r: ReportData): string {
  const what =
    r.period.interval === 'monthly' ? `${r.period.from.slice(0, 7)}` : `week of ${r.period.from}`;
  // Domains are validated host names; line breaks are removed all the same, so no stored
  // value can ever start a header of its own.
  return oneLine(
    `${r.test ? 'Test: ' : ''}${r.domain}: ${formatNumber(r.figures.visitors)} visitors, ${formatNumber(r.figures.pageviews)} page views (${what})`,
  );
}

export function textOf(r: ReportData): string {
  const lines = [
    ...(r.test ? [TEST_NOTE, ''] : []),
    `Sightline ${r.period.interval} report for ${oneLine(r.domain)}`,
    `${r.period.from} to ${r.period.to}`,
    '',
    ...SHOWN_FIGURES.map(
      ([key, title]) =>
        `${`${title}:`.padEnd(16)} ${formatFigure(key, r.figures[key])} (${change(r.figures[key], r.previous[key])})`,
    ),
  ];
  for (const section of r.top) {
    lines.push('', `${section.title}:`);
    if (section.rows.length === 0) lines.push('  (none)');
    for (const row of section.rows)
      lines.push(`  ${formatNumber(row.count).padStart(7)}  ${oneLine(row.value)}`);
  }
  if (r.notes.length > 0) lines.push('', 'Annotations:', ...r.notes.map((n) => `  ${oneLine(n)}`));
  lines.push(
    '',
    `Full statistics: ${r.statsUrl}`,
    '',
    oneLine(reasonOf(r)),
    `Stop these e-mails for ${oneLine(r.domain)}: ${r.unsubscribePage}`,
  );
  return lines.join('\r\n');
}

/** Any stored value on one line: control characters (line breaks included) become spaces. */
function oneLine(text: string): string {
  return withoutControlCharacters(text);
}

/** Escapes text for HTML: every tracked value is hostile until proven otherwise. */
function escapeHtml(text: string): string {
  return oneLine(text).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export function htmlOf(r: ReportData): string {
  const e = escapeHtml;
  const sections = r.top
    .map(
      (s) =>
        `<h2 style="font-size:16px;margin:24px 0 8px">${e(s.title)}</h2><table style="border-collapse:collapse;width:100%">${
          s.rows.length === 0
            ? '<tr><td style="color:#5d6670">None</td></tr>'
            : s.rows
                .map(
                  (row) =>
                    `<tr><td style="padding:4px 0;border-bottom:1px solid #dde2e7">${e(row.value)}</td><td style="padding:4px 0;border-bottom:1px solid #dde2e7;text-align:right">${formatNumber(row.count)}</td></tr>`,
                )
                .join('')
        }</table>`,
    )
    .join('');
  return `<!DOCTYPE html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#17191c;max-width:560px;margin:0 auto;padding:16px">
${r.test ? `<p style="background:#fff4d6;padding:8px">${e(TEST_NOTE)}</p>` : ''}
<h1 style="font-size:20px">${e(r.domain)}</h1>
<p style="color:#5d6670">${e(r.period.interval === 'monthly' ? 'Monthly' : 'Weekly')} report, ${e(r.period.from)} to ${e(r.period.to)}</p>
<p>${SHOWN_FIGURES.map(
    ([key, title]) =>
      `<strong style="font-size:24px">${e(formatFigure(key, r.figures[key]))}</strong> ${e(title.toLowerCase())} <span style="color:#5d6670">(${e(change(r.figures[key], r.previous[key]))})</span>`,
  ).join('<br>\n')}</p>
${sections}${
  r.notes.length > 0
    ? `<h2 style="font-size:16px;margin:24px 0 8px">Annotations</h2><ul>${r.notes.map((n) => `<li>${e(n)}</li>`).join('')}</ul>`
    : ''
}
<p style="margin-top:24px"><a href="${e(r.statsUrl)}">Open the full statistics</a></p>
<p style="color:#5d6670;font-size:13px">${e(reasonOf(r))} <a href="${e(r.unsubscribePage)}">Unsubscribe</a></p>
</body></html>`;
}
