/**
 * A long User-Agent costs little: the pipeline reads only its first characters (the cap of
 * src/ingest/steps/device.ts) for the bot check, the device and the visitor hash alike.
 */
import { describe, expect, it } from 'vitest';
import { USER_AGENT_LIMIT } from '../../../src/ingest/steps/device.ts';
import { CHROME_WINDOWS, rollups, sendHit } from '../../support/hits.ts';
import { site } from '../../support/ingest-fixtures.ts';

const pad = (n: number) => `; ${'x'.repeat(n)}`;

describe('POST /api/event with a long User-Agent', () => {
  it('counts a hit whose bot marker lies beyond the cap, as the browser it starts as', async () => {
    const s = await site('long-ua');
    const ua = `${CHROME_WINDOWS}${pad(USER_AGENT_LIMIT)} HeadlessChrome/131.0.0.0 Googlebot/2.1`;
    const res = await sendHit({ page: `https://${s.domain}/` }, { ua, ip: '203.0.113.40' });
    expect({ status: res.status, reason: res.dropReason }).toEqual({ status: 202, reason: null });
    const counted = await rollups(s.id);
    expect(counted.browser).toEqual({ Chrome: 1 });
    expect(counted.device).toEqual({ desktop: 1 });
  });

  it('drops a bot whose marker is within the cap, however long the rest', async () => {
    const s = await site('long-bot');
    const ua = `Mozilla/5.0 (compatible; Googlebot/2.1)${pad(36_000)}`;
    const res = await sendHit({ page: `https://${s.domain}/` }, { ua });
    expect({ status: res.status, reason: res.dropReason }).toEqual({ status: 202, reason: 'bot' });
  });

  it('does not see a TV marker beyond the cap', async () => {
    const s = await site('long-tv');
    const ua = `Mozilla/5.0 (Linux; Tizen 6.5) AppleWebKit/537.36${pad(USER_AGENT_LIMIT)} TV Safari/537.36`;
    const res = await sendHit({ page: `https://${s.domain}/` }, { ua, ip: '203.0.113.41' });
    expect({ status: res.status, reason: res.dropReason }).toEqual({ status: 202, reason: null });
    // Counted, as the device the first characters show: not a TV.
    const devices = (await rollups(s.id)).device ?? {};
    expect(Object.values(devices)).toEqual([1]);
    expect(Object.keys(devices)).not.toContain('tv');
  });

  it('hashes the capped User-Agent: User-Agents that differ only beyond the cap are one visitor', async () => {
    const s = await site('long-hash');
    const base = `${CHROME_WINDOWS}${pad(USER_AGENT_LIMIT)}`;
    for (const tail of ['a', 'b', 'c']) {
      const res = await sendHit(
        { page: `https://${s.domain}/${tail}` },
        { ua: `${base}${tail}`, ip: '203.0.113.42' },
      );
      expect(res.status).toBe(202);
    }
    const counted = await rollups(s.id);
    expect(counted.pageviews && Object.values(counted.pageviews)).toEqual([3]);
    expect(counted.visitors && Object.values(counted.visitors)).toEqual([1]);
    // Within the cap a different User-Agent is still another visitor.
    await sendHit(
      { page: `https://${s.domain}/` },
      { ua: CHROME_WINDOWS.replace('131.0', '130.0'), ip: '203.0.113.42' },
    );
    expect(Object.values((await rollups(s.id)).visitors ?? {})).toEqual([2]);
  });
});

describe('POST /api/event with names of JavaScript built-ins for a browser or a platform', () => {
  // Lookup tables of names are Maps: a browser called `hasOwnProperty` or a platform hint
  // `"__proto__"` is a name like any other, not a property of every object (which could not
  // cross to the event log, and the hit would have been lost with a 503).
  it.each([
    ['a browser named after an Object method', 'hasOwnProperty/2 (x)', {}, 'hasOwnProperty'],
    ['a browser named constructor', 'constructor/2 (x)', {}, 'constructor'],
    [
      'a platform hint "__proto__"',
      CHROME_WINDOWS,
      { 'sec-ch-ua-platform': '"__proto__"' },
      'Chrome',
    ],
    [
      'a platform hint "constructor"',
      CHROME_WINDOWS,
      { 'sec-ch-ua-platform': 'constructor' },
      'Chrome',
    ],
  ])('counts %s', async (_what, ua, headers, browser) => {
    const s = await site('builtin-names');
    const res = await sendHit({ page: `https://${s.domain}/` }, { ua, headers });
    expect({ status: res.status, reason: res.dropReason }).toEqual({ status: 202, reason: null });
    expect((await rollups(s.id)).browser).toEqual({ [browser]: 1 });
  });
});
