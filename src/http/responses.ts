/** OpenAPI descriptions of the error bodies every API route can answer with. */
import { type AnySchema, s } from '../lib/json-schema.ts';

const errorSchema = (status: number, message: string) =>
  s
    .object({
      message: s.string().openapi({ example: message }),
      status: s.number().int().openapi({ example: status }),
    })
    .openapi(`Error${status}`);

const validationSchema = s
  .object({
    message: s.string().openapi({ example: 'The domain field is required.' }),
    errors: s
      .record(s.array(s.string()))
      .openapi({ example: { domain: ['The domain field is required.'] } }),
    status: s.number().int().openapi({ example: 422 }),
  })
  .openapi('ValidationError');

const json = (schema: AnySchema, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const errorResponses = {
  401: json(errorSchema(401, 'Unauthenticated.'), 'Missing or invalid API key.'),
  403: json(
    errorSchema(403, 'Your role on this website only lets you read its statistics.'),
    "The key's person is a member of the website whose role does not allow this (docs: Members).",
  ),
  404: json(
    errorSchema(404, 'Resource not found.'),
    'No such website, or it belongs to another owner (the same answer either way).',
  ),
  409: json(
    errorSchema(409, 'The website has events of its own on these dates.'),
    'The request conflicts with what the website holds.',
  ),
  413: json(errorSchema(413, 'The request body is too large.'), 'The body is too large.'),
  415: json(
    errorSchema(415, 'The body must be a zip, a gzip or a CSV.'),
    'The body is of a type the route does not read.',
  ),
  422: json(validationSchema, 'A parameter is invalid; `errors` names every bad field.'),
} as const;

export const jsonContent = json;

/** The answer of a deletion: `{"id", "object", "deleted": true, "status": 200}`. */
export const deletedResponse = (object: string, description: string) =>
  json(
    s.object({
      id: s.number().int(),
      object: s.literal(object),
      deleted: s.literal(true),
      status: s.number().int().openapi({ example: 200 }),
    }),
    description,
  );
