/**
 * The routes of a website's sub-resource in API v1, described once: goals, segments,
 * annotations, traffic alerts and shared links each are a collection under
 * `/websites/{id}/{plural}` and items under `…/{item_id}`, authenticated by the API key, read
 * by the website's readers, written by its owner and admins. This gives each its OpenAPI tag,
 * security, parameters, request bodies and answers, and its handlers the item's id and the
 * answer of a deletion.
 *
 * @example
 * const notes = websiteResource({ tag: 'Annotations', plural: 'annotations',
 *   item: { name: 'annotation_id', example: '4' }, record: annotationSchema, inputs });
 * notes.route({ method: 'get', path: notes.collection, summary: 'List …',
 *   request: { params: idParam }, responses: { 200: notes.many('The annotations.'), ...notes.reads } });
 */
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import { parseId } from '../lib/ids.ts';
import { type AnySchema, s } from '../lib/json-schema.ts';
import { defineRoute, type RouteDefinition } from './openapi.ts';
import { deletedResponse, errorResponses, jsonContent } from './responses.ts';
import { idParam, pathId } from './route.ts';

/** What a website's sub-resource is called and holds. */
type ResourceSpec = {
  /** Its OpenAPI tag. */
  tag: string;
  /** Its collection's path segment (`annotations`). */
  plural: string;
  /** Its items' path parameter (`annotation_id`), with an example id. */
  item: { name: string; example: string };
  /** An item as the API shows it. */
  record: AnySchema;
  /** The body that makes an item (`all`) and the one that changes some of its fields. */
  inputs?: { all: AnySchema; some: AnySchema };
};

/** A route's own parts; the resource adds its tag and security. */
type RouteParts = Omit<RouteDefinition, 'tags' | 'security'>;

export function websiteResource(spec: ResourceSpec) {
  const collection = `/websites/{id}/${spec.plural}`;
  const security = [{ bearerAuth: [] }];
  const tags = [spec.tag];
  return {
    /** `/websites/{id}/{plural}`. */
    collection,
    /** `/websites/{id}/{plural}/{item_id}`. */
    item: `${collection}/{${spec.item.name}}`,
    /** The path parameters of an item. */
    itemParams: idParam.extend({ [spec.item.name]: pathId(spec.item.example) }),
    /** A route of the resource: its parts, with the resource's tag and the API key's security. */
    route: <const R extends RouteParts>(route: R) => {
      const { method, path, summary, description, request, responses } = route;
      return defineRoute({
        method,
        path,
        tags,
        summary,
        ...(description === undefined ? {} : { description }),
        security,
        ...(request === undefined ? {} : { request }),
        responses,
      }) as unknown as R & Pick<RouteDefinition, 'tags' | 'security'>;
    },
    /** The JSON body of a request that makes an item, or (`partial`) changes some of its fields. */
    body: (partial: boolean) => ({
      required: true,
      content: {
        'application/json': {
          schema: (partial ? spec.inputs?.some : spec.inputs?.all) as AnySchema,
        },
      },
    }),
    /** The answer of one item. */
    one: (description: string, status = 200) =>
      jsonContent(
        s.object({ data: spec.record, status: s.number().int().openapi({ example: status }) }),
        description,
      ),
    /** The answer of every item. */
    many: (description: string) =>
      jsonContent(s.object({ data: s.array(spec.record), status: s.number().int() }), description),
    /** The answer of a deletion. */
    deleted: (object: string, description: string) => deletedResponse(object, description),
    /** The errors of a read (no key, no such website). */
    reads: { 401: errorResponses[401], 404: errorResponses[404] },
    /** The errors of a write: a viewer's is a 403. */
    writes: { 401: errorResponses[401], 403: errorResponses[403], 404: errorResponses[404] },
    /** The error of fields that do not pass. */
    invalid: { 422: errorResponses[422] },
    /** The item id of the request's path (null: not an id). */
    itemId: (c: Context<AppEnv>) => parseId(c.req.param(spec.item.name) ?? ''),
    /** The answer of a deleted item. */
    gone: (c: Context<AppEnv>, id: number, object: string) =>
      c.json({ id, object, deleted: true, status: 200 }),
  };
}
