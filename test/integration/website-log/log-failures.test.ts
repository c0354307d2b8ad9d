/**
 * Every call the Worker makes to a website's event log fails the same way
 * (src/website-log/worker/calls.ts): an object that cannot be reached, or that fails, makes the
 * request a 503 with Retry-After — JSON on the API, the error page on pages — never a 500;
 * and the hits of a call that could not be stored are counted nowhere.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { call } from '../../support/api.ts';
import { sendHit } from '../../support/hits.ts';
import { site, statRows } from '../../support/ingest-fixtures.ts';
import { injectLogFailure } from '../../support/log-faults.ts';

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('an event log that fails', () => {
  it.each([
    ['realtime', ''],
    ['flush', ''],
    ['query', '&filter[page]=/'],
  ] as const)('%s: the statistics page answers 503 with Retry-After', async (method, filter) => {
    const s = await site(`fail-${method}`, { privacy: '0' });
    expect((await sendHit({ page: `https://${s.domain}/` })).status).toBe(202);
    const fault = injectLogFailure({ methods: [method], websites: [s.id] });
    const page = await call(`/stats/${s.domain}?range=7d${filter}`);
    fault.restore();
    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).toBe('5');
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(fault.calls).toContain(method);
  });

  it.each([
    ['query', 'statistics', 'name=page&filter[page]=/'],
    ['query', 'summary', 'filter[page]=/'],
    ['flush', 'statistics', 'name=page'],
    ['flush', 'summary', ''],
  ] as const)(
    '%s (%s): the Stats API answers 503 with Retry-After',
    async (method, route, query) => {
      const s = await site(`fail-api-${method}-${route}`);
      const fault = injectLogFailure({ methods: [method], websites: [s.id] });
      const path =
        route === 'summary'
          ? `/api/v1/stats/${s.id}/summary?from=2026-01-01&to=2026-01-02&${query}`
          : `/api/v1/stats/${s.id}?from=2026-01-01&to=2026-01-02&${query}`;
      const res = await call(path, { key: s.key });
      fault.restore();
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.json).toMatchObject({ status: 503 });
    },
  );

  it('a stage and the abort after it failing: 503, and nothing counted anywhere', async () => {
    const a = await site('fail-abort');
    const b = await site('fail-abort-b', { domain: `b.${a.domain}` });
    const fault = injectLogFailure({ methods: ['stage', 'abort'], websites: [b.id] });
    const res = await sendHit({
      n: 'pageview',
      u: `https://${b.domain}/`,
      d: `${a.domain},${b.domain}`,
    });
    fault.restore();
    expect(fault.calls).toEqual(expect.arrayContaining(['stage', 'abort']));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await statRows(a.id)).toBe(0);
    expect(await statRows(b.id)).toBe(0);
  });
});
