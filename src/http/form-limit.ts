/**
 * The rate limit of the password forms — log in, sign up, a statistics page's password, the
 * password change — per client IP (`RATE_LIMIT_FORMS`). This comes on top
 * of the per-account throttle of failed passwords (src/accounts/throttle.ts): the binding
 * stops one address from hammering the forms, the throttle stops many addresses from
 * guessing one password.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../lib/errors.ts';
import { clientAddressKey } from '../lib/ip.ts';
import { RETRY_AFTER_SECONDS, withinLimit } from '../lib/rate-limit.ts';

export const formRateLimit = (form: string) =>
  createMiddleware<AppEnv>(async function formRateLimit(c, next) {
    if (!(await withinLimit(c.env, 'RATE_LIMIT_FORMS', [clientAddressKey(c), form])))
      throw new ApiError(
        429,
        'This form was sent too often from your network. Try again in a minute.',
        undefined,
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      );
    await next();
  });
