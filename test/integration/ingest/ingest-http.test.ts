/** The hit contract (docs/ARCHITECTURE.md, The HTTP contract): the HTTP contract of `POST /api/event`. */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { snapshot } from '../../support/api.ts';
import { CHROME_WINDOWS, rollups, sendHit } from '../../support/hits.ts';
import { site, statRows } from '../../support/ingest-fixtures.ts';

const EVENT_URL = 'https://sightline.test/api/event';

async function raw(init: RequestInit) {
  const res = await exports.default.fetch(new Request(EVENT_URL, init));
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** A body `size` bytes long that is a valid hit for `domain` (padded with an unknown field). */
function paddedHit(domain: string, size: number): string {
  const head = JSON.stringify({ page: `https://${domain}/`, pad: '' });
  const pad = 'x'.repeat(Math.max(0, size - head.length));
  return JSON.stringify({ page: `https://${domain}/`, pad });
}

describe('success', () => {
  it('answers 202 with an empty body to text/plain and application/json', async () => {
    const s = await site('types');
    const page = `https://${s.domain}/`;
    for (const contentType of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/json',
      'application/json; charset=utf-8',
    ]) {
      const res = await sendHit({ page }, { contentType });
      expect(res.status).toBe(202);
      expect(res.text).toBe('');
      expect(res.dropReason).toBeNull();
    }
    expect(Object.values((await rollups(s.id)).pageviews ?? {})).toEqual([4]);
  });

  it('refuses other content types with 415 and stores nothing', async () => {
    const s = await site('type-415');
    const page = `https://${s.domain}/`;
    for (const contentType of [
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'text/html',
    ]) {
      const res = await sendHit({ page }, { contentType });
      expect(res.status).toBe(415);
      expect(JSON.parse(res.text)).toEqual({ message: expect.any(String), status: 415 });
    }
    expect(await statRows(s.id)).toBe(0);
  });
});

describe('CORS', () => {
  it('answers a preflight with 204, any origin, POST and Content-Type', async () => {
    const res = await raw({
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')?.toUpperCase()).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'content-type',
    );
    expect(res.headers.get('access-control-allow-credentials')).not.toBe('true');
  });

  it('marks stored, dropped and refused hits as readable by any origin, without credentials', async () => {
    const s = await site('cors');
    const origin = { origin: `https://${s.domain}` };
    const responses = [
      await sendHit({ page: `https://${s.domain}/` }, { headers: origin }),
      await sendHit({ page: 'https://unknown-cors.example.net/' }, { headers: origin }),
      await sendHit('{not json', { headers: origin }),
    ];
    expect(responses.map((r) => r.status)).toEqual([202, 202, 400]);
    for (const res of responses) {
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).not.toBe('true');
    }
    expect(responses[1]?.headers.get('access-control-expose-headers')?.toLowerCase()).toContain(
      'x-drop-reason',
    );
  });
});

describe('malformed and invalid hits', () => {
  it('answers malformed JSON with a 400 JSON error', async () => {
    for (const body of ['{not json', '', '{"page": "https://x.example.com/"']) {
      const res = await sendHit(body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(res.text)).toEqual({ message: expect.any(String), status: 400 });
    }
  });

  it.each([
    ['a JSON array', (d: string) => [`https://${d}/`]],
    ['a JSON string', (d: string) => `https://${d}/`],
    ['no page', () => ({ referrer: 'https://www.google.com/' })],
    ['an ftp page', (d: string) => ({ page: `ftp://${d}/file` })],
    ['a javascript: page', () => ({ page: 'javascript:alert(1)' })],
    ['a relative page', () => ({ page: '/pricing' })],
    [
      'a bad resolution',
      (d: string) => ({ page: `https://${d}/`, screen_resolution: '1920*1080' }),
    ],
    ['a zero resolution', (d: string) => ({ page: `https://${d}/`, screen_resolution: '0x0' })],
    [
      'an event name with a control character',
      (d: string) => ({ page: `https://${d}/`, event: { name: 'sign\nup' } }),
    ],
    [
      'an event string with four parts',
      (d: string) => ({ page: `https://${d}/`, event: 'a:1:usd:x' }),
    ],
    ['an empty event name', (d: string) => ({ page: `https://${d}/`, event: { name: ' ' } })],
  ])('answers 400 to %s and stores nothing', async (_, build) => {
    const s = await site('invalid');
    const before = await snapshot('stats');
    const body = build(s.domain);
    const res = await sendHit(typeof body === 'string' ? JSON.stringify(body) : body);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ message: expect.any(String), status: 400 });
    expect(await snapshot('stats')).toEqual(before);
  });
});

describe('body limit', () => {
  it('accepts a hit of 16 KB', async () => {
    const s = await site('limit-ok');
    const body = paddedHit(s.domain, 16 * 1024);
    expect(body.length).toBe(16 * 1024);
    expect((await sendHit(body)).status).toBe(202);
    expect(await statRows(s.id)).toBeGreaterThan(0);
  });

  it('answers 413 to a larger body and stores nothing', async () => {
    const s = await site('limit-413');
    const res = await sendHit(paddedHit(s.domain, 16 * 1024 + 1));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual({ message: expect.any(String), status: 413 });
    expect(await statRows(s.id)).toBe(0);
  });

  it('answers 413 to a chunked body without Content-Length and stores nothing', async () => {
    const s = await site('limit-chunked');
    const bytes = new TextEncoder().encode(paddedHit(s.domain, 64 * 1024));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 4096) controller.enqueue(bytes.slice(i, i + 4096));
        controller.close();
      },
    });
    const res = await raw({
      method: 'POST',
      headers: {
        'content-type': 'text/plain',
        'cf-connecting-ip': '198.51.100.99',
        'user-agent': CHROME_WINDOWS,
      },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ message: expect.any(String), status: 413 });
    expect(await statRows(s.id)).toBe(0);
  });

  it('stores a small chunked body', async () => {
    const s = await site('small-chunked');
    const bytes = new TextEncoder().encode(JSON.stringify({ page: `https://${s.domain}/` }));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 10));
        controller.enqueue(bytes.slice(10));
        controller.close();
      },
    });
    const res = await raw({
      method: 'POST',
      headers: {
        'content-type': 'text/plain',
        'cf-connecting-ip': '198.51.100.98',
        'user-agent': CHROME_WINDOWS,
      },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(202);
    expect(Object.values((await rollups(s.id)).pageviews ?? {})).toEqual([1]);
  });
});

describe('client IP', () => {
  it('identifies the visitor by CF-Connecting-IP only', async () => {
    const s = await site('ip-visitor');
    const page = `https://${s.domain}/`;
    const ip = '198.51.100.70';
    await sendHit({ page }, { ip, headers: { 'x-forwarded-for': '192.0.2.1' } });
    await sendHit({ page }, { ip, headers: { 'x-forwarded-for': '192.0.2.2, 10.0.0.1' } });
    await sendHit({ page, ip: '192.0.2.3' }, { ip });
    await sendHit({ page }, { ip, headers: { 'x-real-ip': '192.0.2.4' } });
    let r = await rollups(s.id);
    expect(Object.values(r.pageviews ?? {})).toEqual([4]);
    expect(Object.values(r.visitors ?? {})).toEqual([1]);

    // A different CF-Connecting-IP behind the same forwarded address is another visitor.
    await sendHit(
      { page, ip: '192.0.2.3' },
      { ip: '198.51.100.71', headers: { 'x-forwarded-for': '192.0.2.1' } },
    );
    r = await rollups(s.id);
    expect(Object.values(r.visitors ?? {})).toEqual([2]);
  });

  it('excludes by CF-Connecting-IP only', async () => {
    const s = await site('ip-exclusion', { exclude_ips: '203.0.113.0/24' });
    const page = `https://${s.domain}/`;
    const spoofedIn = await sendHit(
      { page, ip: '203.0.113.5' },
      { ip: '198.51.100.80', headers: { 'x-forwarded-for': '203.0.113.5' } },
    );
    expect(spoofedIn.status).toBe(202);
    expect(spoofedIn.dropReason).toBeNull();

    const spoofedOut = await sendHit(
      { page, ip: '198.51.100.81' },
      { ip: '203.0.113.6', headers: { 'x-forwarded-for': '198.51.100.81' } },
    );
    expect(spoofedOut.status).toBe(202);
    expect(spoofedOut.dropReason).toBe('excluded_ip');
    expect(Object.values((await rollups(s.id)).pageviews ?? {})).toEqual([1]);
  });
});
