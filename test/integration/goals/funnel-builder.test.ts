/**
 * The funnel builder on a website's funnels page (src/pages/settings/funnels-section.tsx):
 * steps picked as rows (a kind and its page, event or goal, the website's own suggested), the
 * empty rows left out, each row's message beside it, and the counts of the funnel being built
 * over the last 30 days (`…/funnels/preview.json`), the same as the saved funnel's answer.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, makeOwner, makeWebsite } from '../../support/api.ts';
import { csrfFrom, signedIn } from '../../support/browser-session.ts';
import { CHROME_WINDOWS, sendHit } from '../../support/hits.ts';
import { freezeAt } from '../../support/ingest-fixtures.ts';

type Owner = Awaited<ReturnType<typeof makeOwner>>;
let owner: Owner;
let site: { id: number; domain: string };
const NOW = '2026-07-10T12:00:00Z';

/** A page view (or custom event) of person `who` on 2026-07-08 at `time`. */
async function hit(who: number, time: string, what: { page?: string; event?: string }) {
  freezeAt(`2026-07-08T${time}Z`);
  const page = `https://${site.domain}${what.page ?? '/'}`;
  const res = await sendHit(what.event ? { page, event: { name: what.event } } : { page }, {
    ip: `192.0.2.${who + 1}`,
    ua: CHROME_WINDOWS,
  });
  expect(res.status, res.text).toBe(202);
}

beforeAll(async () => {
  owner = await makeOwner('funnel-builder');
  site = await makeWebsite(owner.key, { domain: 'funnel-builder.example.com' });
  // Three visitors see /pricing; two go on to /signup; one of them sends Signup.
  for (const [who, time, what] of [
    [0, '10:00:00', { page: '/pricing' }],
    [0, '10:01:00', { page: '/signup' }],
    [0, '10:02:00', { event: 'Signup' }],
    [1, '10:00:00', { page: '/pricing' }],
    [1, '10:01:00', { page: '/signup' }],
    [2, '10:00:00', { page: '/pricing' }],
  ] as const)
    await hit(who, time, what);
  freezeAt(NOW);
});
afterAll(() => {
  vi.useRealTimers();
});

describe('the funnel builder', () => {
  it('offers the steps as rows with the website’s pages, events and goals suggested', async () => {
    const b = await signedIn(owner);
    const page = (await b.get(`/websites/${site.id}/funnels`)).text;
    for (let n = 1; n <= 8; n++) {
      expect(page).toContain(`name="step_kind_${n}"`);
      expect(page).toContain(`name="step_value_${n}"`);
    }
    const list = (id: string) =>
      [
        ...(
          page.match(new RegExp(`<datalist id="${id}">([\\s\\S]*?)</datalist>`))?.[1] ?? ''
        ).matchAll(/value="([^"]*)"/g),
      ].map((m) => m[1]);
    expect(list('suggested-pages')).toEqual(['/pricing', '/signup']);
    expect(list('suggested-events')).toEqual(['Signup']);
    expect(page).toContain(`data-funnel-builder="/websites/${site.id}/funnels/preview.json"`);
  });

  it('saves the rows in order, the empty ones left out, and says which row is wrong', async () => {
    const b = await signedIn(owner);
    const csrf = csrfFrom((await b.get(`/websites/${site.id}/funnels`)).text);
    const bad = await b.post(`/websites/${site.id}/funnels`, {
      _csrf: csrf,
      name: 'Built',
      step_kind_1: 'page',
      step_value_1: '/pricing',
      step_kind_2: 'goal',
      step_value_2: 'No such goal',
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('<p class="error">The website has no goal of this name.</p>');
    expect(bad.text).toContain('value="No such goal"');
    const made = await b.post(`/websites/${site.id}/funnels`, {
      _csrf: csrf,
      name: 'Built',
      step_kind_1: 'page',
      step_value_1: '/pricing',
      step_kind_3: 'page',
      step_value_3: ' /signup ',
      step_kind_5: 'event',
      step_value_5: 'Signup',
      steps: '',
    });
    expect([made.status, made.location]).toEqual([
      303,
      `/websites/${site.id}/funnels?funnel=added`,
    ]);
    const listed = await call(`/api/v1/websites/${site.id}/funnels`, { key: owner.key });
    const saved = (listed.json as { data: { name: string; steps: unknown[] }[] }).data;
    expect(saved.find((f) => f.name === 'Built')?.steps).toEqual([
      { page: '/pricing' },
      { page: '/signup' },
      { event: 'Signup' },
    ]);
  });

  it('counts the funnel being built over the last 30 days, as its saved answer does', async () => {
    const b = await signedIn(owner);
    const steps = [{ page: '/pricing' }, { page: '/signup' }, { event: 'Signup' }];
    const res = await b.get(
      `/websites/${site.id}/funnels/preview.json?steps=${encodeURIComponent(JSON.stringify(steps))}`,
    );
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text)).toEqual({
      range: 'Jun 11 – Jul 10',
      steps: [
        { visitors: 3, label: '3 visitors' },
        { visitors: 2, label: '2 visitors (66.67%)' },
        { visitors: 1, label: '1 visitor (33.33%)' },
      ],
    });
    const short = await b.get(
      `/websites/${site.id}/funnels/preview.json?steps=${encodeURIComponent('[{"page":"/"}]')}`,
    );
    expect(short.status).toBe(422);
    expect(JSON.parse(short.text)).toEqual({
      error: 'The steps field must be a list of 2 to 8 steps.',
    });
    const wrong = await b.get(
      `/websites/${site.id}/funnels/preview.json?steps=${encodeURIComponent('[{"page":"/"},{"page":"x"}]')}`,
    );
    expect(wrong.status).toBe(422);
    expect(JSON.parse(wrong.text).error).toMatch(/^Step 2: /);
  });
});
