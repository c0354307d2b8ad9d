/**
 * Body limits beside their routes (docs/SECURITY.md, row 4): Hono's `bodyLimit`, which stops
 * reading a body at its limit, chunked bodies without `Content-Length` too, and answers 413.
 * A route that takes more than the default names its own limit where it is declared
 * (`routeBodyLimit`); every other route of an app gets the app's default
 * (`defaultBodyLimit`), which steps aside for a route that set its own.
 *
 * @example
 * api.use('*', defaultBodyLimit(64 * 1024, 'The request body is too large.'));
 * api.post('/imports', routeBodyLimit(100 * 2 ** 20, 'The file is too large.'), upload);
 */
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import { matchedRoutes } from 'hono/route';
import type { MiddlewareHandler } from 'hono/types';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../lib/errors.ts';

/** The limits routes set for themselves, by the handler that names each in its route. */
const ownLimits = new WeakMap<MiddlewareHandler, MiddlewareHandler>();

/** A 413 with `message` past `maxSize` bytes. */
const limitOf = (maxSize: number, message: string) =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError(413, message);
    },
  });

/**
 * A route's own body limit, named among its handlers. It is applied where the app's default
 * is (`defaultBodyLimit`), before anything of the app reads the body.
 */
export function routeBodyLimit(maxSize: number, message: string): MiddlewareHandler {
  const named: MiddlewareHandler = async function routeBodyLimit(_c, next) {
    await next();
  };
  ownLimits.set(named, limitOf(maxSize, message));
  return named;
}

/** The body limit of every route of an app: its own (`routeBodyLimit`), or this default. */
export function defaultBodyLimit(maxSize: number, message: string) {
  const fallback = limitOf(maxSize, message);
  return createMiddleware<AppEnv>(async function defaultBodyLimit(c, next) {
    const own = matchedRoutes(c)
      .map((r) => ownLimits.get(r.handler))
      .find((limit) => limit !== undefined);
    return (own ?? fallback)(c, next);
  });
}
