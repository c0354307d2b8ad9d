/**
 * Periodic e-mail reports: who gets what for which period, exactly once, failures isolated
 * and retried, the message itself, and one-click unsubscribe.
 */
import { exports } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Mailer } from '../../../src/lib/mail.ts';
import { lastCompletePeriod } from '../../../src/reports/period.ts';
import { buildMessage, sendReports, unsubscribeToken } from '../../../src/reports/send.ts';
import { call, db, makeOwner, makeWebsite, oneOf, snapshot } from '../../support/api.ts';
import { runCron } from '../../support/cron.ts';
import { sendHit } from '../../support/hits.ts';
import { flushLog } from '../../support/ingest-fixtures.ts';
import { decodeQuotedPrintable, headerOf } from '../../support/mime.ts';

const NO_FIGURES = {
  visitors: 0,
  visits: 0,
  pageviews: 0,
  views_per_visit: 0,
  bounce_rate: 0,
  visit_duration: 0,
  events: 0,
};

const CONFIG = {
  from: 'reports@sightline.test',
  publicUrl: 'https://sightline.test',
  interval: 'weekly' as const,
};
// Monday 2026-11-23, 10:00 UTC: the week of 2026-11-16 has just completed everywhere west of +14.
const MONDAY = Date.parse('2026-11-23T10:00:00Z');

/** The decoded Subject header of a raw message. */
const subject = (raw: string) => headerOf(raw, 'Subject');

/** The header block of a raw message. */
const headers = (raw: string) => raw.split(/\r?\n\r?\n/, 1)[0] ?? '';

/** The text/plain part of a message, decoded. */
function plainText(raw: string): string {
  const part = raw.split(/Content-Type: text\/plain[^\r\n]*\r?\n/)[1] ?? '';
  const blank = part.search(/\r?\n\r?\n/);
  const head = part.slice(0, blank);
  const content =
    part
      .slice(blank)
      .trimStart()
      .split(/\r?\n--/)[0] ?? '';
  return /quoted-printable/i.test(head) ? decodeQuotedPrintable(content) : content;
}

function recorder(fail: (to: string) => boolean = () => false) {
  const sent: { from: string; to: string; raw: string }[] = [];
  const mailer: Mailer = {
    async send(message) {
      if (fail(message.to)) throw new Error('mail service unavailable');
      sent.push(message);
    },
  };
  return { sent, mailer };
}

describe('report periods', () => {
  it.each([
    ['2026-11-23T10:00:00Z', 'UTC', 'weekly', '2026-11-16', '2026-11-22'],
    ['2026-11-22T23:00:00Z', 'UTC', 'weekly', '2026-11-09', '2026-11-15'],
    ['2026-11-23T03:00:00Z', 'America/New_York', 'weekly', '2026-11-09', '2026-11-15'],
    ['2026-11-23T06:00:00Z', 'America/New_York', 'weekly', '2026-11-16', '2026-11-22'],
    ['2026-11-22T20:00:00Z', 'Pacific/Kiritimati', 'weekly', '2026-11-16', '2026-11-22'],
    ['2026-12-01T00:30:00Z', 'UTC', 'monthly', '2026-11-01', '2026-11-30'],
    ['2026-12-01T00:30:00Z', 'America/Los_Angeles', 'monthly', '2026-10-01', '2026-10-31'],
    ['2026-03-02T12:00:00Z', 'UTC', 'monthly', '2026-02-01', '2026-02-28'],
  ] as const)(
    'at %s in %s the last complete %s period is %s to %s',
    (at, tz, interval, from, to) => {
      expect(lastCompletePeriod(Date.parse(at), tz, interval)).toEqual({
        interval,
        from,
        to,
        key: `${interval}:${from}`,
      });
    },
  );
});

describe('sending reports', () => {
  let owner: Awaited<ReturnType<typeof makeOwner>>;
  let utc: { id: number; domain: string };
  let quiet: { id: number; domain: string };

  beforeAll(async () => {
    owner = await makeOwner('reports');
    utc = await makeWebsite(owner.key, { domain: 'report-utc.example.com', email: '1' });
    await makeWebsite(owner.key, {
      domain: 'report-ny.example.com',
      email: '1',
      timezone: 'America/New_York',
    });
    quiet = await makeWebsite(owner.key, { domain: 'report-off.example.com', email: '0' });
    vi.useFakeTimers({ toFake: ['Date'] });
    for (const [i, page] of ['/', '/pricing', '/', '/blog'].entries()) {
      vi.setSystemTime(new Date(`2026-11-${17 + i}T12:00:00Z`));
      await sendHit(
        { page: `https://${utc.domain}${page}`, referrer: 'https://www.google.com/' },
        { ip: `203.0.113.${i + 1}` },
      );
    }
    vi.setSystemTime(new Date('2026-11-10T12:00:00Z'));
    await sendHit({ page: `https://${utc.domain}/` }, { ip: '203.0.113.99' });
    vi.useRealTimers();
    // Into D1's roll-ups (the cron's reports flush first; these calls leave that out).
    await flushLog(utc.id);
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends each website with reports on its report once, and nothing to the others', async () => {
    const { sent, mailer } = recorder();
    expect(await sendReports(db(), mailer, CONFIG, MONDAY)).toEqual({
      sent: 2,
      failed: 0,
      skipped: 0,
    });
    expect(sent.map((m) => m.to)).toEqual([owner.email, owner.email]);
    const [first] = sent;
    expect(first?.from).toBe('reports@sightline.test');
    const raw = first?.raw ?? '';
    expect(subject(raw)).toBe(
      'report-utc.example.com: 4 visitors, 4 page views (week of 2026-11-16)',
    );
    expect(raw).toMatch(
      new RegExp(
        `^List-Unsubscribe: <https://sightline\\.test/reports/unsubscribe/${utc.id}/[0-9a-f]{32}>$`,
        'm',
      ),
    );
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    // The e-mail's own link carries the secret after `#`, which no request sends.
    expect(plainText(raw)).toMatch(
      new RegExp(`https://sightline\\.test/reports/unsubscribe#${utc.id}\\.[0-9a-f]{32}$`, 'm'),
    );
    expect(raw).toContain('Content-Type: text/plain');
    expect(raw).toContain('Content-Type: text/html');
    expect(raw).not.toContain(quiet.domain);
    // The six figures with their change: four one-page visits this week, one the week before.
    const text = plainText(raw);
    expect(text).toContain('Visitors:        4 (+300% vs the period before)');
    expect(text).toContain('Visits:          4 (+300% vs the period before)');
    expect(text).toContain('Page views:      4 (+300% vs the period before)');
    expect(text).toContain('Views per visit: 1.00 (0% vs the period before)');
    expect(text).toContain('Bounce rate:     100% (0% vs the period before)');
    expect(text).toContain('Visit duration:  0s (no change)');
    // The same run again, or a retried cron: nothing is sent twice (websites that have their
    // report are not even selected).
    const again = recorder();
    expect(await sendReports(db(), again.mailer, CONFIG, MONDAY + 3_600_000)).toEqual({
      sent: 0,
      failed: 0,
      skipped: 0,
    });
    expect(again.sent).toEqual([]);
    const claims = (await snapshot('report_sends')) as { sent_at: number | null }[];
    expect(claims.length).toBeGreaterThan(0);
    expect(claims.every((r) => r.sent_at !== null)).toBe(true);
  });

  it("isolates one website's failure and retries it on the next run", async () => {
    const nextWeek = MONDAY + 7 * 86_400_000;
    const failing = recorder(() => true);
    const result = await sendReports(db(), failing.mailer, CONFIG, nextWeek);
    expect(result).toEqual({ sent: 0, failed: 2, skipped: 0 });
    const working = recorder();
    expect(await sendReports(db(), working.mailer, CONFIG, nextWeek + 3_600_000)).toEqual({
      sent: 2,
      failed: 0,
      skipped: 0,
    });
  });

  it('keeps going after one failure in a run', async () => {
    const weekAfter = MONDAY + 14 * 86_400_000;
    let calls = 0;
    const flaky: Mailer = {
      async send() {
        calls++;
        if (calls === 1) throw new Error('first send fails');
      },
    };
    expect(await sendReports(db(), flaky, CONFIG, weekAfter)).toEqual({
      sent: 1,
      failed: 1,
      skipped: 0,
    });
    expect(await sendReports(db(), recorder().mailer, CONFIG, weekAfter + 1)).toEqual({
      sent: 1,
      failed: 0,
      skipped: 0,
    });
  });

  it('handles a bounded batch per run and continues on the next', async () => {
    const later = MONDAY + 21 * 86_400_000;
    expect(await sendReports(db(), recorder().mailer, CONFIG, later, { batch: 1 })).toEqual({
      sent: 1,
      failed: 0,
      skipped: 0,
    });
    expect(await sendReports(db(), recorder().mailer, CONFIG, later + 1, { batch: 1 })).toEqual({
      sent: 1,
      failed: 0,
      skipped: 0,
    });
    expect(await sendReports(db(), recorder().mailer, CONFIG, later + 2, { batch: 1 })).toEqual({
      sent: 0,
      failed: 0,
      skipped: 0,
    });
  });

  it("sends the week of the website's own time zone", async () => {
    // 03:00 UTC on Monday is still Sunday evening in New York: its last complete week is the one before.
    const early = Date.parse('2026-12-28T03:00:00Z');
    const { sent, mailer } = recorder();
    await sendReports(db(), mailer, CONFIG, early);
    const subjects = sent.map((m) => subject(m.raw));
    expect(subjects).toEqual([
      'report-utc.example.com: 0 visitors, 0 page views (week of 2026-12-21)',
      'report-ny.example.com: 0 visitors, 0 page views (week of 2026-12-14)',
    ]);
  });

  it('lets no stored value start a header of its own', () => {
    const raw = buildMessage(
      {
        domain: 'evil.example.com\r\nBcc: victim@example.com',
        period: {
          interval: 'weekly',
          from: '2026-11-16',
          to: '2026-11-22',
          key: 'weekly:2026-11-16',
        },
        figures: { ...NO_FIGURES, visitors: 1, visits: 1, pageviews: 1, views_per_visit: 1 },
        previous: NO_FIGURES,
        top: [
          {
            title: 'Top pages',
            rows: [{ value: '/<script>alert(1)</script>\r\nBcc: x@example.com', count: 1 }],
          },
        ],
        notes: ['2026-11-17: <b>sent</b>\r\nBcc: y@example.com'],
        statsUrl: 'https://sightline.test/stats/x',
        unsubscribeUrl: 'https://sightline.test/reports/unsubscribe/1/00',
        unsubscribePage: 'https://sightline.test/reports/unsubscribe#1.00',
      },
      'owner@example.com',
      CONFIG,
    );
    expect(headers(raw)).not.toMatch(/^Bcc:/im);
    // Values stay on their line in the bodies too, and are escaped in HTML.
    expect(raw.split(/\r?\n/).filter((line) => line.startsWith('Bcc:'))).toEqual([]);
    const html = raw.slice(raw.indexOf('Content-Type: text/html'));
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('Annotations');
    expect(html).not.toContain('<b>sent</b>');
    expect(subject(raw)).toBe(
      'evil.example.com Bcc: victim@example.com: 1 visitors, 1 page views (week of 2026-11-16)',
    );
  });
});

describe('one-click unsubscribe', () => {
  it('turns reports off with a valid signed link, also without an Origin (mail clients)', async () => {
    const { key } = await makeOwner('unsub');
    const site = await makeWebsite(key, { domain: 'unsub.example.com', email: '1' });
    const token = await unsubscribeToken(db(), site.id);
    const page = await exports.default.fetch(
      `https://sightline.test/reports/unsubscribe/${site.id}/${token}`,
    );
    expect(page.status).toBe(200);
    expect(oneOf(await call(`/api/v1/websites/${site.id}`, { key })).data.email).toBe(1);
    const post = await exports.default.fetch(
      new Request(`https://sightline.test/reports/unsubscribe/${site.id}/${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      }),
    );
    expect(post.status).toBe(200);
    expect(oneOf(await call(`/api/v1/websites/${site.id}`, { key })).data.email).toBe(0);
  });

  it("refuses a wrong token or another website's token", async () => {
    const { key } = await makeOwner('unsub2');
    const a = await makeWebsite(key, { domain: 'unsub-a.example.com', email: '1' });
    const b = await makeWebsite(key, { domain: 'unsub-b.example.com', email: '1' });
    const tokenA = await unsubscribeToken(db(), a.id);
    for (const url of [
      `/reports/unsubscribe/${b.id}/${tokenA}`,
      `/reports/unsubscribe/${a.id}/${'0'.repeat(32)}`,
    ]) {
      const res = await exports.default.fetch(
        new Request(`https://sightline.test${url}`, { method: 'POST' }),
      );
      expect(res.status).toBe(404);
    }
    expect(oneOf(await call(`/api/v1/websites/${b.id}`, { key })).data.email).toBe(1);
  });
});

describe('the cron handler', () => {
  it('sends reports through the send_email binding', async () => {
    const { key } = await makeOwner('cron');
    await makeWebsite(key, { domain: 'cron-report.example.com', email: '1' });
    const at = Date.parse('2027-01-04T10:00:00Z');
    await runCron(at);
    const rows = (await snapshot('report_sends')) as { period: string; sent_at: number | null }[];
    expect(
      rows.filter((r) => r.period === 'weekly:2026-12-28').every((r) => r.sent_at !== null),
    ).toBe(true);
    expect(rows.filter((r) => r.period === 'weekly:2026-12-28').length).toBeGreaterThan(0);
  });
});
