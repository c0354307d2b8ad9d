/**
 * Which migrations a tool applies before it works (scripts/lib/d1.ts). Only a database with
 * no `d1_migrations` table has none applied; a database busy for a moment (another process's
 * killed write being recovered) is asked again, and any other failure is the tool's error —
 * never a reason to apply every migration again over tables that exist.
 */
import { describe, expect, it } from 'vitest';
import { pendingMigrations } from '../../scripts/lib/d1.ts';

/** A D1 whose `SELECT name FROM d1_migrations` answers each of `answers` in turn. */
function database(answers: Array<Error | string[]>) {
  let asked = 0;
  const d1 = {
    prepare: () => ({
      all: async () => {
        const answer = answers[Math.min(asked++, answers.length - 1)];
        if (answer instanceof Error) throw answer;
        return { results: (answer ?? []).map((name) => ({ name })) };
      },
    }),
  };
  return { d1: d1 as unknown as D1Database, asked: () => asked };
}

const busy = new Error(
  'D1_ERROR: database is locked: SQLITE_BUSY (extended: SQLITE_BUSY_RECOVERY)',
);

describe('the migrations a tool applies', () => {
  it('are all of them on a database with no migrations table', async () => {
    const { d1 } = database([new Error('D1_ERROR: no such table: d1_migrations: SQLITE_ERROR')]);
    const pending = await pendingMigrations(d1);
    expect(pending.length).toBeGreaterThan(20);
    expect(pending[0]).toMatch(/^0000_/);
  });

  it('are those not yet recorded', async () => {
    const all = await pendingMigrations(database([new Error('no such table: d1_migrations')]).d1);
    const { d1 } = database([all.slice(0, -1)]);
    expect(await pendingMigrations(d1)).toEqual(all.slice(-1));
  });

  it('are asked again while the database is busy, not taken for none applied', async () => {
    const all = await pendingMigrations(database([new Error('no such table: d1_migrations')]).d1);
    const { d1, asked } = database([busy, busy, all]);
    expect(await pendingMigrations(d1, { wait: 1 })).toEqual([]);
    expect(asked()).toBe(3);
  });

  it('fail the tool on any other error, or a database busy for good', async () => {
    const broken = database([new Error('D1_ERROR: disk I/O error')]);
    await expect(pendingMigrations(broken.d1, { wait: 1 })).rejects.toThrow('disk I/O error');
    expect(broken.asked()).toBe(1);
    await expect(pendingMigrations(database([busy]).d1, { wait: 1 })).rejects.toThrow(
      'SQLITE_BUSY',
    );
  });
});
