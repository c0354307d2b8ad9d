/** The API's schemas (src/lib/json-schema.ts) as the OpenAPI document writes them (src/http/openapi.ts). */
import { describe, expect, it } from 'vitest';
import { ApiApp, defineRoute, openApiDocument } from '../../src/http/openapi.ts';
import { field } from '../../src/lib/fields.ts';
import { type AnySchema, type JsonSchema, s } from '../../src/lib/json-schema.ts';

/** The document of one route answering `schema`: its components and the schema as used. */
function written(schema: AnySchema, query = s.object({})) {
  const api = new ApiApp();
  api.definitions.push(
    defineRoute({
      method: 'get',
      path: '/things/{id}',
      tags: ['Things'],
      summary: 'A thing',
      security: [],
      request: { params: s.object({ id: s.string() }), query },
      responses: { 200: { description: 'It.', content: { 'application/json': { schema } } } },
    }),
  );
  const doc = openApiDocument(api, { openapi: '3.1.0', info: { title: 'T', version: '1' } });
  const get = doc.paths['/things/{id}']?.get as {
    parameters: JsonSchema[];
    responses: { 200: { content: { 'application/json': { schema: JsonSchema } } } };
  };
  return {
    used: get.responses[200].content['application/json'].schema,
    components: doc.components.schemas,
    parameters: get.parameters,
  };
}

describe('schemas written as JSON Schema', () => {
  it('writes types, limits, formats, nullable and optional keys', () => {
    const { used } = written(
      s.object({
        id: s.number().int().min(1).openapi({ example: 3 }),
        rate: s.number().max(100),
        url: s.string().url().nullable(),
        name: s.string().max(20).optional().openapi({ description: 'A name.' }),
        role: s.enum(['a', 'b']),
        done: s.literal(true),
        tags: s.array(s.string()).min(1).max(8),
        counts: s.record(s.number().int()),
        either: s.union([s.string(), s.boolean()]),
      }),
    );
    expect(used).toEqual({
      type: 'object',
      properties: {
        id: { type: 'integer', minimum: 1, example: 3 },
        rate: { type: 'number', maximum: 100 },
        url: { type: ['string', 'null'], format: 'uri' },
        name: { type: 'string', maxLength: 20, description: 'A name.' },
        role: { type: 'string', enum: ['a', 'b'] },
        done: { type: 'boolean', enum: [true] },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 8 },
        counts: { type: 'object', additionalProperties: { type: 'integer' } },
        either: { anyOf: [{ type: 'string' }, { type: 'boolean' }] },
      },
      required: ['id', 'rate', 'url', 'role', 'done', 'tags', 'counts', 'either'],
    });
  });

  it('writes a named schema once, referred to; a described or nullable use of it in place', () => {
    const thing = s.object({ id: s.number().int() }).openapi('Thing');
    const { used, components } = written(
      s.object({
        one: thing,
        maybe: thing.nullable(),
        before: thing.openapi({ description: 'The one before.' }),
        more: thing.extend({ extra: s.string() }),
      }),
    );
    const ref = { $ref: '#/components/schemas/Thing' };
    expect(components).toEqual({
      Thing: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
    });
    expect(used.properties).toEqual({
      one: ref,
      maybe: { anyOf: [ref, { type: 'null' }] },
      before: { allOf: [ref, { description: 'The one before.' }] },
      more: {
        type: 'object',
        properties: { id: { type: 'integer' }, extra: { type: 'string' } },
        required: ['id', 'extra'],
      },
    });
  });

  it("writes a query's fields as parameters: their doc, required unless optional", () => {
    const check = (raw: unknown) => ({ ok: true as const, value: String(raw) });
    const { parameters } = written(
      s.object({}),
      s.object({
        from: field({ type: 'string', description: 'First day.' }, check),
        sort: field({ type: 'string', enum: ['asc', 'desc'] }, check).optional(),
      }),
    );
    expect(parameters).toEqual([
      { schema: { type: 'string' }, required: true, name: 'id', in: 'path' },
      {
        schema: { type: 'string', description: 'First day.' },
        required: true,
        description: 'First day.',
        name: 'from',
        in: 'query',
      },
      {
        schema: { type: 'string', enum: ['asc', 'desc'] },
        required: false,
        name: 'sort',
        in: 'query',
      },
    ]);
  });
});
