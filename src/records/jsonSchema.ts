/**
 * JSON Schema building blocks for the OpenAPI document (GET /openapi.json), shared by the schemas
 * that sit beside each record and each router.
 *
 * How the schemas stay true to the code:
 * - Every record schema is built with `record<T>()`, whose `properties` argument must name exactly
 *   the keys of the TypeScript type T (a missing key fails `tsc`, an extra key fails the excess
 *   property check). Every key is `required` unless T makes it optional, and every object has
 *   `additionalProperties: false`, so a response that gains or loses a key fails validation
 *   (test/http/openapi.test.ts).
 * - Small unions that exist only as types (RPKI states, quota periods) go through `every<T>()`,
 *   which fails `tsc` when a member is missing.
 *
 * JSON Schema is draft 2020-12 (the OpenAPI 3.1 dialect): nullable fields are `type: [T, 'null']`,
 * nullable objects `oneOf: [schema, {type: 'null'}]`.
 */

export type JsonSchema = { [keyword: string]: unknown };

/** The keys of T that T itself marks optional (`key?:`). */
type OptionalKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? K : never }[keyof T];
/** One schema per key of T, no more, no less. */
export type Properties<T> = { [K in keyof T]-?: JsonSchema };

/**
 * An object schema for the TypeScript type T: exactly T's keys, all required except T's optional
 * ones (which must be listed in `optional`), no other keys allowed.
 */
export function record<T>(description: string, properties: Properties<T>, optional: readonly OptionalKeys<T>[] = []): JsonSchema {
  const keys = Object.keys(properties);
  return {
    type: 'object',
    description,
    properties,
    required: keys.filter((k) => !(optional as readonly string[]).includes(k)),
    additionalProperties: false,
  };
}

/** An object schema without a TypeScript type behind it (records the code builds inline). */
export function shape(description: string, properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  return record<Record<string, unknown>>(description, properties, optional);
}

/** All members of the string union T, checked by the compiler: a missing member is an error. */
export function every<T extends string>() {
  return <const A extends readonly T[]>(
    values: A & ([Exclude<T, A[number]>] extends [never] ? unknown : { missing: Exclude<T, A[number]> }),
  ): T[] => [...values];
}

const described = (description?: string): JsonSchema => (description ? { description } : {});

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const str = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...described(description), ...extra });
export const strOrNull = (description?: string, extra: JsonSchema = {}): JsonSchema => ({
  type: ['string', 'null'],
  ...described(description),
  ...extra,
});
export const num = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'number', ...described(description), ...extra });
export const numOrNull = (description?: string, extra: JsonSchema = {}): JsonSchema => ({
  type: ['number', 'null'],
  ...described(description),
  ...extra,
});
export const int = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...described(description), ...extra });
export const bool = (description?: string): JsonSchema => ({ type: 'boolean', ...described(description) });
export const boolOrNull = (description?: string): JsonSchema => ({ type: ['boolean', 'null'], ...described(description) });
export const constant = (value: string | number | boolean, description?: string): JsonSchema => ({
  type: typeof value === 'number' ? 'integer' : typeof value,
  const: value,
  ...described(description),
});
export const oneOf = (...schemas: JsonSchema[]): JsonSchema => ({ oneOf: schemas });
export const orNull = (schema: JsonSchema): JsonSchema => ({ oneOf: [schema, { type: 'null' }] });
export const stringEnum = (values: readonly string[], description?: string): JsonSchema => ({
  type: 'string',
  enum: [...values],
  ...described(description),
});
export const stringEnumOrNull = (values: readonly string[], description?: string): JsonSchema => ({
  type: ['string', 'null'],
  enum: [...values, null],
  ...described(description),
});
export const arrayOf = (items: JsonSchema, description?: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'array',
  items,
  ...described(description),
  ...extra,
});

export const IP_ADDRESS: JsonSchema = { type: 'string', anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] };
export const COUNTRY_CODE = { pattern: '^[A-Z]{2}$' };
export const DATE_TIME = { format: 'date-time' };
