import type { D1Migration } from '@cloudflare/vitest-plugin';
import type { Env as SightlineEnv } from '../src/env.ts';

declare global {
  namespace Cloudflare {
    interface Env extends SightlineEnv {
      TEST_MIGRATIONS: D1Migration[];
      /** 3 requests per key and minute (vitest.config.ts), for the rate-limit tests. */
      TEST_RATE_LIMIT_TIGHT: RateLimit;
      /** A local R2 bucket (vitest.config.ts), the daily archive's in its tests. */
      TEST_ARCHIVE: R2Bucket;
    }
    interface GlobalProps {
      mainModule: typeof import('../src/index.ts');
    }
  }
}
