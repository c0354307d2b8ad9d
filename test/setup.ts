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
vi.resetModules();
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
