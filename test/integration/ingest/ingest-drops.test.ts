/** The hit contract (docs/ARCHITECTURE.md): hits dropped on purpose answer 202 with their reason and store nothing. */
import { describe, expect, it } from 'vitest';
import { CHROME_WINDOWS, expectDropped, rollups, sendHit } from '../../support/hits.ts';
import { site, statRows } from '../../support/ingest-fixtures.ts';

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const HEADLESS_CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36';

type Hit = Parameters<typeof sendHit>;

/** Sends a hit that must be stored. */
async function expectCounted(websiteId: number, ...[body, options]: Hit) {
  const before = (await rollups(websiteId)).pageviews ?? {};
  const res = await sendHit(body, options);
  expect({ status: res.status, reason: res.dropReason }).toEqual({ status: 202, reason: null });
  const after = (await rollups(websiteId)).pageviews ?? {};
  const total = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
  expect(total(after)).toBe(total(before) + 1);
}

describe('unknown_site and host_mismatch', () => {
  it('drops a hit for a domain that is not registered', async () => {
    await expectDropped('unknown_site', { page: 'https://not-registered.example.net/' });
    await expectDropped('unknown_site', {
      page: 'https://not-registered.example.net/',
      domain: 'also-not-registered.example.net',
    });
  });

  it('drops a hit whose page is not on the website named by `domain`', async () => {
    const a = await site('host-a');
    const b = await site('host-b');
    await expectDropped('host_mismatch', { page: `https://${b.domain}/`, domain: a.domain });
    await expectDropped('host_mismatch', {
      page: 'https://elsewhere.example.net/',
      domain: a.domain,
    });
    expect(await statRows(a.id)).toBe(0);
    expect(await statRows(b.id)).toBe(0);
  });

  it('does not take a look-alike host for the domain (notexample.com vs example.com)', async () => {
    const s = await site('apex', { domain: 'example.com' });
    await expectDropped('host_mismatch', {
      page: 'https://notexample.com/',
      domain: 'example.com',
    });
    await expectDropped('unknown_site', { page: 'https://notexample.com/' });
    await expectDropped('host_mismatch', {
      page: 'https://example.com.evil.net/',
      domain: 'example.com',
    });
    expect(await statRows(s.id)).toBe(0);
    // The real host is counted, with or without `domain`, with or without www.
    await expectCounted(s.id, { page: 'https://example.com/' });
    await expectCounted(s.id, { page: 'https://www.example.com/', domain: 'example.com' });
  });

  it('counts a page on a subdomain for the parent website', async () => {
    const s = await site('parent');
    await expectCounted(s.id, { page: `https://blog.${s.domain}/post` });
    await expectCounted(s.id, { page: `https://blog.${s.domain}/post`, domain: s.domain });
    expect((await rollups(s.id)).page).toEqual({ '/post': 2 });
  });
});

describe('bot', () => {
  it('drops a Googlebot hit', async () => {
    const s = await site('googlebot');
    await expectDropped('bot', { page: `https://${s.domain}/` }, { ua: GOOGLEBOT });
    expect(await statRows(s.id)).toBe(0);
  });

  it('drops a HeadlessChrome hit', async () => {
    const s = await site('headless');
    await expectDropped('bot', { page: `https://${s.domain}/` }, { ua: HEADLESS_CHROME });
    expect(await statRows(s.id)).toBe(0);
  });

  it('drops a prefetch (Sec-Purpose: prefetch)', async () => {
    const s = await site('prefetch');
    await expectDropped(
      'bot',
      { page: `https://${s.domain}/` },
      { ua: CHROME_WINDOWS, headers: { 'sec-purpose': 'prefetch' } },
    );
    expect(await statRows(s.id)).toBe(0);
  });

  it('counts the same Googlebot hit when the website does not exclude bots', async () => {
    const s = await site('bots-welcome', { exclude_bots: '0' });
    await expectCounted(s.id, { page: `https://${s.domain}/` }, { ua: GOOGLEBOT });
  });
});

describe('excluded_ip', () => {
  it('drops an exact IPv4 address and lets its neighbour through', async () => {
    const s = await site('ip-exact', { exclude_ips: '192.0.2.7' });
    const page = `https://${s.domain}/`;
    await expectDropped('excluded_ip', { page }, { ip: '192.0.2.7' });
    await expectCounted(s.id, { page }, { ip: '192.0.2.8' });
  });

  it('drops addresses inside a CIDR range', async () => {
    const s = await site('ip-cidr', { exclude_ips: '203.0.113.0/24' });
    const page = `https://${s.domain}/`;
    await expectDropped('excluded_ip', { page }, { ip: '203.0.113.0' });
    await expectDropped('excluded_ip', { page }, { ip: '203.0.113.255' });
    await expectCounted(s.id, { page }, { ip: '203.0.114.1' });
  });

  it('drops IPv6 addresses, exact and in a range, whatever their spelling', async () => {
    const s = await site('ip-v6', { exclude_ips: '2001:db8::/32\n2a00:1450:4001:0:0:0:0:7' });
    const page = `https://${s.domain}/`;
    await expectDropped('excluded_ip', { page }, { ip: '2001:db8:1234::1' });
    await expectDropped('excluded_ip', { page }, { ip: '2a00:1450:4001::7' });
    await expectDropped('excluded_ip', { page }, { ip: '2A00:1450:4001::7' });
    await expectCounted(s.id, { page }, { ip: '2001:db9::1' });
  });

  it('matches an IPv4-mapped IPv6 client against an IPv4 range', async () => {
    const s = await site('ip-mapped', { exclude_ips: '203.0.113.0/24' });
    const page = `https://${s.domain}/`;
    await expectDropped('excluded_ip', { page }, { ip: '::ffff:203.0.113.7' });
    await expectCounted(s.id, { page }, { ip: '::ffff:198.51.100.7' });
  });

  it('ignores comment lines and blank lines in the list', async () => {
    const s = await site('ip-comment', {
      exclude_ips: '# the office\n\n198.51.100.0/28\n# 192.0.2.55',
    });
    const page = `https://${s.domain}/`;
    await expectDropped('excluded_ip', { page }, { ip: '198.51.100.9' });
    await expectCounted(s.id, { page }, { ip: '192.0.2.55' });
  });
});

describe('dnt', () => {
  it('drops a hit that asked for DNT and carries DNT: 1 or Sec-GPC: 1', async () => {
    const s = await site('dnt');
    const page = `https://${s.domain}/`;
    await expectDropped('dnt', { page, dnt: true }, { headers: { dnt: '1' } });
    await expectDropped('dnt', { page, dnt: true }, { headers: { 'sec-gpc': '1' } });
    expect(await statRows(s.id)).toBe(0);
  });

  it('counts the hit when the snippet did not ask for DNT, or the browser sent no signal', async () => {
    const s = await site('dnt-off');
    const page = `https://${s.domain}/`;
    await expectCounted(s.id, { page }, { headers: { dnt: '1', 'sec-gpc': '1' } });
    await expectCounted(s.id, { page, dnt: false }, { headers: { dnt: '1' } });
    await expectCounted(s.id, { page, dnt: true });
    await expectCounted(s.id, { page, dnt: true }, { headers: { dnt: '0' } });
  });
});
