/**
 * The JSON schema of a seed file (`lic serve --seed FILE.json`), composed from the record
 * schemas of src/schema/. Each collection of a record the service lists (API keys,
 * products, license templates, orders, resources, assemblies, log entries) takes its
 * fields, their types and which are required from that record's schema, so a field added
 * there is a field of the seed file with no second edit. This module adds only what a
 * seed file asks beyond the wire form: names and codes at most 256 characters (contract
 * §9), the formats of codes, keys and versions, references that are 0 for none,
 * timestamps as RFC 3339 text or '' for unset. Users, customers, releases and
 * customer-product links have no record schema (no endpoint lists them) and are declared
 * here.
 */
import type { SchemaObject } from 'ajv';
import { ApiKeySchema } from '../../schema/api-key.js';
import { AssemblySchema } from '../../schema/assembly.js';
import { CustomerProductSchema } from '../../schema/customer-product.js';
import { INT32_MAX, type Properties, type PropertySchema } from '../../schema/json-schema.js';
import { LicenseTemplateSchema } from '../../schema/license-template.js';
import { LogEntrySchema } from '../../schema/log-entry.js';
import { OrderSchema } from '../../schema/order.js';
import { ResourceSchema } from '../../schema/resource.js';
import { ROLES } from '../../wire.js';

const int32Id = { type: 'integer', minimum: 1, maximum: INT32_MAX };
const refOrZero = { type: 'integer', minimum: 0, maximum: INT32_MAX };
const text = { type: 'string' };
const name256 = { type: 'string', maxLength: 256 };
const nonEmpty256 = { type: 'string', minLength: 1, maxLength: 256 };
const timestamp = { type: 'string', format: 'rfc3339' };
const timestampOrEmpty = { type: 'string', format: 'rfc3339-or-empty' };
const base64 = { type: 'string', format: 'base64', errorText: 'must be base64 (RFC 4648, with padding)' };
const customerCode = { type: 'string', pattern: '^C-[A-Z0-9]{8}$', errorText: 'must be "C-" followed by 8 of A-Z, 0-9' };
const currency = { type: 'string', pattern: '^([A-Z]{3})?$', errorText: 'must be a 3-letter ISO 4217 code such as USD, or empty' };
const money = { type: 'number', minimum: 0 };

/** A record object of a seed file: exactly these properties, all required except `optional`. */
function strictRecord(props: Record<string, SchemaObject>, optional: readonly string[] = []): SchemaObject {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(props).filter((k) => !optional.includes(k)),
    properties: props,
  };
}

/** Seed-file rules of some fields of a record, by field name: the field's schema. */
type Rules<P> = { readonly [K in keyof P]?: SchemaObject };

/** Seed-file rules of the records inside some array fields of a record (`features: { name: name256 }`). */
type ItemRules<P> = { readonly [K in keyof P]?: P[K] extends { items: { properties: infer Q } } ? Rules<Q> : never };

/** Which of a record's keywords a seed field keeps (documentation keywords and OpenAPI's `nullable` go). */
const KEPT = ['type', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern'];

/**
 * The seed-file schema of a wire property that has no rule of its own: a date-time is RFC
 * 3339 text, or also '' where the record allows null (an unset time); base64 content is
 * checked as base64; an integer is bounded as an int32 (ids are int32, contract §2);
 * arrays and records follow their items and fields. Throws on a form it has no rule for,
 * so that a new kind of field is a decision, not a silent pass.
 */
function seedProperty(wire: PropertySchema, itemRules?: Rules<Properties>): SchemaObject {
  const type = wire.type;
  if (wire.format === 'date-time') return Array.isArray(type) && type.includes('null') ? timestampOrEmpty : timestamp;
  if (wire.contentEncoding === 'base64') return base64;
  if (type === 'array') return { type: 'array', items: seedProperty(wire.items as PropertySchema, itemRules) };
  if (type === 'object' && wire.properties) return seedRecord(wire as { properties: Properties }, { rules: itemRules });
  if (type === 'object' && typeof wire.additionalProperties === 'object') {
    return { type: 'object', additionalProperties: seedProperty(wire.additionalProperties as PropertySchema) };
  }
  if (type === 'string' || type === 'integer' || type === 'number' || type === 'boolean') {
    const kept: SchemaObject = Object.fromEntries(KEPT.filter((k) => k in wire).map((k) => [k, wire[k]]));
    if (type === 'integer') kept.maximum ??= INT32_MAX;
    return kept;
  }
  throw new Error(`seed dataset schema: no rule for a field of the form ${JSON.stringify(wire)}`);
}

/**
 * The seed-file record of a src/schema/ record: its fields but `omit`, in its order, each
 * by its `rules` entry or else seedProperty (with `items` rules for the records of an
 * array field); required as the record requires them, but `optional`; then `extra`
 * fields the seed file adds. No unknown field is accepted.
 */
function seedRecord<const P extends Properties>(
  source: { properties: P; required?: readonly string[] },
  options: {
    omit?: readonly (keyof P & string)[];
    optional?: readonly string[];
    rules?: Rules<P>;
    items?: ItemRules<P>;
    extra?: Record<string, SchemaObject>;
  } = {},
): SchemaObject {
  const { omit = [], optional = [], extra = {} } = options;
  const rules: Rules<P> = options.rules ?? {};
  const items: ItemRules<P> = options.items ?? {};
  const props: Record<string, SchemaObject> = {};
  for (const [name, wire] of Object.entries(source.properties)) {
    if (omit.includes(name)) continue;
    const field = name as keyof P;
    props[name] = rules[field] ?? seedProperty(wire, items[field] as Rules<Properties> | undefined);
  }
  Object.assign(props, extra);
  const required = new Set([...(source.required ?? []), ...Object.keys(extra)]);
  return strictRecord(
    props,
    Object.keys(props).filter((k) => optional.includes(k) || !required.has(k)),
  );
}

const arrayOf = (items: SchemaObject): SchemaObject => ({ type: 'array', items });

/** An assembly's fields in a seed file, as a record and as a copy inside a license template (contract §7). */
const assemblyRules: Rules<typeof AssemblySchema.properties> = {
  name: nonEmpty256,
  version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+\\.\\d+$', errorText: 'must be a version a.b.c.d' },
  culture: name256,
  publicKeyToken: { type: 'string', pattern: '^([0-9a-fA-F]{16})?$', errorText: 'must be 16 hex digits or empty' },
  mappingFileId: refOrZero,
};

/**
 * JSON schema (draft-07, ajv dialect) of a seed file. Besides standard keywords it uses
 * the formats `rfc3339`, `rfc3339-or-empty`, `base64` and `json-object` and the annotation
 * `errorText` (the message of a failed pattern or format), which `parseDataset` registers.
 */
export const DATASET_SCHEMA: SchemaObject = {
  title: 'lic serve seed dataset',
  ...strictRecord(
    {
      $schema: text,
      users: arrayOf(
        strictRecord({ id: nonEmpty256, name: name256, email: name256, role: { enum: [...ROLES] }, customerCode }, ['customerCode']),
      ),
      apiKeys: arrayOf(
        seedRecord(ApiKeySchema, {
          omit: ['id', 'createdAt', 'keyPrefix'],
          optional: ['description', 'expireDate', 'revoked', 'key'],
          rules: { name: name256, ownerId: nonEmpty256 },
          extra: { key: { type: 'string', pattern: '^api_[a-z0-9]{24}$', errorText: 'must be "api_" followed by 24 of a-z, 0-9' } },
        }),
      ),
      customers: arrayOf(
        strictRecord({ id: int32Id, code: customerCode, name: name256, email: name256, country: name256, createdAt: timestamp }),
      ),
      products: arrayOf(
        seedRecord(CustomerProductSchema, {
          rules: { code: nonEmpty256, name: name256, price: money, resellerPrice: money, currency, signatureKeysId: refOrZero },
        }),
      ),
      releases: arrayOf(strictRecord({ id: int32Id, productId: int32Id, version: name256, name: name256, releaseDate: timestampOrEmpty })),
      licenseTemplates: arrayOf(
        seedRecord(LicenseTemplateSchema, {
          omit: ['product'], // derived from the product and release when read
          rules: {
            name: name256,
            code: name256,
            format: nonEmpty256,
            licenseFileName: name256,
            productId: int32Id,
            signatureKeysId: refOrZero,
            releaseId: int32Id,
          },
          items: {
            // a copy of an assembly names its assembly record, or none: 0 or no id (contract §8)
            assemblies: { ...assemblyRules, id: refOrZero },
            fields: { name: name256 },
            features: { name: name256 },
            restrictions: { name: name256 },
          },
        }),
      ),
      customerProducts: arrayOf(strictRecord({ customerId: int32Id, productId: int32Id })),
      orders: arrayOf(
        seedRecord(OrderSchema, {
          rules: {
            orderNumber: nonEmpty256,
            status: name256,
            processedBy: name256,
            purchaseOrder: name256,
            currency,
            invoiceNumber: name256,
            paymentType: name256,
            paymentNumber: name256,
            paymentStatus: name256,
            customerId: int32Id,
            resellerId: refOrZero,
            createdById: name256,
          },
        }),
      ),
      resources: arrayOf(
        seedRecord(ResourceSchema, {
          omit: ['dataSize'], // computed from data
          optional: ['id', 'createdAt', 'updatedAt'], // default: an assigned id, the load time
          rules: { name: nonEmpty256, type: name256, code: name256, dataFormat: name256 },
        }),
      ),
      assemblies: arrayOf(seedRecord(AssemblySchema, { rules: assemblyRules })),
      log: arrayOf(
        seedRecord(LogEntrySchema, {
          omit: ['id'], // assigned at load, in array order
          optional: ['exception', 'properties'],
          rules: { properties: { type: 'string', format: 'json-object', errorText: 'must be a JSON object serialised as a string' } },
        }),
      ),
    },
    [
      '$schema',
      'apiKeys',
      'customers',
      'products',
      'releases',
      'licenseTemplates',
      'customerProducts',
      'orders',
      'resources',
      'assemblies',
      'log',
    ],
  ),
};
