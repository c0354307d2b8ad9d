import {
  applyD1Migrations,
  listDurableObjectIds,
  reset,
  runInDurableObject,
} from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { vi } from 'vitest';

// Runs before each test file. Files share a runtime (vitest.config.ts), so each starts from
// nothing, as in a runtime of its own. The previous file's event logs are emptied, alarms
// included (reset() leaves alarms, and one firing later would flush an old log into this
// file's D1); reset() empties D1 and every other store and drops the objects' instances; the
// Worker's modules are evaluated afresh (no cached website or secret); and no clock or spy a
// file left behind stays.
vi.useRealTimers();
vi.restoreAllMocks();
for (const id of await listDurableObjectIds(env.WEBSITE_LOG)) {
  await runInDurableObject(env.WEBSITE_LOG.get(id), async (_log, state) => {
    await state.storage.deleteAlarm();
    await state.storage.deleteAll();
  });
}
await reset();
await emptyLeftoverD1();
vi.resetModules();
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

/**
 * reset() now and then leaves D1 as the previous file left it (seen after a file whose event
 * logs were still flushing into it): then its rows are deleted here, the tables and the
 * applied migrations kept, and its ids start again from 1 as on new storage.
 */
async function emptyLeftoverD1() {
  const { results } = await env.DB.prepare(
    `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
      AND name NOT LIKE '_cf_%' AND name != 'd1_migrations'`,
  ).all<{ name: string }>();
  if (results.length === 0) return;
  const sequences = await env.DB.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'",
  ).first();
  await env.DB.batch([
    env.DB.prepare('PRAGMA defer_foreign_keys = on'),
    ...results.map(({ name }) => env.DB.prepare(`DELETE FROM "${name}"`)),
    ...(sequences ? [env.DB.prepare('DELETE FROM sqlite_sequence')] : []),
  ]);
}
