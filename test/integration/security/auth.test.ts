import { describe, expect, it } from 'vitest';
import { rotateApiKey } from '../../../src/accounts/api-keys.ts';
import { call, db, makeOwner, UNAUTHENTICATED } from '../../support/api.ts';

describe('API authentication', () => {
  const routes: [string, string][] = [
    ['GET', '/api/v1/websites'],
    ['POST', '/api/v1/websites'],
    ['GET', '/api/v1/websites/1'],
    ['PUT', '/api/v1/websites/1'],
    ['PATCH', '/api/v1/websites/1'],
    ['DELETE', '/api/v1/websites/1'],
    ['GET', '/api/v1/stats/1'],
    ['GET', '/api/v1/nothing-here'],
  ];

  it.each(routes)('%s %s without a key is 401 with the standard body', async (method, path) => {
    const res = await call(path, { method });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(UNAUTHENTICATED);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it.each([
    ['Bearer', ''],
    ['Bearer ', 'sl_short'],
    ['Basic ', 'dXNlcjpwYXNz'],
    ['Token ', 'sl_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['Bearer ', 'sl_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['Bearer ', "' OR 1=1 --"],
  ])('rejects the Authorization header %s%s', async (scheme, value) => {
    const res = await call('/api/v1/websites', { headers: { authorization: `${scheme}${value}` } });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(UNAUTHENTICATED);
  });

  it('does not accept the key anywhere but the Authorization header', async () => {
    const { key } = await makeOwner();
    for (const path of [`/api/v1/websites?api_key=${key}`, `/api/v1/websites?key=${key}`]) {
      expect((await call(path)).status).toBe(401);
    }
    expect(
      (await call('/api/v1/websites', { headers: { cookie: `api_key=${key}`, 'x-api-key': key } }))
        .status,
    ).toBe(401);
  });

  it('accepts the scheme case-insensitively', async () => {
    const { key } = await makeOwner();
    expect(
      (await call('/api/v1/websites', { headers: { authorization: `bearer ${key}` } })).status,
    ).toBe(200);
  });

  it('kills a rotated key at once', async () => {
    const owner = await makeOwner();
    expect((await call('/api/v1/websites', { key: owner.key })).status).toBe(200);
    const fresh = await rotateApiKey(db(), owner.id);
    expect(fresh).not.toBe(owner.key);
    expect((await call('/api/v1/websites', { key: owner.key })).status).toBe(401);
    expect((await call('/api/v1/websites', { key: fresh })).status).toBe(200);
  });

  it('stores keys only as SHA-256 hashes', async () => {
    const owner = await makeOwner();
    const { results } = await (await import('cloudflare:workers')).env.DB.prepare(
      'SELECT * FROM api_keys',
    ).all();
    expect(JSON.stringify(results)).not.toContain(owner.key);
    expect(results.every((r) => /^[0-9a-f]{64}$/.test(String(r.key_hash)))).toBe(true);
  });
});
