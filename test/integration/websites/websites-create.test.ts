import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../../src/accounts/password.ts';
import { assetSuffixes } from '../../../src/websites/public-suffixes.ts';
import { insertWebsite } from '../../../src/websites/queries.ts';
import { createWebsite } from '../../../src/websites/service.ts';
import { call, db, errorOf, makeOwner, makeWebsite, oneOf, snapshot } from '../../support/api.ts';
import { sendHit } from '../../support/hits.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('POST /api/v1/websites', () => {
  it('creates a website with the documented defaults and answers 201', async () => {
    const { key } = await makeOwner();
    const res = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: { form: { domain: 'defaults.example.com' } },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json).toEqual({
      data: {
        id: expect.any(Number),
        domain: 'defaults.example.com',
        privacy: 1,
        password: false,
        email: 0,
        exclude_bots: 1,
        exclude_datacenters: 1,
        exclude_params: null,
        exclude_ips: null,
        timezone: 'UTC',
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        role: 'owner',
      },
      status: 201,
    });
    expect(Object.keys(oneOf(res).data)).toEqual([
      'id',
      'domain',
      'privacy',
      'password',
      'email',
      'exclude_bots',
      'exclude_datacenters',
      'exclude_params',
      'exclude_ips',
      'timezone',
      'created_at',
      'updated_at',
      'role',
    ]);
  });

  const full = {
    domain: 'https://WWW.Full-Fields.example.com:8443/some/path?x=1',
    privacy: '2',
    password: 'hunter22',
    email: '1',
    exclude_bots: '0',
    exclude_datacenters: '0',
    exclude_params: 'utm_source\r\nfbclid\n*',
    exclude_ips: '# office\n203.0.113.7\n2001:db8::/32',
    timezone: 'Europe/Berlin',
  };
  const expected = {
    domain: 'full-fields.example.com',
    privacy: 2,
    password: true,
    email: 1,
    exclude_bots: 0,
    exclude_datacenters: 0,
    exclude_params: 'utm_source\nfbclid\n*',
    exclude_ips: '# office\n203.0.113.7\n2001:db8::/32',
    timezone: 'Europe/Berlin',
  };

  it.each([
    ['form', (f: Record<string, string>) => ({ form: f })],
    ['multipart', (f: Record<string, string>) => ({ multipart: f })],
    ['json', (f: Record<string, string>) => ({ json: f })],
  ] as const)('accepts every field as a %s body', async (kind, body) => {
    const { key } = await makeOwner();
    const fields = { ...full, domain: full.domain.replace('Full-Fields', `full-${kind}`) };
    const res = await call('/api/v1/websites', { method: 'POST', key, body: body(fields) });
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({ ...expected, domain: `full-${kind}.example.com` });
  });

  it('accepts JSON numbers and booleans for integer choices', async () => {
    const { key } = await makeOwner();
    const res = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: {
        json: { domain: 'json-types.example.com', privacy: 0, email: true, exclude_bots: false },
      },
    });
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({ privacy: 0, email: 1, exclude_bots: 0 });
  });

  it('stores the statistics page password only as a PBKDF2 hash', async () => {
    const { key } = await makeOwner();
    const site = await makeWebsite(key, { privacy: '2', password: 'the site password' });
    const rows = (await snapshot('websites')) as { id: number; password_hash: string }[];
    const row = rows.find((r) => r.id === site.id);
    expect(row?.password_hash).toMatch(/^pbkdf2-sha256\$100000\$/);
    expect(JSON.stringify(rows)).not.toContain('the site password');
    expect(await verifyPassword('the site password', row?.password_hash ?? '')).toBe(true);
  });

  it('ignores unknown fields and fields a client may not set', async () => {
    const { key, id: ownerId } = await makeOwner();
    const res = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: {
        json: {
          domain: 'unknown-fields.example.com',
          id: 999999,
          owner_id: ownerId + 1,
          user_id: 7,
          created_at: '2000-01-01',
          is_admin: 1,
        },
      },
    });
    expect(res.status).toBe(201);
    expect(oneOf(res).data.id).not.toBe(999999);
    expect(String(oneOf(res).data.created_at).startsWith('2000-01-01')).toBe(false);
    const rows = (await snapshot('websites')) as { id: number; owner_id: number }[];
    expect(rows.find((r) => r.id === oneOf(res).data.id)?.owner_id).toBe(ownerId);
  });

  it('requires a password when privacy is 2', async () => {
    const { key } = await makeOwner();
    const before = await snapshot('websites');
    const res = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: { form: { domain: 'pw.example.com', privacy: '2' } },
    });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: 'The password field is required when privacy is 2.',
      errors: { password: ['The password field is required when privacy is 2.'] },
      status: 422,
    });
    expect(await snapshot('websites')).toEqual(before);
  });

  it('requires at least 8 characters for a new statistics page password', async () => {
    const { key } = await makeOwner();
    const before = await snapshot('websites');
    for (const password of ['short', '1234567', '  seven']) {
      const res = await call('/api/v1/websites', {
        method: 'POST',
        key,
        body: { form: { domain: 'short-pw.example.com', privacy: '2', password } },
      });
      expect(res.status, password).toBe(422);
      expect(errorOf(res).errors, password).toEqual({
        password: ['The password field must be at least 8 characters.'],
      });
    }
    expect(await snapshot('websites')).toEqual(before);
    const site = await makeWebsite(key, { domain: 'long-pw.example.com' });
    const update = await call(`/api/v1/websites/${site.id}`, {
      method: 'PATCH',
      key,
      body: { json: { privacy: 2, password: 'abc' } },
    });
    expect(update.status).toBe(422);
    expect(errorOf(update).errors.password).toEqual([
      'The password field must be at least 8 characters.',
    ]);
    const ok = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: { form: { domain: 'eight-pw.example.com', privacy: '2', password: '8 chars!' } },
    });
    expect(ok.status).toBe(201);
  });

  it('names every invalid field in one 422 and writes nothing', async () => {
    const { key } = await makeOwner();
    const before = await snapshot('websites');
    const res = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: {
        form: {
          domain: 'exa mple.com',
          privacy: '3',
          email: 'yes',
          exclude_bots: '2',
          exclude_datacenters: 'sometimes',
          exclude_params: 'ok\nbad name',
          exclude_ips: '10.0.0.1\n# fine\n1.2.3.4/33',
          timezone: 'Mars/Olympus',
        },
      },
    });
    expect(res.status).toBe(422);
    expect(res.json.status).toBe(422);
    expect(errorOf(res).message).toBe('The domain is not a valid host name.');
    expect(errorOf(res).errors).toEqual({
      domain: ['The domain is not a valid host name.'],
      privacy: ['The privacy field must be 0, 1 or 2.'],
      email: ['The email field must be 0 or 1.'],
      exclude_bots: ['The exclude bots field must be 0 or 1.'],
      exclude_datacenters: ['The exclude datacenters field must be 0 or 1.'],
      exclude_params: [
        'The exclude params field has an invalid parameter name on line 2: bad name',
      ],
      exclude_ips: [
        'The exclude ips field has an invalid IP address or range on line 3: 1.2.3.4/33',
      ],
      timezone: ['The timezone field must be a valid IANA time zone name (e.g. Europe/Berlin).'],
    });
    expect(await snapshot('websites')).toEqual(before);
  });

  it.each([
    [{}, 'The domain field is required.'],
    [{ domain: '' }, 'The domain field is required.'],
    [{ domain: '   ' }, 'The domain field is required.'],
    [{ domain: '<script>alert(1)</script>' }, 'The domain is not a valid host name.'],
    [{ domain: 'intranet' }, 'The domain must contain a dot (e.g. example.com).'],
    [
      { domain: 'http://localhost:3000/' },
      'The domain localhost can be added only in development (npm run dev); use 127.0.0.1 or a real domain.',
    ],
    [{ domain: `${'a'.repeat(64)}.com` }, 'The domain is not a valid host name.'],
    [{ domain: '999.1.1.1' }, 'The domain is not a valid IPv4 address.'],
    [{ domain: 'user:pw@example.com' }, 'The domain must not contain credentials.'],
  ])('rejects the domain of %j', async (fields, message) => {
    const { key } = await makeOwner();
    const res = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: { form: fields as Record<string, string> },
    });
    expect(res.status).toBe(422);
    expect(errorOf(res).errors.domain).toEqual([message]);
  });

  it('rejects non-string JSON values with a 422, not a crash', async () => {
    const { key } = await makeOwner();
    const res = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: {
        json: {
          domain: ['a.com'],
          privacy: { x: 1 },
          exclude_ips: 42,
          timezone: null,
          password: 5,
        },
      },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(errorOf(res).errors)).toEqual([
      'domain',
      'privacy',
      'password',
      'exclude_ips',
      'timezone',
    ]);
  });

  it('keeps domains unique across owners, case-insensitively and after normalisation', async () => {
    const a = await makeOwner('a');
    const b = await makeOwner('b');
    await makeWebsite(a.key, { domain: 'taken.example.com' });
    for (const domain of [
      'taken.example.com',
      'TAKEN.Example.COM',
      'https://www.taken.example.com/',
      'taken.example.com.',
    ]) {
      for (const key of [a.key, b.key]) {
        const res = await call('/api/v1/websites', {
          method: 'POST',
          key,
          body: { form: { domain } },
        });
        expect(res.status).toBe(422);
        expect(errorOf(res).errors).toEqual({ domain: ['The domain has already been taken.'] });
      }
    }
  });

  it("refuses a subdomain or a parent of another owner's website, with the taken message", async () => {
    const a = await makeOwner('claim-a');
    const b = await makeOwner('claim-b');
    await makeWebsite(a.key, { domain: 'your-site.example' });
    await makeWebsite(a.key, { domain: 'deep.shop.other-site.example' });
    const before = await snapshot('websites');
    for (const domain of [
      'blog.your-site.example',
      'https://www.a.b.your-site.example/x',
      'shop.other-site.example',
      'other-site.example',
    ]) {
      const res = await call('/api/v1/websites', {
        method: 'POST',
        key: b.key,
        body: { form: { domain } },
      });
      expect(res.status, domain).toBe(422);
      expect(res.json, domain).toEqual({
        message: 'The domain has already been taken.',
        errors: { domain: ['The domain has already been taken.'] },
        status: 422,
      });
    }
    expect(await snapshot('websites')).toEqual(before);
    // Unrelated look-alikes are not refused.
    for (const domain of ['notyour-site.example', 'your-site.example.net'])
      expect(
        (await call('/api/v1/websites', { method: 'POST', key: b.key, body: { form: { domain } } }))
          .status,
        domain,
      ).toBe(201);
  });

  it('of two owners racing for a parent and a subdomain, only the first gets it', async () => {
    const a = await makeOwner('race-a');
    const b = await makeOwner('race-b');
    // Both passed the check before either was inserted; the insert itself decides.
    const row = (ownerId: number, domain: string) => ({
      ownerId,
      domain,
      createdAt: 1,
      updatedAt: 1,
    });
    expect(await insertWebsite(db(), row(a.id, 'race.example'))).toMatchObject({
      domain: 'race.example',
    });
    expect(await insertWebsite(db(), row(b.id, 'blog.race.example'))).toBeUndefined();
    expect(await insertWebsite(db(), row(b.id, 'example-race.example'))).toBeDefined();
    expect(await insertWebsite(db(), row(a.id, 'shop.race.example'))).toBeDefined();
    const domains = ((await snapshot('websites')) as { domain: string }[]).map((w) => w.domain);
    expect(domains).not.toContain('blog.race.example');
  });

  it("allows an owner's own subdomains and parents", async () => {
    const a = await makeOwner('own-claims');
    await makeWebsite(a.key, { domain: 'mine.example' });
    for (const domain of ['blog.mine.example', 'x.y.mine.example']) {
      const res = await call('/api/v1/websites', {
        method: 'POST',
        key: a.key,
        body: { form: { domain } },
      });
      expect(res.status, domain).toBe(201);
    }
    await makeWebsite(a.key, { domain: 'docs.parent-mine.example' });
    const parent = await call('/api/v1/websites', {
      method: 'POST',
      key: a.key,
      body: { form: { domain: 'parent-mine.example' } },
    });
    expect(parent.status).toBe(201);
  });

  it('refuses a public suffix, which would claim every website under it', async () => {
    const { key } = await makeOwner('suffix');
    for (const domain of ['co.uk', 'github.io', 'pages.dev', 'www.co.uk']) {
      const res = await call('/api/v1/websites', {
        method: 'POST',
        key,
        body: { form: { domain } },
      });
      expect(res.status, domain).toBe(422);
      expect(errorOf(res).errors, domain).toEqual({
        domain: [
          "The domain is a public suffix (like co.uk or github.io); use the website's own domain.",
        ],
      });
    }
    expect(
      (
        await call('/api/v1/websites', {
          method: 'POST',
          key,
          body: { form: { domain: 'shop.co.uk' } },
        })
      ).status,
    ).toBe(201);
  });

  it('normalises IP literals', async () => {
    const { key } = await makeOwner();
    const v6 = await makeWebsite(key, {
      domain: 'http://[2001:0DB8:0000:0000:0000:0000:0000:0042]:8080/x',
    });
    expect(v6.domain).toBe('[2001:db8::42]');
    const again = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: { form: { domain: '2001:db8::42' } },
    });
    expect(errorOf(again).errors).toEqual({ domain: ['The domain has already been taken.'] });
    const v4 = await makeWebsite(key, { domain: '203.0.113.9' });
    expect(v4.domain).toBe('203.0.113.9');
  });

  it('answers malformed bodies with clear errors', async () => {
    const { key } = await makeOwner();
    const bad = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: { raw: '{"domain":', type: 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ message: 'The request body is not valid JSON.', status: 400 });
    const array = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: { raw: '["a.com"]', type: 'application/json' },
    });
    expect(array.status).toBe(400);
    const xml = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: { raw: '<domain/>', type: 'application/xml' },
    });
    expect(xml.status).toBe(415);
    expect(xml.json.status).toBe(415);
  });

  it('refuses bodies over 64 KB with 413, with or without Content-Length', async () => {
    const { key } = await makeOwner();
    const before = await snapshot('websites');
    const big = `domain=big.example.com&exclude_params=${'a'.repeat(70 * 1024)}`;
    const res = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: { raw: big, type: 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ message: 'The request body is too large.', status: 413 });
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const chunked = await call('/api/v1/websites', {
      method: 'POST',
      key,
      body: { raw: stream, type: 'application/x-www-form-urlencoded' },
    });
    expect(chunked.status).toBe(413);
    expect(await snapshot('websites')).toEqual(before);
  });
});

describe('localhost in development', () => {
  it('is a website when npm run dev says so (DEVELOPMENT=on), and counts pages served from it', async () => {
    const owner = await makeOwner('localhost');
    const suffixes = assetSuffixes(env.ASSETS);
    await expect(createWebsite(db(), owner.id, { domain: 'localhost' }, suffixes)).rejects.toThrow(
      /only in development/,
    );
    const site = await createWebsite(
      db(),
      owner.id,
      { domain: 'http://localhost:5173/', privacy: 0 },
      suffixes,
      Date.now(),
      { local: true },
    );
    expect(site.domain).toBe('localhost');
    const hit = await sendHit({ name: 'pageview', url: 'http://localhost:5173/about' });
    expect([hit.status, hit.dropReason]).toEqual([202, null]);
    const today = new Date().toISOString().slice(0, 10);
    const pages = await call(`/api/v1/stats/${site.id}?name=page&from=${today}&to=${today}`, {
      key: owner.key,
    });
    expect((pages.json as { data: unknown[] }).data).toEqual([{ value: '/about', count: 1 }]);
  });
});
