/**
 * The figures of a filtered view are its chart's dates added up (src/website-log/object/read/
 * question-chunks.ts, `byDates`): a visit and a visitor never cross a local date, so a
 * grouping by nothing asked with one by date is that one's groups summed, and the log's
 * statement counts one grouping, not two. The figures are those asked alone; the statement
 * reads exactly the rows of the chart's grouping asked alone with the figures' metrics.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { GroupQuery, LogQuery } from '../../../src/counting/query.ts';
import { v1Filters } from '../../../src/query/parse/v1.ts';
import { FIGURES, seriesQuestions } from '../../../src/query/present/figures.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { logHit, record } from '../../support/event-log.ts';
import { site } from '../../support/ingest-fixtures.ts';

const RANGE = { from: '2026-03-08', to: '2026-03-10' };

describe("a filtered view's figures and chart", () => {
  it('are one grouping of the log: the figures its dates summed, as asked alone', async () => {
    const s = await site('figures-by-dates');
    const log = websiteLog(env, s.id);
    // Three dates; on each, visitors who see the filtered page (among others) or not, a
    // visitor coming back in a second visit, and a custom event.
    for (const [d, date] of ['2026-03-08', '2026-03-09', '2026-03-10'].entries())
      for (let v = 0; v < 4; v++)
        for (const [i, page] of ['/', '/pricing', '/docs'].slice(0, 1 + ((v + d) % 3)).entries()) {
          const hour = 8 + v + (i === 2 && v === 1 ? 3 : 0);
          const time = Date.parse(`${date}T${String(hour).padStart(2, '0')}:${10 + i}:00Z`);
          const ip = `203.0.113.${10 * d + v}`;
          await record(log, logHit(s.id, { date, time, hour: String(hour), ip, page }));
          if (i === 0 && v === 2)
            await record(
              log,
              logHit(s.id, {
                date,
                time: time + 1_000,
                hour: String(hour),
                ip,
                kind: 'event',
                event: 'signup',
              }),
            );
        }
    const filters = v1Filters([{ dimension: 'page', operator: 'is', value: '/pricing' }]);
    const ask = async (groups: GroupQuery[]) => {
      const read = await log.query({ ...RANGE, filters, groups } satisfies LogQuery);
      if (!read.ok) throw new Error('not read');
      return read;
    };
    const [daily] = seriesQuestions(RANGE) as [GroupQuery];
    // (the first read finds the filter's ids in the dictionary, and they are remembered)
    const alone = await ask([FIGURES]);
    const together = await ask([FIGURES, daily]);
    const chart = await ask([daily]);
    expect(together.value[0]).toEqual(alone.value[0]);
    expect(together.value[1]).toEqual(chart.value[0]);
    expect(alone.value[0]?.rows[0]?.metrics.slice(0, 3)).not.toEqual([0, 0, 0]);
    const widened = await ask([
      { ...daily, metrics: [...new Set([...daily.metrics, ...FIGURES.metrics])] },
    ]);
    expect(together.rowsRead).toBe(widened.rowsRead);
    expect(together.rowsRead).toBeLessThan(alone.rowsRead + chart.rowsRead);
  });
});
