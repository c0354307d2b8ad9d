import { beforeAll, describe, expect, it } from 'vitest';
import { call, listOf, makeOwner, makeWebsite, ORIGIN } from '../../support/api.ts';

describe('GET /api/v1/websites', () => {
  let key: string;
  let ids: number[];
  const domains = [
    'alpha.example.com',
    'beta.example.com',
    'gamma.example.net',
    'delta.example.org',
    'epsilon.example.com',
    'zeta.example.com',
    'eta.example.com',
    'theta.example.com',
    'iota.example.com',
    'kappa.example.com',
    'lambda.example.com',
    'mu-100.example.com',
    'mux1.example.com',
  ];

  beforeAll(async () => {
    ({ key } = await makeOwner());
    ids = [];
    for (const domain of domains) ids.push((await makeWebsite(key, { domain })).id);
  });

  it('pages newest first, 25 per page by default (the API contract), with links and meta', async () => {
    const res = await call('/api/v1/websites', { key });
    expect(res.status).toBe(200);
    expect(listOf<{ id: number }>(res).data.map((w) => w.id)).toEqual([...ids].reverse());
    expect(listOf(res).links).toEqual({
      first: `${ORIGIN}/api/v1/websites?page=1`,
      last: `${ORIGIN}/api/v1/websites?page=1`,
      prev: null,
      next: null,
    });
    expect(listOf(res).meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 1,
      path: `${ORIGIN}/api/v1/websites`,
      per_page: 25,
      to: 13,
      total: 13,
    });
    expect(res.json.status).toBe(200);
  });

  it('pages by the per_page asked for', async () => {
    const res = await call('/api/v1/websites?per_page=10', { key });
    expect(listOf<{ id: number }>(res).data.map((w) => w.id)).toEqual(
      [...ids].reverse().slice(0, 10),
    );
    expect(listOf(res).links).toEqual({
      first: `${ORIGIN}/api/v1/websites?per_page=10&page=1`,
      last: `${ORIGIN}/api/v1/websites?per_page=10&page=2`,
      prev: null,
      next: `${ORIGIN}/api/v1/websites?per_page=10&page=2`,
    });
    expect(listOf(res).meta).toMatchObject({ last_page: 2, per_page: 10, to: 10, total: 13 });
  });

  it('keeps the other query parameters in the links', async () => {
    const res = await call('/api/v1/websites?sort_by=domain&sort=asc&per_page=10&page=2', { key });
    expect(listOf<{ domain: string }>(res).data.map((w) => w.domain)).toEqual([
      'mux1.example.com',
      'theta.example.com',
      'zeta.example.com',
    ]);
    expect(listOf(res).links).toEqual({
      first: `${ORIGIN}/api/v1/websites?sort_by=domain&sort=asc&per_page=10&page=1`,
      last: `${ORIGIN}/api/v1/websites?sort_by=domain&sort=asc&per_page=10&page=2`,
      prev: `${ORIGIN}/api/v1/websites?sort_by=domain&sort=asc&per_page=10&page=1`,
      next: null,
    });
    expect(listOf(res).meta).toMatchObject({
      current_page: 2,
      from: 11,
      to: 13,
      last_page: 2,
      total: 13,
    });
  });

  it('sorts by id or domain in both directions', async () => {
    const asc = await call('/api/v1/websites?sort_by=id&sort=asc&per_page=25', { key });
    expect(listOf<{ id: number }>(asc).data.map((w) => w.id)).toEqual(ids);
    const byDomain = await call('/api/v1/websites?sort_by=domain&sort=desc&per_page=25', { key });
    expect(listOf<{ domain: string }>(byDomain).data.map((w) => w.domain)).toEqual(
      [...domains].sort().reverse(),
    );
  });

  it('finds an international domain by either spelling, in any case', async () => {
    // Stored in its ASCII (punycode) form, as browsers send it in the Host.
    const other = await makeOwner();
    await makeWebsite(other.key, { domain: 'ústí-nad-labem.example.cz' });
    await makeWebsite(other.key, { domain: 'plain.example.cz' });
    const search = async (q: string) =>
      listOf<{ domain: string }>(
        await call(`/api/v1/websites?search=${encodeURIComponent(q)}`, { key: other.key }),
      ).data.map((w) => w.domain);
    const idn = ['xn--st-nad-labem-tfb3p.example.cz'];
    expect(await search('ÚSTÍ-NAD-LABEM')).toEqual(idn);
    expect(await search('ústí-nad-labem.example.cz')).toEqual(idn);
    expect(await search('XN--ST-NAD')).toEqual(idn);
  });

  it('searches case-insensitively, taking % and _ literally', async () => {
    const search = async (q: string) =>
      listOf<{ domain: string }>(
        await call(
          `/api/v1/websites?search=${encodeURIComponent(q)}&search_by=domain&per_page=100`,
          { key },
        ),
      ).data.map((w) => w.domain);
    expect(await search('EXAMPLE.NET')).toEqual(['gamma.example.net']);
    // As wildcards, `_` and `%` would match mu-100 / everything; taken literally they match nothing.
    expect(await search('mu_1')).toEqual([]);
    expect(await search('%')).toEqual([]);
    expect(await search('mu-1')).toEqual(['mu-100.example.com']);

    const newestFirst = [...domains].reverse();
    expect(await search('Eta')).toEqual(newestFirst.filter((d) => d.includes('eta')));
    const none = await call('/api/v1/websites?search=nothing-here', { key });
    expect(none.json.data).toEqual([]);
    expect(listOf(none).meta).toMatchObject({ from: null, to: null, total: 0, last_page: 1 });
  });

  it('answers an empty page past the last one', async () => {
    const res = await call('/api/v1/websites?page=9', { key });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual([]);
    expect(listOf(res).meta).toMatchObject({
      current_page: 9,
      from: null,
      to: null,
      last_page: 1,
      total: 13,
    });
    expect(listOf(res).links.prev).toBe(`${ORIGIN}/api/v1/websites?page=8`);
    expect(listOf(res).links.next).toBeNull();
  });

  it.each([
    ['per_page=7', 'per_page', 'The per page field must be 10, 25, 50 or 100.'],
    ['per_page=abc', 'per_page', 'The per page field must be 10, 25, 50 or 100.'],
    ['page=0', 'page', 'The page field must be an integer of at least 1.'],
    ['page=-3', 'page', 'The page field must be an integer of at least 1.'],
    ['page=1.5', 'page', 'The page field must be an integer of at least 1.'],
    ['sort=up', 'sort', 'The selected sort is invalid.'],
    ['sort_by=created_at', 'sort_by', 'The selected sort by is invalid.'],
    ['search_by=url', 'search_by', 'The selected search by is invalid.'],
    [
      `search=${'x'.repeat(256)}`,
      'search',
      'The search field must not be greater than 255 characters.',
    ],
  ])('rejects %s with a 422 naming the field', async (query, field, message) => {
    const res = await call(`/api/v1/websites?${query}`, { key });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message, errors: { [field]: [message] }, status: 422 });
  });

  it("lists only the calling owner's websites", async () => {
    const other = await makeOwner('other');
    await makeWebsite(other.key, { domain: 'others.example.com' });
    const mine = await call('/api/v1/websites?per_page=100', { key });
    expect(listOf(mine).meta.total).toBe(13);
    expect(
      listOf<{ domain: string }>(mine).data.some((w) => w.domain === 'others.example.com'),
    ).toBe(false);
    const theirs = await call('/api/v1/websites', { key: other.key });
    expect(listOf<{ domain: string }>(theirs).data.map((w) => w.domain)).toEqual([
      'others.example.com',
    ]);
  });
});
