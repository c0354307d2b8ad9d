/**
 * No pattern holds a website's log (docs/SECURITY.md): a `matches` filter's work is the
 * automaton's real steps (src/lib/pattern/pattern.ts `steps`), counted against each turn of the read
 * lane and against the whole search (`PATTERN_WORK`); a pattern whose program is too large is
 * refused before anything is read, and one that would take too long over the website's texts
 * is refused once it has taken its share — a 400 naming the pattern, in the Stats API v2 as on
 * API v1.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { MAX_PROGRAM, Pattern } from '../../../src/lib/pattern/pattern.ts';
import {
  DictionarySearch,
  PATTERN_WORK,
  patternTest,
  TooCostly,
} from '../../../src/website-log/object/read/filters/dictionary-search.ts';
import { Dictionary } from '../../../src/website-log/object/tables/dictionary.ts';
import { LogDb } from '../../../src/website-log/object/tables/log-db.ts';
import { websiteLog } from '../../../src/website-log/worker/partitions.ts';
import { call } from '../../support/api.ts';
import { logHit, record } from '../../support/event-log.ts';
import { site } from '../../support/ingest-fixtures.ts';

/** A log with one event and `texts` distinct pages of 300 characters in its dictionary. */
async function logWithLongTexts(texts: number) {
  const s = await site('patterns');
  const log = websiteLog(env, s.id);
  await record(log, logHit(s.id));
  await runInDurableObject(log, (_instance, state) => {
    new LogDb(state.storage.sql).rows(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
      INSERT INTO dict (id, value) SELECT 10000000 + i, '/' || printf('%.290c', 'a') || i FROM n`,
      texts,
    );
  });
  return { s, log };
}

/** Pathological patterns a program of at most `MAX_PROGRAM` states still takes. */
const SLOW = ['(.*){400}x', '(?:a?){300}a{300}'];

describe('a pattern counted by its real work', () => {
  it('costs states visited, not characters read', () => {
    const slow = new Pattern(SLOW[0] as string);
    slow.test(`/${'a'.repeat(299)}`);
    // Hundreds of states a character: what the old count (characters) missed.
    expect(slow.steps).toBeGreaterThan(300 * 400);
    const plain = new Pattern('^/blog/');
    plain.test(`/${'a'.repeat(299)}`);
    expect(plain.steps).toBeLessThan(10);
  });

  it('refuses a program larger than real patterns need, saying so', () => {
    for (const source of ['(?:a?){999}a{999}', '(.*){1000}x', 'a{1000}'])
      expect(() => new Pattern(source), source).toThrow(/pattern too large/);
    expect(() => new Pattern('[a-z]{1,300}b')).not.toThrow();
    expect(MAX_PROGRAM).toBeLessThanOrEqual(1_000);
  });

  it('stops a search past its work, every turn bounded by the steps it took', async () => {
    const { log } = await logWithLongTexts(35_000);
    await runInDurableObject(log, async (_instance, state) => {
      const db = new LogDb(state.storage.sql);
      const search = new DictionarySearch(db, new Dictionary(db));
      for (const pattern of SLOW) {
        const perTurn: number[] = [];
        const step = async <T>(work: () => T): Promise<T> => {
          perTurn.push(0);
          return work();
        };
        const test = patternTest(pattern, undefined);
        const counted = (text: string) => {
          const result = test(text);
          perTurn[perTurn.length - 1] = (perTurn.at(-1) ?? 0) + result.work;
          return result;
        };
        const refused = await search
          .find([{ key: pattern, pattern, where: null, test: counted }], step)
          .then(
            () => null,
            (err: unknown) => err,
          );
        expect(refused, pattern).toBeInstanceOf(TooCostly);
        expect((refused as Error).message).toContain(`'${pattern}'`);
        const total = perTurn.reduce((a, b) => a + b, 0);
        // One text costs at most three steps a state a character (a fork is visited and
        // pushes two), so: stopped at its budget give or take one text, long before the
        // 35,000 texts; and a turn is 1,000,000 steps give or take one text.
        const oneText = 3 * MAX_PROGRAM * 301;
        expect(total).toBeGreaterThan(PATTERN_WORK);
        expect(total).toBeLessThan(PATTERN_WORK + oneText);
        expect(Math.max(...perTurn)).toBeLessThan(1_000_000 + oneText);
      }
    });
  });

  it('refuses the question with a 400 naming the pattern, in v2 and API v1', async () => {
    const { s } = await logWithLongTexts(5_000);
    for (const pattern of [...SLOW, '(?:a?){999}a{999}']) {
      const v2 = await call('/api/v2/query', {
        method: 'POST',
        key: s.key,
        body: {
          json: {
            site_id: s.domain,
            date_range: ['2026-03-10', '2026-03-10'],
            metrics: ['visitors'],
            filters: [['matches', 'event:page', [pattern]]],
          },
        },
      });
      expect(v2.status, v2.text).toBe(400);
      expect(v2.text).toContain(JSON.stringify(pattern).slice(1, -1));
    }
    // A pattern that takes little answers as ever.
    const fine = await call('/api/v2/query', {
      method: 'POST',
      key: s.key,
      body: {
        json: {
          site_id: s.domain,
          date_range: ['2026-03-10', '2026-03-10'],
          metrics: ['visitors'],
          filters: [['matches', 'event:page', ['^/a+1$']]],
        },
      },
    });
    expect(fine.status, fine.text).toBe(200);
  });
});
