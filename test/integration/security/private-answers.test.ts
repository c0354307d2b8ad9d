/**
 * Answers with figures are never cached by the way (docs/SECURITY.md): every authenticated
 * JSON and CSV answer — API v1, the Stats API v2, MCP, the exports — and every page behind a
 * password or a shared link carries `Cache-Control: private, no-store`, errors included.
 */
import { beforeAll, expect, it } from 'vitest';
import { call, makeOwner, makeWebsite } from '../../support/api.ts';
import { newBrowser } from '../../support/browser-session.ts';
import { sendHit } from '../../support/hits.ts';
import { openSharedLink } from '../../support/tokens.ts';

const PASSWORD = 'a site password';
let owner: Awaited<ReturnType<typeof makeOwner>>;
let site: { id: number; domain: string };
let guarded: { id: number; domain: string };

beforeAll(async () => {
  owner = await makeOwner('private-answers');
  site = await makeWebsite(owner.key, { domain: 'private-answers.example.com', privacy: '1' });
  guarded = await makeWebsite(owner.key, {
    domain: 'guarded-answers.example.com',
    privacy: '2',
    password: PASSWORD,
  });
  expect((await sendHit({ page: `https://${site.domain}/` })).status).toBe(202);
});

const PRIVATE = 'private, no-store';

it('on API v1, the Stats API v2, MCP and the exports — answers and errors alike', async () => {
  const asked: [string, Parameters<typeof call>[1]][] = [
    [`/api/v1/websites/${site.id}`, { key: owner.key }],
    [`/api/v1/stats/${site.id}?name=page`, { key: owner.key }],
    [`/api/v1/stats/${site.id}/summary`, { key: owner.key }],
    [`/api/v1/stats/${site.id}?name=nothing`, { key: owner.key }],
    [`/api/v1/websites/${site.id}/export?format=events&as=csv`, { key: owner.key }],
    [`/api/v1/websites/${site.id}`, { key: null }],
    [
      '/api/v2/query',
      {
        method: 'POST',
        key: owner.key,
        body: { json: { site_id: site.domain, date_range: 'day', metrics: ['visitors'] } },
      },
    ],
    [
      '/mcp',
      {
        method: 'POST',
        key: owner.key,
        headers: { accept: 'application/json, text/event-stream' },
        body: { json: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
      },
    ],
  ];
  for (const [path, options] of asked) {
    const res = await call(path, options);
    expect(res.headers.get('cache-control'), `${path}: ${res.status}`).toBe(PRIVATE);
  }
});

it('on pages behind a password or a shared link, their CSVs and JSON too', async () => {
  const browser = newBrowser();
  const form = await browser.get(`/stats/${guarded.domain}`);
  expect(form.headers.get('cache-control')).toBe(PRIVATE);
  const unlocked = await browser.post(`/stats/${guarded.domain}/password`, { password: PASSWORD });
  expect(unlocked.status).toBe(303);
  for (const path of ['', '/page.csv', '/page.json?search=/'])
    expect(
      (await browser.get(`/stats/${guarded.domain}${path}`)).headers.get('cache-control'),
      path,
    ).toBe(PRIVATE);
  const link = await call(`/api/v1/websites/${site.id}/shared-links`, {
    method: 'POST',
    key: owner.key,
    body: { json: { name: 'Cached?' } },
  });
  const reader = newBrowser();
  const opened = await openSharedLink(
    reader,
    String((link.json as { data: { url: string } }).data.url),
  );
  expect(opened.status).toBe(200);
  const base = opened.path.split('?')[0];
  for (const path of ['', '/page', '/page.csv', '/page.json?search=/'])
    expect((await reader.get(`${base}${path}`)).headers.get('cache-control'), path).toBe(PRIVATE);
});
