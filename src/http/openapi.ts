/**
 * The OpenAPI 3.1 document of API v1, built from the routes' definitions (./route.ts) as they
 * are served: every schema a route names (src/lib/json-schema.ts) is written once under
 * `components.schemas` and referred to wherever it is used.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import type { AnySchema, JsonSchema, RefOf } from '../lib/json-schema.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** An object schema whose fields are parameters. */
type Fields = { readonly shape: Record<string, AnySchema> };
type Content = Record<string, { schema: AnySchema; examples?: Record<string, unknown> }>;

/** One operation of the API: what it takes and what it answers, as the document shows it. */
export type RouteDefinition = {
  method: Method;
  /** OpenAPI's spelling: `/websites/{id}`. */
  path: string;
  tags: string[];
  summary: string;
  description?: string;
  security: { bearerAuth: string[] }[];
  request?: {
    params?: Fields;
    query?: Fields;
    body?: { required?: boolean; description?: string; content: Content };
  };
  responses: Record<number, { description: string; content?: Content }>;
};

/** A route's definition, its literal types kept (for the query its handler receives). */
export function defineRoute<const R extends RouteDefinition>(route: R): R {
  return route;
}

/** The API's Hono app, which keeps the definitions of the routes it serves for the document. */
export class ApiApp extends Hono<AppEnv> {
  readonly definitions: RouteDefinition[] = [];
  readonly securitySchemes: Record<string, JsonSchema> = {};
}

export type OpenApiDocument = {
  openapi: string;
  info: { title: string; version: string; description?: string; license?: JsonSchema };
  servers?: { url: string }[];
  components: { securitySchemes: Record<string, JsonSchema>; schemas: Record<string, JsonSchema> };
  paths: Record<string, Record<string, JsonSchema>>;
};

/** The document of `api`'s routes, with `top`'s `openapi`, `info` and `servers`. */
export function openApiDocument(
  api: ApiApp,
  top: Pick<OpenApiDocument, 'openapi' | 'info' | 'servers'>,
): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = {};
  const ref: RefOf = (schema) => {
    if (schema.name === undefined) return schema.body(ref);
    if (!(schema.name in schemas)) {
      schemas[schema.name] = {}; // reserved first: a schema may refer to itself
      schemas[schema.name] = schema.body(ref, { component: true });
    }
    const reference = { $ref: `#/components/schemas/${schema.name}` };
    return schema.isNullable ? { anyOf: [reference, { type: 'null' }] } : reference;
  };
  const content = (of: Content) =>
    Object.fromEntries(
      Object.entries(of).map(([type, { schema, ...rest }]) => [
        type,
        { schema: ref(schema), ...rest },
      ]),
    );
  const parameters = (request: RouteDefinition['request']) =>
    (['path', 'query'] as const).flatMap((where) =>
      Object.entries((where === 'path' ? request?.params : request?.query)?.shape ?? {}).map(
        ([key, field]: [string, AnySchema]) => {
          const schema = ref(field);
          return {
            schema,
            required: where === 'path' || !field.isOptional,
            ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
            name: key,
            in: where,
            ...field.param,
          };
        },
      ),
    );

  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of api.definitions) {
    const { method, path, request, responses, ...words } = route;
    const params = parameters(request);
    paths[path] ??= {};
    paths[path][method] = {
      ...words,
      ...(params.length > 0 ? { parameters: params } : {}),
      ...(request?.body
        ? { requestBody: { ...request.body, content: content(request.body.content) } }
        : {}),
      responses: Object.fromEntries(
        Object.entries(responses).map(([status, answer]) => [
          status,
          answer.content ? { ...answer, content: content(answer.content) } : answer,
        ]),
      ),
    };
  }
  return {
    ...top,
    components: { securitySchemes: api.securitySchemes, schemas },
    paths,
  };
}
