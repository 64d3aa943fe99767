/**
 * Building blocks of the record schemas in src/schema/: plain JSON Schema objects (draft 7,
 * the dialect fastify's ajv and @fastify/swagger read), typed `as const` so that TypeBox's
 * `Static` infers their TypeScript types with no TypeBox code at run time. Importing a
 * schema module costs the CLI nothing but the objects themselves (TypeBox's builder costs
 * several times `node -e 0` to import; bench/startup.md has the figures).
 */

/** Largest int32, the bound of every id (contract §2). */
export const INT32_MAX = 2147483647;

/** A property's JSON schema (any keywords). */
export type PropertySchema = { readonly [keyword: string]: unknown };
/** A record's properties, in the documented field order. */
export type Properties = { readonly [name: string]: PropertySchema };

/** The `required` list of a record: every property; a non-empty tuple type so TypeBox's Static makes each field required. */
type AllOf<K extends string> = [K, ...K[]];

/** A record id on the wire: a positive integer (contract §2). */
export const recordId = { type: 'integer', minimum: 1 } as const;

/** JSON schema of an int32 id a caller sends, 1..2147483647 (contract §2). */
export const idSchema = { type: 'integer', minimum: 1, maximum: INT32_MAX } as const;

/**
 * An RFC 3339 time the service always sets (createdAt): a string; the document, like
 * contract §2, still allows null (OpenAPI 3.0 `nullable`, which TypeBox's Static ignores).
 */
export const time = {
  type: 'string',
  format: 'date-time',
  nullable: true,
  description: 'RFC 3339 UTC with Z; null when not set (contract §2)',
} as const;

/** An RFC 3339 time that is null when not set (an expiry, a payment date; contract §2); @fastify/swagger writes `nullable: true`. */
export const optionalTime = { type: ['string', 'null'], format: 'date-time', description: time.description } as const;

/** The same optional time inside a nested message (no description of its own). */
export const nestedTime = { type: ['string', 'null'], format: 'date-time' } as const;

/**
 * JSON schema of a record: an object of `properties` (in the documented field order), every
 * one of them required, so `Static<typeof X>` has every field. A list reply may leave any
 * out (`select`, contract §5): the service's response schema drops `required` (selectable).
 */
export function record<const P extends Properties, const T extends string | undefined = undefined>(properties: P, title?: T) {
  return {
    type: 'object',
    ...(title === undefined ? {} : { title }),
    required: Object.keys(properties) as AllOf<keyof P & string>,
    properties,
  } as { type: 'object'; title: T; required: AllOf<keyof P & string>; properties: P };
}

/** A record like `record`, whose `optional` fields may be absent (a template assembly's id, contract §8). */
export function recordWithOptional<const P extends Properties, const O extends keyof P & string>(properties: P, optional: readonly O[]) {
  return {
    type: 'object',
    required: Object.keys(properties).filter((k) => !optional.includes(k as O)) as AllOf<Exclude<keyof P & string, O>>,
    properties,
  } as { type: 'object'; required: AllOf<Exclude<keyof P & string, O>>; properties: P };
}

/**
 * The insert (POST) body of a record's writable fields: `{ [wrapper]: { ...fields } }`, no
 * unknown field at either level (a 400 naming it), `required` the fields an insert needs.
 */
export function insertBody<const W extends string, const P extends Properties, const R extends keyof P & string>(
  wrapper: W,
  properties: P,
  required: readonly R[],
) {
  return wrap(wrapper, { type: 'object', required: [...required] as AllOf<R>, properties, additionalProperties: false } as const);
}

/** Props of an update: the insert's, with `id` the int32 id and `extra` replacing or adding fields, in the insert's order. */
type UpdateProps<P extends Properties, E extends Properties> = Omit<P, 'id' | keyof E> & { readonly id: typeof idSchema } & E;

/**
 * The update (PUT) body derived from the insert body: the same fields, all optional (only
 * the fields present change), plus the required int32 `id`; `extra` replaces a field's
 * schema or adds update-only fields (contract §4, §7).
 */
export function updateBody<
  const W extends string,
  const I extends { properties: Properties },
  const E extends Properties = Record<never, PropertySchema>,
>(insert: { properties: { readonly [K in W]: I } }, wrapper: W, extra?: E) {
  const properties = { ...insert.properties[wrapper].properties, id: idSchema, ...extra };
  return wrap(wrapper, {
    type: 'object',
    required: ['id'],
    properties: properties as unknown as UpdateProps<I['properties'], E>,
    additionalProperties: false,
  } as const);
}

function wrap<const W extends string, const S extends PropertySchema>(wrapper: W, inner: S) {
  return {
    type: 'object',
    required: [wrapper] as [W],
    properties: { [wrapper]: inner } as { readonly [K in W]: S },
    additionalProperties: false,
  } as const;
}

/** The inner record of a wrapped body (`{ apiKey: {…} }` → the apiKey schema). */
export type Inner<B extends { properties: Properties }> = B['properties'][keyof B['properties']];
