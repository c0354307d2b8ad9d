/**
 * The JSON Schemas of the MCP tools' inputs (./tools.ts) and the check of a call's arguments
 * against them: the subset of JSON Schema the tools use — types, `enum`, `items`, `minimum`,
 * `maximum`, `required` and closed objects — each problem named by its path.
 */

export type Schema = {
  type?: 'object' | 'array' | 'string' | 'integer' | 'boolean' | ('string' | 'array')[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: Schema;
  enum?: string[];
  minimum?: number;
  maximum?: number;
};

const typeOf = (value: unknown): string =>
  Array.isArray(value)
    ? 'array'
    : value === null
      ? 'null'
      : typeof value === 'number' && Number.isInteger(value)
        ? 'integer'
        : typeof value;

/** Whether `value` is of the type `type` names (an integer is also a number). */
function ofType(value: unknown, type: NonNullable<Schema['type']>): boolean {
  const types = Array.isArray(type) ? type : [type];
  const actual = typeOf(value);
  return types.some((t) => t === actual);
}

/** The first problem of `value` against `schema` (at `path`), or null. */
export function problemOf(schema: Schema, value: unknown, path = 'arguments'): string | null {
  if (schema.type && !ofType(value, schema.type)) {
    const wanted = Array.isArray(schema.type) ? schema.type.join(' or ') : schema.type;
    return `${path} must be ${/^[aeiou]/.test(wanted) ? 'an' : 'a'} ${wanted}, not ${typeOf(value)}`;
  }
  if (schema.enum && !schema.enum.includes(value as string))
    return `${path} must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`;
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum)
      return `${path} must be at least ${schema.minimum}`;
    if (schema.maximum !== undefined && value > schema.maximum)
      return `${path} must be at most ${schema.maximum}`;
  }
  if (Array.isArray(value) && schema.items) {
    for (const [i, item] of value.entries()) {
      const problem = problemOf(schema.items, item, `${path}[${i}]`);
      if (problem) return problem;
    }
  }
  if (typeOf(value) === 'object' && schema.properties) {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? [])
      if (object[name] === undefined) return `${path}.${name} is required`;
    for (const [name, field] of Object.entries(object)) {
      // The tool's own arguments only: never a name the object's prototype answers.
      const known = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
      if (!known) {
        if (schema.additionalProperties === false) return `${path}.${name} is not an argument`;
        continue;
      }
      const problem = problemOf(known, field, `${path}.${name}`);
      if (problem) return problem;
    }
  }
  return null;
}
