import { applyD1Migrations, reset } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { vi } from 'vitest';

// Runs before each test file. Files share a runtime (vitest.config.ts), so each starts from
// nothing, as in a runtime of its own: no D1 rows, no Durable Object storage or instance (a
// previous file's alarms included), and the Worker's modules evaluated afresh (no cached
// website or secret).
await reset();
vi.resetModules();
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
