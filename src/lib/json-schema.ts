/**
 * Schemas of the values the API takes and gives: each is the JSON Schema of a value, written
 * once, from which `/api/v1/openapi.json` is built (src/http/openapi.ts), and, for a field a
 * request carries, the check that validates and normalises it (`field()`, ./fields.ts).
 *
 * A few dozen lines in zod's spelling (`s.object({ id: s.number().int() }).openapi('Website')`)
 * instead of zod itself: Sightline checks its fields with its own Laravel-style messages and
 * needs a validator only for that, while zod with its OpenAPI layer weighed 104 KiB
 * gzipped of the Worker (docs/BENCHMARKS.md §6). Schemas are immutable: every method returns
 * a new one.
 */

export type Check<T> = { ok: true; value: T } | { ok: false; message: string };

/** A JSON Schema object, as the OpenAPI 3.1 document writes it. */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * How a field of `request.query` is written as a parameter, beyond its name (its key) and its
 * place (`path` for `request.params`, `query` for `request.query`).
 */
type ParamMeta = { style: 'deepObject'; explode: boolean };

/** What `.openapi({…})` adds: documentation keywords, and a parameter's placement. */
export type Meta = {
  description?: string;
  example?: unknown;
  format?: string;
  param?: ParamMeta;
};

/** Writes a schema where it is used: a `$ref` for a named one, its JSON Schema for the rest. */
export type RefOf = (schema: AnySchema) => JsonSchema;

// biome-ignore lint/suspicious/noExplicitAny: the widest schema, whatever its value's type.
export type AnySchema = Schema<any>;

/** The type of the value a schema describes (after its check, for a field). */
export type Infer<S> = S extends Schema<infer T> ? T : never;

export class Schema<T> {
  /** The type of the value; exists for `Infer` only. */
  declare readonly value: T;
  /** Optional in an object (not in its `required` list; a query parameter not required). */
  readonly isOptional: boolean = false;
  readonly isNullable: boolean = false;
  /** The name of its component (`#/components/schemas/<name>`), referred to wherever it is used. */
  readonly name: string | undefined;
  readonly param: ParamMeta | undefined;
  /** Keywords written over the schema's own: limits, formats, description, example. */
  readonly keywords: JsonSchema = {};

  constructor(
    /** The schema's own JSON Schema, its parts written with `ref`. */
    readonly own: (ref: RefOf) => JsonSchema,
    /** Validates and normalises a raw value (never undefined): a field's check. */
    readonly check?: (raw: unknown) => Check<T>,
  ) {}

  /** A copy with some properties changed (schemas are immutable). */
  protected with(changes: Partial<Schema<unknown>>): this {
    return Object.assign(Object.create(Object.getPrototypeOf(this)), this, changes);
  }

  /** With keywords added (for the subclasses' limits and formats). */
  protected plus(keywords: JsonSchema): this {
    return this.with({ keywords: { ...this.keywords, ...keywords } });
  }

  optional(): Schema<T | undefined> {
    return this.with({ isOptional: true }) as Schema<T | undefined>;
  }

  nullable(): Schema<T | null> {
    return this.with({ isNullable: true }) as Schema<T | null>;
  }

  /**
   * Names the schema (a component of the document, referred to wherever used), documents it,
   * or both. Documenting a named schema documents this use of it, not the component.
   */
  openapi(name: string, meta?: Meta): this;
  openapi(meta: Meta): this;
  openapi(nameOrMeta: string | Meta, meta: Meta = {}): this {
    const named = typeof nameOrMeta === 'string' ? nameOrMeta : undefined;
    const { param, ...keywords } = typeof nameOrMeta === 'string' ? meta : nameOrMeta;
    if (named === undefined && this.name !== undefined) {
      // One use of a component, described: `allOf` keeps the reference and adds the words.
      const component = this as AnySchema;
      return new Schema<T>((ref) => ({ allOf: [ref(component), keywords] })).with({
        isOptional: this.isOptional,
        param: param ?? this.param,
      }) as unknown as this;
    }
    return this.with({
      name: named ?? this.name,
      param: param ?? this.param,
      keywords: { ...this.keywords, ...keywords },
    });
  }

  /**
   * The schema's JSON Schema in full. A component's body leaves out `null`: a nullable use of
   * it is written where it is used.
   */
  body(ref: RefOf, { component = false } = {}): JsonSchema {
    const json = { ...this.own(ref), ...this.keywords };
    if (!this.isNullable || component) return json;
    if (typeof json.type === 'string') return { ...json, type: [json.type, 'null'] };
    return { anyOf: [json, { type: 'null' }] };
  }
}

class StringSchema extends Schema<string> {
  max(length: number) {
    return this.plus({ maxLength: length });
  }
  min(length: number) {
    return this.plus({ minLength: length });
  }
  url() {
    return this.plus({ format: 'uri' });
  }
}

class NumberSchema extends Schema<number> {
  int() {
    return this.with({ own: () => ({ type: 'integer' }) });
  }
  min(value: number) {
    return this.plus({ minimum: value });
  }
  max(value: number) {
    return this.plus({ maximum: value });
  }
}

class ArraySchema<T> extends Schema<T[]> {
  min(count: number) {
    return this.plus({ minItems: count });
  }
  max(count: number) {
    return this.plus({ maxItems: count });
  }
}

type Shape = Record<string, AnySchema>;
type Flat<T> = { [K in keyof T]: T[K] } & {};
/** An object of a shape: the keys whose value may be undefined are optional. */
type ObjectOf<S extends Shape> = Flat<
  { [K in keyof S as undefined extends Infer<S[K]> ? never : K]: Infer<S[K]> } & {
    [K in keyof S as undefined extends Infer<S[K]> ? K : never]?: Infer<S[K]>;
  }
>;

export class ObjectSchema<S extends Shape> extends Schema<ObjectOf<S>> {
  constructor(readonly shape: S) {
    super((ref) => {
      const entries = Object.entries(shape);
      const required = entries.filter(([, field]) => !field.isOptional).map(([key]) => key);
      return {
        type: 'object',
        properties: Object.fromEntries(entries.map(([key, field]) => [key, ref(field)])),
        ...(required.length > 0 ? { required } : {}),
      };
    });
  }

  /** The object with more (or replaced) keys: a new, unnamed schema. */
  extend<More extends Shape>(more: More): ObjectSchema<Omit<S, keyof More> & More> {
    return new ObjectSchema({ ...this.shape, ...more } as Omit<S, keyof More> & More);
  }
}

/** The schema builder, in zod's spelling. */
export const s = {
  string: () => new StringSchema(() => ({ type: 'string' })),
  number: () => new NumberSchema(() => ({ type: 'number' })),
  boolean: () => new Schema<boolean>(() => ({ type: 'boolean' })),
  literal: <const V extends string | boolean>(value: V) =>
    new Schema<V>(() => ({ type: typeof value, enum: [value] })),
  enum: <const V extends readonly string[]>(values: V) =>
    new Schema<V[number]>(() => ({ type: 'string', enum: [...values] })),
  array: <T>(items: Schema<T>) =>
    new ArraySchema<T>((ref) => ({ type: 'array', items: ref(items) })),
  object: <S extends Shape>(shape: S) => new ObjectSchema(shape),
  /** An object of any keys, each holding `values`. */
  record: <T>(values: Schema<T>) =>
    new Schema<Record<string, T>>((ref) => ({
      type: 'object',
      additionalProperties: ref(values),
    })),
  union: <const O extends readonly AnySchema[]>(options: O) =>
    new Schema<Infer<O[number]>>((ref) => ({ anyOf: options.map(ref) })),
};
