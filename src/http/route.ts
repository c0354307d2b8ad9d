/**
 * Serving an API route from its OpenAPI definition. The one `defineRoute` object documents
 * the route in `/api/v1/openapi.json` (./openapi.ts) and is what validates its input here,
 * so the document and the behaviour cannot drift apart. Validation is Sightline's own (see
 * src/lib/fields.ts): Laravel-style 422s that name every bad field, required query fields
 * being the schema's non-optional ones; a path id that cannot name a website is the same 404 as a missing one;
 * a body is read from a form, JSON or multipart (lib/body.ts) and handed on for the domain
 * service to validate with the route's body schema.
 */

import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { notFound, validationFailed } from '../lib/errors.ts';
import { type FieldsSchema, parseFields } from '../lib/fields.ts';
import { parseId } from '../lib/ids.ts';
import { type Infer, s } from '../lib/json-schema.ts';
import { readFields } from '../lib/text/body.ts';
import type { ApiApp, RouteDefinition } from './openapi.ts';

type QueryOf<R> = R extends { request: { query: infer Q extends FieldsSchema } }
  ? Infer<Q>
  : undefined;

/** A path parameter: an id, as the path writes it. */
export const pathId = (example: string) => s.string().openapi({ example });

/** The `{id}` of a route about one website. */
export const idParam = s.object({ id: pathId('1') });

/**
 * What a handler receives: the website id of `{id}`, the raw body fields, and `query()`,
 * which validates the query when called (a 422 naming every bad field). A handler that
 * looks a website up calls it after the lookup, so another owner's website is the same 404
 * as a missing one whatever the parameters.
 */
export type RouteInput<R> = {
  id: number;
  query: () => QueryOf<R>;
  body: Record<string, unknown>;
};

/** The fields of an object schema that must be present (those not marked optional). */
function requiredFields(schema: FieldsSchema): string[] {
  return Object.entries(schema.shape)
    .filter(([, field]) => !field.isOptional)
    .map(([name]) => name);
}

/**
 * Registers `route` in the OpenAPI document and serves it with `handler`: the path id
 * checked, the body read, the query validated on demand, as the definition declares; `limit`
 * is the route's own body limit (./body-limits.ts `routeBodyLimit`), if it takes more than the
 * API's default.
 *
 * @example
 * serveRoute(api, showWebsiteRoute, async (c, { id }) => c.json(await show(id)));
 */
export function serveRoute<R extends RouteDefinition>(
  api: ApiApp,
  route: R,
  handler: (c: Context<AppEnv>, input: RouteInput<R>) => Promise<Response> | Response,
  limit?: MiddlewareHandler,
): void {
  api.definitions.push(route);
  const query = route.request?.query as FieldsSchema | undefined;
  const required = query ? requiredFields(query) : [];
  for (const [name, field] of Object.entries(query?.shape ?? {}))
    if (!field.check) throw new Error(`${route.path}: the query field ${name} has no check.`);
  const path = route.path.replace(/\{(\w+)\}/g, ':$1');
  // A body of fields (JSON, a form) is read here; any other (an import's file) is the handler's.
  const readsFields = Object.keys(route.request?.body?.content ?? {}).some((type) =>
    /json|form/.test(type),
  );
  if (limit) api.on(route.method.toUpperCase(), path, limit);
  api.on(route.method.toUpperCase(), path, async (c) => {
    let id = 0;
    if (route.request?.params) {
      const parsed = parseId(c.req.param('id'));
      if (parsed === null) throw notFound();
      id = parsed;
    }
    const validQuery = () => {
      if (!query) return undefined as QueryOf<R>;
      const parsed = parseFields(query, c.req.query(), required);
      if (!parsed.ok) throw validationFailed(parsed.errors);
      return parsed.data as QueryOf<R>;
    };
    const body = readsFields ? await readFields(c.req) : {};
    return handler(c, { id, query: validQuery, body });
  });
}
