/**
 * The report cron under pressure: a run's work is bounded by its query budget and reaches
 * the websites that still owe their report however many have it already; one website's
 * failed claim is that website's failure only; and a report that went out is never sent
 * again, even when marking it sent fails.
 */
import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { QueryBudget } from '../../../src/db/query-budget.ts';
import type { Mailer } from '../../../src/lib/mail.ts';
import { runScheduled } from '../../../src/maintenance/scheduled.ts';
import { REPORT_QUERIES, sendReports } from '../../../src/reports/send.ts';
import { db, makeOwner } from '../../support/api.ts';
import { type Fault, injectD1Failure, withQueryLimit } from '../../support/d1-faults.ts';

const HOUR = 3_600_000;
const WEEK = 7 * 24 * HOUR;
/** Monday 2027-02-08, 10:00 UTC: the week of 2027-02-01 is complete in UTC. */
const MONDAY = Date.parse('2027-02-08T10:00:00Z');
const CONFIG = {
  from: 'reports@sightline.test',
  publicUrl: 'https://sightline.test',
  interval: 'weekly' as const,
};

let ownerId: number;
let fault: Fault | undefined;

beforeAll(async () => {
  ownerId = (await makeOwner('cron-reports')).id;
});

afterEach(async () => {
  fault?.restore();
  fault = undefined;
  // Each test sees only its own websites owing a report.
  await env.DB.prepare('UPDATE websites SET email = 0').run();
});

/** `n` UTC websites with reports on, `${prefix}-1…n.example.net`; their ids in order. */
async function websites(prefix: string, n: number): Promise<number[]> {
  await env.DB.prepare(
    `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
     INSERT INTO websites (owner_id, domain, email, timezone, created_at, updated_at)
     SELECT ?, ? || '-' || i || '.example.net', 1, 'UTC', 0, 0 FROM k`,
  )
    .bind(n, ownerId, prefix)
    .run();
  const { results } = await env.DB.prepare(
    "SELECT id FROM websites WHERE domain LIKE ? || '-%' ORDER BY id",
  )
    .bind(prefix)
    .all<{ id: number }>();
  return results.map((r) => r.id);
}

/** The report rows of these websites for a period: website id → sent (true) or claimed. */
async function claims(ids: number[], period: string) {
  const { results } = await env.DB.prepare(
    'SELECT website_id, sent_at FROM report_sends WHERE period = ? AND website_id IN (SELECT value FROM json_each(?)) ORDER BY website_id',
  )
    .bind(period, JSON.stringify(ids))
    .all<{ website_id: number; sent_at: number | null }>();
  return new Map(results.map((r) => [r.website_id, r.sent_at !== null]));
}

/** A mailer that records the domain of every report it sends. */
function recorder() {
  const domains: string[] = [];
  const mailer: Mailer = {
    async send({ raw }) {
      // The report's link to its statistics page names the website.
      domains.push(/\/stats\/([^?\s]+)\?/.exec(raw)?.[1] ?? '?');
    },
  };
  return { domains, mailer };
}

const domainOf = (id: number, domains: Map<number, string>) => domains.get(id) ?? String(id);

async function domainsOf(ids: number[]) {
  const { results } = await env.DB.prepare(
    'SELECT id, domain FROM websites WHERE id IN (SELECT value FROM json_each(?))',
  )
    .bind(JSON.stringify(ids))
    .all<{ id: number; domain: string }>();
  return new Map(results.map((r) => [r.id, r.domain]));
}

describe('a run is bounded and reaches the websites that owe their report', () => {
  it('past many websites that have their report, under a query limit, in bounded runs', async () => {
    const period = 'weekly:2027-02-01';
    const ids = await websites('bulk', 150);
    const done = ids.slice(0, 140);
    const owing = ids.slice(140);
    await env.DB.prepare(
      `INSERT INTO report_sends (website_id, period, claimed_at, sent_at)
       SELECT value, ?, ?, ? FROM json_each(?)`,
    )
      .bind(period, MONDAY - HOUR, MONDAY - HOUR, JSON.stringify(done))
      .run();

    const mails: string[] = [];
    const email = {
      async send(message: { to: string }) {
        mails.push(message.to);
      },
    } as unknown as SendEmail;
    // Each run is one invocation with D1's query limit (here 100); the run's budget is 80.
    const cron = async (at: number) => {
      const limited = withQueryLimit(env.DB, 100);
      await runScheduled(
        createScheduledController({ cron: '0 * * * *', scheduledTime: at }),
        { ...env, DB: limited.binding, EMAIL: email },
        { queryBudget: 80 },
      );
      return limited.sent();
    };
    const first = await cron(MONDAY);
    expect(first).toBeLessThanOrEqual(80);
    const afterFirst = await claims(owing, period);
    expect(afterFirst.size).toBeGreaterThan(0);
    expect([...afterFirst.values()].every(Boolean)).toBe(true);
    for (let run = 1; run <= 3 && (await claims(owing, period)).size < owing.length; run++) {
      expect(await cron(MONDAY + run * HOUR)).toBeLessThanOrEqual(80);
    }
    const sent = await claims(owing, period);
    expect([...sent.keys()]).toEqual(owing);
    expect([...sent.values()].every(Boolean)).toBe(true);
    // Exactly one message per website that owed one; none for the others.
    expect(mails).toHaveLength(owing.length);
    // A run with nothing to do: its maintenance's statements (among them the imports' sweep
    // and its rows of deleted websites, and the expired invitations' purge) and the one read
    // of the alerts due.
    const again = await cron(MONDAY + 5 * HOUR);
    expect(again).toBeLessThanOrEqual(23);
    expect(mails).toHaveLength(owing.length);
  });

  it("a claim that fails is that website's failure only; the next run sends it", async () => {
    const at = MONDAY + WEEK;
    const period = 'weekly:2027-02-08';
    const ids = await websites('claim', 4);
    const failing = ids[1] as number;
    fault = injectD1Failure({
      matches: (sql) => /^insert into "report_sends"/i.test(sql),
      bound: (params) => params.includes(failing),
    });
    const first = recorder();
    expect(await sendReports(db(), first.mailer, CONFIG, at)).toEqual({
      sent: 3,
      failed: 1,
      skipped: 0,
    });
    expect(fault.failed.length).toBeGreaterThan(0);
    fault.restore();
    const names = await domainsOf(ids);
    expect(first.domains.sort()).toEqual(
      ids.filter((id) => id !== failing).map((id) => domainOf(id, names)),
    );
    const second = recorder();
    expect(await sendReports(db(), second.mailer, CONFIG, at + HOUR)).toEqual({
      sent: 1,
      failed: 0,
      skipped: 0,
    });
    expect(second.domains).toEqual([domainOf(failing, names)]);
    expect([...(await claims(ids, period)).values()]).toEqual([true, true, true, true]);
  });
});

describe('a report is never sent twice', () => {
  it('when marking it sent fails: the claim stays and no later run sends it again', async () => {
    const at = MONDAY + 2 * WEEK;
    const period = 'weekly:2027-02-15';
    const ids = await websites('unmarked', 1);
    fault = injectD1Failure({ matches: (sql) => /^update "report_sends"/i.test(sql) });
    const { domains, mailer } = recorder();
    const run = await sendReports(db(), mailer, CONFIG, at);
    const markTries = fault.failed.length;
    fault.restore();
    // The next hour, and long after a claim would once have been taken over as stale.
    for (const later of [at + HOUR, at + 2 * HOUR, at + 30 * HOUR])
      await sendReports(db(), mailer, CONFIG, later);
    expect(domains).toHaveLength(1);
    expect(run).toEqual({ sent: 1, failed: 0, skipped: 0 });
    // Marking was tried more than once before it was given up.
    expect(markTries).toBeGreaterThan(1);
    expect(await claims(ids, period)).toEqual(new Map([[ids[0], false]]));
  });

  it('a mark that fails once is retried: the report is sent once and marked', async () => {
    const at = MONDAY + 3 * WEEK;
    const period = 'weekly:2027-02-22';
    const ids = await websites('retried', 1);
    let failures = 0;
    fault = injectD1Failure({
      matches: (sql) => /^update "report_sends"/i.test(sql) && failures++ === 0,
    });
    const first = recorder();
    expect(await sendReports(db(), first.mailer, CONFIG, at)).toEqual({
      sent: 1,
      failed: 0,
      skipped: 0,
    });
    fault.restore();
    expect(first.domains).toHaveLength(1);
    expect(await claims(ids, period)).toEqual(new Map([[ids[0], true]]));
  });

  it('a failed send gives its claim back, and only then is the report sent again', async () => {
    const at = MONDAY + 4 * WEEK;
    const period = 'weekly:2027-03-01';
    const ids = await websites('resend', 1);
    const failingMailer: Mailer = {
      async send() {
        throw new Error('mail service unavailable');
      },
    };
    expect(await sendReports(db(), failingMailer, CONFIG, at)).toEqual({
      sent: 0,
      failed: 1,
      skipped: 0,
    });
    expect(await claims(ids, period)).toEqual(new Map());
    const retry = recorder();
    expect(await sendReports(db(), retry.mailer, CONFIG, at + HOUR)).toEqual({
      sent: 1,
      failed: 0,
      skipped: 0,
    });
    expect(await claims(ids, period)).toEqual(new Map([[ids[0], true]]));
  });
});

describe('the query budget', () => {
  it(`one report costs at most REPORT_QUERIES statements, retries included`, async () => {
    expect(REPORT_QUERIES).toBe(16);
    const at = MONDAY + 5 * WEEK;
    await websites('cost', 1);
    // The costliest path: the mark fails on every try.
    fault = injectD1Failure({ matches: (sql) => /^update "report_sends"/i.test(sql) });
    const queries = new QueryBudget(1_000);
    expect(await sendReports(db(), recorder().mailer, CONFIG, at, { queries })).toEqual({
      sent: 1,
      failed: 0,
      skipped: 0,
    });
    // Two reads find the websites that owe a report; the rest is the report's.
    expect(queries.used - 2).toBeLessThanOrEqual(REPORT_QUERIES);
    fault.restore();
  });

  it('a run stops where its budget ends, before beginning a report it cannot finish', async () => {
    const at = MONDAY + 6 * WEEK;
    const period = 'weekly:2027-03-15';
    const ids = await websites('budget', 3);
    // Room for the two reads that find the websites, and for one report.
    for (const run of [1, 2, 3]) {
      const queries = new QueryBudget(2 + REPORT_QUERIES);
      expect(
        await sendReports(db(), recorder().mailer, CONFIG, at + run * HOUR, { queries }),
      ).toEqual({ sent: 1, failed: 0, skipped: 0 });
      expect(queries.used).toBeLessThanOrEqual(queries.limit);
      expect((await claims(ids, period)).size).toBe(run);
    }
    // Too small for a report: nothing is begun.
    const tiny = new QueryBudget(REPORT_QUERIES);
    await websites('budget-more', 1);
    expect(
      await sendReports(db(), recorder().mailer, CONFIG, at + 4 * HOUR, { queries: tiny }),
    ).toEqual({ sent: 0, failed: 0, skipped: 0 });
    expect(tiny.used).toBe(0);
  });
});
