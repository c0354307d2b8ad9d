import { availableParallelism } from 'node:os';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import parquetWorker from './src/parquet/parquet-worker.ts';

/**
 * Pure functions' tests need no Workers runtime and run in Node, where a test file costs no
 * isolate; only the time-zone test runs in workerd, whose time-zone data it checks.
 */
const WORKERD_UNIT_TESTS = ['test/unit/timezone.test.ts'];

/**
 * Timeouts are guards against a hang, never measures: the suite waits for events (a hit
 * answered, an e-mail written, a limiter's window), and a busy machine only makes it slower.
 * A test or hook ends with a failure after ten minutes; `expect.poll` (and `until`,
 * test/support/until.ts) give up after five, so that what was awaited is named.
 */
const GUARDS = {
  testTimeout: 10 * 60_000,
  hookTimeout: 10 * 60_000,
  expect: { poll: { timeout: 5 * 60_000, interval: 100 } },
};

const limiter = (namespace_id: string, limit: number) => ({
  namespace_id,
  simple: { limit, period: 60 as const },
});

export default defineConfig({
  test: {
    // One file at a time a core, and at least two: much of a test's time is spent waiting on
    // workerd, wrangler or a browser, so even a 2-core machine runs two (Vitest's default,
    // cores - 1, would run one).
    maxWorkers: Math.max(2, availableParallelism()),
    // Closing workerd, wrangler and browsers at the end may take a while on a busy machine.
    teardownTimeout: 5 * 60_000,
    projects: [
      {
        // The Worker's tests run inside workerd against a real local D1 built from the real
        // migrations in `drizzle/` (applied by test/setup.ts), each file on empty storage.
        plugins: [
          cloudflareTest(async () => ({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              bindings: { TEST_MIGRATIONS: await readD1Migrations('./drizzle') },
              // The Parquet Worker (wrangler.parquet.toml) answers here in Node, as its own
              // Worker would behind the service binding.
              serviceBindings: { PARQUET: (request: Request) => parquetWorker.fetch(request) },
              // A local R2 bucket for the daily archive's tests (test/integration/archive/), which
              // pass it as ARCHIVE: every other test runs without one, as wrangler.toml does.
              r2Buckets: ['TEST_ARCHIVE'],
              // The rate limiters of wrangler.toml count across test files; here they are
              // raised out of the way, and test/integration/security/rate-limits.test.ts runs the app
              // with the tight TEST_RATE_LIMIT_* limiters instead. (test/e2e checks the real
              // configuration through wrangler.)
              ratelimits: {
                RATE_LIMIT_ADDRESSES: limiter('7104', 1_000_000),
                RATE_LIMIT_EVENTS: limiter('7101', 1_000_000),
                RATE_LIMIT_API: limiter('7102', 1_000_000),
                RATE_LIMIT_FORMS: limiter('7103', 1_000_000),
                RATE_LIMIT_READS: limiter('7105', 1_000_000),
                RATE_LIMIT_PUBLIC_READS: limiter('7106', 1_000_000),
                RATE_LIMIT_WEBSITE_READS: limiter('7107', 1_000_000),
                TEST_RATE_LIMIT_TIGHT: limiter('7191', 3),
              },
            },
          })),
        ],
        test: {
          name: 'worker',
          // One workerd runtime per worker process instead of one per file (starting one takes
          // about two seconds); test/setup.ts gives every file empty storage and fresh modules,
          // as a runtime of its own would.
          isolate: false,
          include: [...WORKERD_UNIT_TESTS, 'test/integration/**/*.test.{ts,tsx}'],
          setupFiles: ['./test/setup.ts'],
          ...GUARDS,
        },
      },
      {
        test: {
          name: 'unit',
          // Pure functions: nothing to isolate between files.
          isolate: false,
          include: ['test/unit/**/*.test.ts'],
          exclude: WORKERD_UNIT_TESTS,
          environment: 'node',
          ...GUARDS,
        },
      },
      {
        // Command-line tools and real-browser tests run in Node, as a user runs them.
        test: {
          name: 'node',
          include: ['test/cli/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          environment: 'node',
          ...GUARDS,
        },
      },
    ],
  },
});
