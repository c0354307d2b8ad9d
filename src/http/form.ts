/**
 * A page's form, read once for its handler: a middleware that parses every POST body after
 * the body limit — one that claims to be a form and is not (a multipart body without its
 * boundary, say) is a 400, not the 500 `c.req.parseBody()` would throw — and the helpers that
 * read its text fields (`formText`, `formParams`).
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../lib/errors.ts';

export const readableForm = () =>
  createMiddleware<AppEnv>(async function readableForm(c, next) {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      try {
        await c.req.parseBody();
      } catch {
        throw new ApiError(400, 'The form could not be read.');
      }
    }
    await next();
  });

/** A text field of a parsed form: '' when it is missing or a file. */
export const formText = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A parsed form's text fields as query parameters (its CSRF token left out). */
export function formParams(body: Record<string, unknown>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(body))
    if (typeof value === 'string' && name !== '_csrf') params.append(name, value);
  return params;
}
