/**
 * One error type for the whole Worker. Routes throw; `handleError` (the app's `onError`)
 * turns every error into exactly one JSON shape per kind (DESIGN §3.1):
 * `{"message": …, "status": N}`, plus `errors` for validation failures.
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

/** The app's single `onError`: known errors keep their status; anything else is a 500 without details. */
export function handleError(err: Error, c: Context): Response {
  if (err instanceof ApiError) {
    return c.json(err.body(), err.statusCode, err.headers);
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    return c.json({ message: err.message || 'Request failed.', status }, status);
  }
  // Log enough to debug, never request bodies, credentials or the values a query was given.
  logError('unhandled error', requestContext(c.req.raw), err);
  return c.json({ message: 'Server Error.', status: 500 }, 500);
}
