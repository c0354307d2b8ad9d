import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../../src/accounts/password.ts';
import {
  call,
  errorOf,
  makeOwner,
  makeWebsite,
  NOT_FOUND,
  oneOf,
  snapshot,
} from '../../support/api.ts';

describe('PUT/PATCH /api/v1/websites/{id}', () => {
  it('changes only the fields sent and bumps updated_at', async () => {
    const { key } = await makeOwner();
    const site = await makeWebsite(key, { exclude_ips: '10.0.0.0/8', timezone: 'Asia/Tokyo' });
    await new Promise((r) => setTimeout(r, 5));
    const res = await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key,
      body: { form: { email: '1', privacy: '0' } },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      data: { ...site, email: 1, privacy: 0, updated_at: expect.any(String) },
      status: 200,
    });
    expect(String(oneOf(res).data.updated_at) > String(site.updated_at)).toBe(true);
    expect(oneOf(res).data.created_at).toBe(site.created_at);
  });

  it('accepts PATCH with a JSON body and multipart bodies', async () => {
    const { key } = await makeOwner();
    const site = await makeWebsite(key);
    const patch = await call(`/api/v1/websites/${site.id}`, {
      method: 'PATCH',
      key,
      body: { json: { exclude_bots: 0 } },
    });
    expect(oneOf(patch).data.exclude_bots).toBe(0);
    expect(oneOf(patch).data.exclude_datacenters).toBe(1);
    const off = await call(`/api/v1/websites/${site.id}`, {
      method: 'PATCH',
      key,
      body: { json: { exclude_datacenters: false } },
    });
    expect(oneOf(off).data).toMatchObject({ exclude_bots: 0, exclude_datacenters: 0 });
    const back = await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key,
      body: { form: { exclude_datacenters: '1' } },
    });
    expect(oneOf(back).data.exclude_datacenters).toBe(1);
    const read = await call(`/api/v1/websites/${site.id}`, { key });
    expect(oneOf(read).data.exclude_datacenters).toBe(1);
    const multi = await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key,
      body: { multipart: { exclude_params: 'ref' } },
    });
    expect(oneOf(multi).data.exclude_params).toBe('ref');
  });

  it('ignores a domain equal to the current one, in any spelling', async () => {
    const { key } = await makeOwner();
    const site = await makeWebsite(key, { domain: 'same.example.com' });
    for (const domain of ['same.example.com', 'https://www.SAME.example.com/path']) {
      const res = await call(`/api/v1/websites/${site.id}`, {
        method: 'PUT',
        key,
        body: { form: { domain, email: '1' } },
      });
      expect(res.status).toBe(200);
      expect(oneOf(res).data.domain).toBe('same.example.com');
    }
  });

  it('rejects a different domain with 422 and changes nothing', async () => {
    const { key } = await makeOwner();
    const site = await makeWebsite(key, { domain: 'fixed.example.com' });
    const before = await snapshot('websites');
    const res = await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key,
      body: { form: { domain: 'other.example.com', email: '1' } },
    });
    expect(res.status).toBe(422);
    expect(errorOf(res).errors).toEqual({
      domain: ['The domain of an existing website cannot be changed.'],
    });
    expect(await snapshot('websites')).toEqual(before);
  });

  it('requires a password to switch to privacy 2 unless one is already set', async () => {
    const { key } = await makeOwner();
    const site = await makeWebsite(key);
    const refused = await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key,
      body: { form: { privacy: '2' } },
    });
    expect(refused.status).toBe(422);
    expect(errorOf(refused).errors).toEqual({
      password: ['The password field is required when privacy is 2.'],
    });

    const empty = await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key,
      body: { form: { privacy: '2', password: '' } },
    });
    expect(empty.status).toBe(422);

    const ok = await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key,
      body: { form: { privacy: '2', password: 'secret password' } },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.data).toMatchObject({ privacy: 2, password: true });

    // Back to private and to password again: the stored password still counts.
    await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key,
      body: { form: { privacy: '1' } },
    });
    const again = await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key,
      body: { form: { privacy: '2' } },
    });
    expect(again.status).toBe(200);
    expect(oneOf(again).data.password).toBe(true);
  });

  it('replaces the password hash when a new password is sent', async () => {
    const { key } = await makeOwner();
    const site = await makeWebsite(key, { privacy: '2', password: 'first password' });
    const hashOf = async () =>
      ((await snapshot('websites')) as { id: number; password_hash: string }[]).find(
        (r) => r.id === site.id,
      )?.password_hash;
    expect(await verifyPassword('first password', (await hashOf()) ?? '')).toBe(true);
    const res = await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key,
      body: { form: { password: 'second password' } },
    });
    expect(res.status).toBe(200);
    const second = (await hashOf()) ?? '';
    expect(await verifyPassword('second password', second)).toBe(true);
    expect(await verifyPassword('first password', second)).toBe(false);
  });

  it('validates every field and writes nothing on 422', async () => {
    const { key } = await makeOwner();
    const site = await makeWebsite(key);
    const before = await snapshot('websites');
    const res = await call(`/api/v1/websites/${site.id}`, {
      method: 'PUT',
      key,
      body: { form: { email: '1', timezone: 'Not/AZone', exclude_ips: '::1\n::g' } },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(errorOf(res).errors)).toEqual(['exclude_ips', 'timezone']);
    expect(await snapshot('websites')).toEqual(before);
  });

  it.each(['999999', '0', '-1', 'abc', '1.5', '1e3', '%20'])(
    'answers 404 for the id %s',
    async (id) => {
      const { key } = await makeOwner();
      const res = await call(`/api/v1/websites/${id}`, {
        method: 'PUT',
        key,
        body: { form: { email: '1' } },
      });
      expect(res.status).toBe(404);
      expect(res.json).toEqual(NOT_FOUND);
    },
  );
});
