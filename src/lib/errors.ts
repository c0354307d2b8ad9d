/**
 * One error type for the whole Worker. Routes and pages throw; `errorAnswer` turns every
 * error into one answer per kind — a status, `{"message": …, "status": N}` (plus `errors`
 * for validation failures) and headers — which the app's one `onError` (src/app/app.tsx) sends
 * as JSON to API and tracker clients and as an HTML page to everyone else.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { logError, requestContext } from './log.ts';

/** Field name → messages, in the order the fields were checked. */
export type FieldErrors = Record<string, string[]>;

export class ApiError extends HTTPException {
  constructor(
    readonly statusCode: ContentfulStatusCode,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers: Record<string, string> = {},
  ) {
    super(statusCode, { message });
  }

  body(): Record<string, unknown> {
    return this.errors
      ? { message: this.message, errors: this.errors, status: this.statusCode }
      : { message: this.message, status: this.statusCode };
  }
}

export const unauthenticated = () =>
  new ApiError(401, 'Unauthenticated.', undefined, { 'WWW-Authenticate': 'Bearer' });

export const notFound = () => new ApiError(404, 'Resource not found.');

/** A 422 whose message is the first error, naming every bad field in `errors`. */
export function validationFailed(errors: FieldErrors): ApiError {
  const first = Object.values(errors)[0]?.[0] ?? 'The given data was invalid.';
  return new ApiError(422, first, errors);
}

/** The 422 of a range of dates whose `to` comes before its `from` (`YYYY-MM-DD` strings). */
export function checkDateOrder(from: string, to: string): void {
  if (to < from)
    throw validationFailed({ to: ['The to field must be a date after or equal to from.'] });
}

/**
 * Something the answer needs (the event log, D1) did not answer now: a 503 that asks the
 * client to try again in a few seconds. Domain modules throw it rather than name a status.
 */
export const tryAgainSoon = (message: string) =>
  new ApiError(503, message, undefined, { 'Retry-After': '5' });

/** A page form that failed the CSRF checks (its Origin, or its per-session token). */
export const formNotVerified = () =>
  new ApiError(
    403,
    'This form could not be verified: it has expired or was not sent from this site. Reload the page and try again.',
  );

/** What an error answers, whatever the format. */
export type ErrorAnswer = {
  status: ContentfulStatusCode;
  body: { message: string; status: number; errors?: FieldErrors };
  headers: Record<string, string>;
};

/** Known errors keep their status and message; anything else is a 500 without details (logged). */
export function errorAnswer(err: Error, c: Context): ErrorAnswer {
  if (err instanceof ApiError) {
    return {
      status: err.statusCode,
      body: err.body() as ErrorAnswer['body'],
      headers: err.headers,
    };
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    return { status, body: { message: err.message || 'Request failed.', status }, headers: {} };
  }
  // Log enough to debug, never request bodies, credentials or the values a query was given.
  logError('unhandled error', requestContext(c.req.raw), err);
  return { status: 500, body: { message: 'Server Error.', status: 500 }, headers: {} };
}
