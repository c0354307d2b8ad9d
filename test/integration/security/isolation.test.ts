import { beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  errorOf,
  listOf,
  makeOwner,
  makeWebsite,
  NOT_FOUND,
  snapshot,
} from '../../support/api.ts';

/** Two owners probing each other's websites: every attempt is the same 404, and nothing changes. */
describe('owner isolation', () => {
  let a: Awaited<ReturnType<typeof makeOwner>>;
  let b: Awaited<ReturnType<typeof makeOwner>>;
  let bSite: Awaited<ReturnType<typeof makeWebsite>>;
  const missing = 987654;

  beforeAll(async () => {
    a = await makeOwner('a');
    b = await makeOwner('b');
    await makeWebsite(a.key, { domain: 'a-site.example.com' });
    bSite = await makeWebsite(b.key, { domain: 'b-site.example.com', exclude_ips: '192.0.2.1' });
  });

  const attempts: [string, string, Record<string, string> | undefined][] = [
    ['GET', '', undefined],
    ['PUT', '', { email: '1', privacy: '0' }],
    ['PATCH', '', { exclude_ips: '' }],
    ['DELETE', '', undefined],
  ];

  it.each(attempts)(
    "%s on another owner's website is a 404 identical to a missing one",
    async (method, _, form) => {
      const before = await snapshot('websites');
      const theirs = await call(`/api/v1/websites/${bSite.id}`, {
        method,
        key: a.key,
        body: form ? { form } : undefined,
      });
      const none = await call(`/api/v1/websites/${missing}`, {
        method,
        key: a.key,
        body: form ? { form } : undefined,
      });
      expect(theirs.status).toBe(404);
      expect(theirs.text).toBe(none.text);
      expect(theirs.json).toEqual(NOT_FOUND);
      expect([...theirs.headers.keys()].sort()).toEqual([...none.headers.keys()].sort());
      expect(await snapshot('websites')).toEqual(before);
      expect(await snapshot('website_purges')).toEqual([]);
    },
  );

  it("never lists or finds another owner's website by search", async () => {
    const res = await call('/api/v1/websites?search=b-site', { key: a.key });
    expect(res.json.data).toEqual([]);
    expect(listOf(res).meta.total).toBe(0);
  });

  it("cannot take over another owner's domain", async () => {
    const res = await call('/api/v1/websites', {
      method: 'POST',
      key: a.key,
      body: { form: { domain: 'B-SITE.example.com' } },
    });
    expect(res.status).toBe(422);
    expect(errorOf(res).errors.domain).toEqual(['The domain has already been taken.']);
    const own = await call(`/api/v1/websites/${bSite.id}`, { key: b.key });
    expect(own.json.data).toEqual(bSite);
  });
});
