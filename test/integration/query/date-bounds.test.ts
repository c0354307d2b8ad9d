/**
 * Dates and ranges are bounded before anything is computed or asked of a database
 * (src/lib/time/dates.ts): a date after `MAX_DATE` or a range longer than `MAX_RANGE_DAYS` is a 422
 * naming the field on the API and the page's notice on the statistics pages, never a 500 or
 * a long wait — for the owner and for anyone reading a public page.
 */
import { describe, expect, it } from 'vitest';
import { MAX_DATE, MAX_RANGE_DAYS } from '../../../src/lib/time/dates.ts';
import { call, errorOf } from '../../support/api.ts';
import { site } from '../../support/ingest-fixtures.ts';

const RANGES: [string, string, 'from' | 'to'][] = [
  ['9999-12-01', '9999-12-31', 'from'],
  ['2026-01-01', '9999-12-31', 'to'],
  ['1970-01-01', '9999-11-30', 'to'],
  ['1970-01-01', '9998-12-31', 'to'],
  ['9999-01-01', '9999-01-01', 'from'],
];

describe('dates in the year 9999 and ranges from 1970', () => {
  it.each(RANGES)('the API answers %s – %s with a 422 naming %s', async (from, to, field) => {
    const s = await site('dates-api');
    for (const path of [
      `/api/v1/stats/${s.id}?name=pageviews&from=${from}&to=${to}`,
      `/api/v1/stats/${s.id}?name=page&from=${from}&to=${to}&filter[page]=/`,
      `/api/v1/stats/${s.id}/summary?from=${from}&to=${to}`,
    ]) {
      const res = await call(path, { key: s.key });
      expect(res.status, `${path}: ${res.text}`).toBe(422);
      expect(Object.keys(errorOf(res).errors), path).toContain(field);
    }
  });

  it('the API takes the longest range and the last date, and no more', async () => {
    const s = await site('dates-edges');
    const ask = (from: string, to: string) =>
      call(`/api/v1/stats/${s.id}?name=pageviews&from=${from}&to=${to}`, { key: s.key });
    expect(MAX_DATE).toBe('9998-12-31');
    expect((await ask('2016-01-01', '2026-01-07')).status).toBe(200); // 3,660 days
    const tooLong = await ask('2016-01-01', '2026-01-08');
    expect(tooLong.status).toBe(422);
    expect(errorOf(tooLong).errors.to?.[0]).toBe(
      `The range must be at most ${MAX_RANGE_DAYS.toLocaleString('en')} days: to must be 2026-01-07 or earlier.`,
    );
    expect((await ask('9998-12-01', MAX_DATE)).status).toBe(200);
    const past = await ask('9998-12-01', '9999-01-01');
    expect(errorOf(past).errors.to?.[0]).toBe(
      `The to field must be a date from 1970-01-01 to ${MAX_DATE}.`,
    );
  });

  it.each(RANGES)(
    'a public statistics page and its CSV answer %s – %s without a 5xx',
    async (from, to) => {
      const s = await site('dates-page', { privacy: '0' });
      const page = await call(`/stats/${s.domain}?from=${from}&to=${to}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('not a valid date range');
      for (const path of [
        `/stats/${s.domain}/page?from=${from}&to=${to}`,
        `/stats/${s.domain}/page.csv?from=${from}&to=${to}`,
        `/stats/${s.domain}?from=${from}&to=${to}&filter[page]=/`,
      ]) {
        expect((await call(path)).status, path).toBe(200);
      }
    },
  );
});
