/**
 * Field validation shared by the domain services and the API. Each field is a schema
 * (./json-schema.ts) that validates (and normalises) a raw value as it arrives from a form,
 * multipart or JSON body or a query string, with a Laravel-style message, and carries the
 * OpenAPI description of the value it accepts: the same schema objects validate input in the
 * services (websites, statistics) and generate `/api/v1/openapi.json`. Nothing here knows
 * about HTTP.
 */

import type { FieldErrors } from './errors.ts';
import {
  type AnySchema,
  type Check,
  type Infer,
  type ObjectSchema,
  Schema,
} from './json-schema.ts';
import { MAX_FOLDED_LETTERS, needsTooManyFoldings } from './text/contains-text.ts';

/** OpenAPI description of a field (type, enum, limits, description, example). */
type OpenApiDoc = Partial<{
  type: 'string' | 'integer' | 'number' | 'boolean';
  enum: unknown[];
  description: string;
  example: unknown;
  maxLength: number;
  minimum: number;
  maximum: number;
}>;

/**
 * A field: `check` receives the raw value (never undefined) and returns the parsed value
 * or a message. Missing fields are optional unless `required` is given.
 */
export function field<T>(doc: OpenApiDoc, check: (raw: unknown) => Check<T>): Field<T> {
  return new Schema<T>(() => ({ ...doc }), check) as Field<T>;
}

/** A schema with a check: what a request's fields are. */
export type Field<T> = Schema<T> & { check: (raw: unknown) => Check<T> };

/** Human label of a field name, as Laravel writes it: `exclude_bots` → `exclude bots`. */
const label = (name: string) => name.replace(/_/g, ' ');

/** Accepts one of `allowed` given as a number, a numeric string or (for 0/1) a JSON boolean. */
export function intChoice<const T extends readonly number[]>(
  name: string,
  allowed: T,
  description: string,
) {
  const list =
    allowed.length === 2
      ? `${allowed[0]} or ${allowed[1]}`
      : `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
  return field<T[number]>({ type: 'integer', enum: [...allowed], description }, (raw) => {
    let n: number | undefined;
    if (typeof raw === 'number') n = raw;
    else if (typeof raw === 'string' && /^\s*\d{1,3}\s*$/.test(raw)) n = Number(raw);
    else if (typeof raw === 'boolean' && allowed.includes(0) && allowed.includes(1))
      n = raw ? 1 : 0;
    return n !== undefined && allowed.includes(n)
      ? { ok: true, value: n as T[number] }
      : { ok: false, message: `The ${label(name)} field must be ${list}.` };
  });
}

/** Accepts one of `allowed` strings (exact, case-sensitive). */
export function stringChoice<const T extends readonly string[]>(
  name: string,
  allowed: T,
  description: string,
) {
  return field<T[number]>({ type: 'string', enum: [...allowed], description }, (raw) =>
    typeof raw === 'string' && allowed.includes(raw)
      ? { ok: true, value: raw as T[number] }
      : { ok: false, message: `The selected ${label(name)} is invalid.` },
  );
}

/** A string field with a maximum length. */
export function textField(name: string, max: number, description: string) {
  return field<string>({ type: 'string', maxLength: max, description }, (raw) => {
    if (typeof raw !== 'string')
      return { ok: false, message: `The ${label(name)} field must be a string.` };
    if (raw.length > max)
      return {
        ok: false,
        message: `The ${label(name)} field must not be greater than ${max} characters.`,
      };
    return { ok: true, value: raw };
  });
}

/**
 * A `search` term: a string of at most 255 characters whose letters can all be matched in
 * any case (see src/lib/text/contains-text.ts).
 */
export function searchField(description: string) {
  const base = textField('search', 255, description);
  return field<string>({ type: 'string', maxLength: 255, description }, (raw) => {
    const parsed = base.check(raw);
    if (!parsed.ok) return parsed;
    return needsTooManyFoldings(parsed.value)
      ? {
          ok: false,
          message: `The search field must not contain more than ${MAX_FOLDED_LETTERS} different letters outside ASCII.`,
        }
      : parsed;
  });
}

/** An object schema whose every key is a field (a schema with a check). */
export type FieldsSchema = ObjectSchema<Record<string, AnySchema>>;

/**
 * Validates `input` with an object schema of fields; returns the parsed data or throws-free
 * field errors naming every bad field (a missing required field included).
 */
export function parseFields<S extends FieldsSchema>(
  schema: S,
  input: Record<string, unknown>,
  required: readonly string[] = [],
): { ok: true; data: Infer<S> } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  for (const name of required) {
    const value = input[name];
    if (
      value === undefined ||
      value === null ||
      (typeof value === 'string' && value.trim() === '')
    ) {
      errors[name] = [`The ${label(name)} field is required.`];
    }
  }
  // Only the schema's own keys are looked at: unknown fields never take effect.
  const data: Record<string, unknown> = {};
  for (const [key, fieldSchema] of Object.entries(schema.shape)) {
    if (input[key] === undefined || errors[key]) continue;
    if (!fieldSchema.check) throw new Error(`The field ${key} has no check.`);
    const result = fieldSchema.check(input[key]);
    if (result.ok) data[key] = result.value;
    else errors[key] = [result.message];
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, data: data as Infer<S> };
}
