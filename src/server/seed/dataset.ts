/**
 * The seed dataset of the local service: the JSON shape of `lic serve --seed FILE.json`
 * (and of the built-in `--seed demo`), its JSON schema, and `parseDataset`, which checks
 * a parsed JSON value against the schema and the references between records
 * (contract §2, §3, §6, §7, §8).
 *
 * Conventions of the file: camelCase fields as on the wire; timestamps are RFC 3339
 * strings (contract §2); optional timestamps (`releaseDate`, `paymentDate`, `expireDate`)
 * may be '' for "unset"; ids are int32 1..2147483647; binary data is base64.
 */
import { Ajv, type ErrorObject, type SchemaObject } from 'ajv';
import {
  INT32_MAX,
  LOG_LEVELS,
  parseTimeLiteral,
  ROLES,
  type Assembly,
  type CustomerProduct,
  type LicenseTemplate,
  type LogEntry,
  type Order,
  type ResourceInput,
  type Role,
} from '../../wire.js';

// ---------------------------------------------------------------------------------------
// Types

/** A user who can own API keys (contract §3). A Customer user names its customer's code. */
export interface DatasetUser {
  id: string;
  name: string;
  email: string;
  role: Role;
  /** `C-` + 8 of [A-Z0-9]; required for role Customer, forbidden for the others. */
  customerCode?: string;
}

/** An API key to install. Its full secret is `key` when given, else generated at load. */
export interface DatasetApiKey {
  ownerId: string;
  name: string;
  /** Bitmask Read 1 | Write 2 | Delete 4, 0..7 (contract §3). */
  permissions: number;
  description?: string;
  /** A full key, `api_` + 24 of [a-z0-9] (contract §3), installed as is. */
  key?: string;
  /** Extension: RFC 3339 or '' (no expiry). */
  expireDate?: string;
  /** Extension: install the key already revoked. */
  revoked?: boolean;
}

export interface DatasetCustomer {
  id: number;
  /** `C-` + 8 of [A-Z0-9] (contract §3). */
  code: string;
  name: string;
  email: string;
  country: string;
  createdAt: string;
}

/** The wire CustomerProduct (src/schema/customer-product.ts): currency an ISO 4217 code or '', signatureKeysId a resource of the dataset or 0. */
export type DatasetProduct = CustomerProduct;

export interface DatasetRelease {
  id: number;
  productId: number;
  version: string;
  name: string;
  /** RFC 3339, or '' when unknown. */
  releaseDate: string;
}

/** The wire LicenseTemplate without `product`, which the service derives when read. */
export type DatasetLicenseTemplate = Omit<LicenseTemplate, 'product'>;

export interface DatasetCustomerProduct {
  customerId: number;
  productId: number;
}

/** The wire Order; `paymentDate` may be '' (not paid). */
export type DatasetOrder = Order;

/** A resource's writable fields (src/schema/resource.ts), all given, with optional id and timestamps (default: assigned id, load time). */
export type DatasetResource = Required<ResourceInput> & {
  id?: number;
  createdAt?: string;
  updatedAt?: string;
};

/** The wire Assembly. */
export type DatasetAssembly = Assembly;

/** A wire LogEntry without its id (assigned at load, in array order); exception and properties may be left out. */
export type DatasetLogEntry = Omit<LogEntry, 'id' | 'exception' | 'properties'> & Partial<Pick<LogEntry, 'exception' | 'properties'>>;

/** A whole seed file. Only `users` is required. */
export interface Dataset {
  $schema?: string;
  users: DatasetUser[];
  apiKeys?: DatasetApiKey[];
  customers?: DatasetCustomer[];
  products?: DatasetProduct[];
  releases?: DatasetRelease[];
  licenseTemplates?: DatasetLicenseTemplate[];
  customerProducts?: DatasetCustomerProduct[];
  orders?: DatasetOrder[];
  resources?: DatasetResource[];
  assemblies?: DatasetAssembly[];
  log?: DatasetLogEntry[];
}

/** A seed file that is not a valid dataset; `path` is the JSON path of the first bad field. */
export class DatasetError extends Error {
  override readonly name = 'DatasetError';
  constructor(
    /** e.g. `orders[12].customerId`; `dataset` for the root. */
    readonly path: string,
    /** e.g. `must be an integer`. */
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

// ---------------------------------------------------------------------------------------
// Timestamps

/** A full RFC 3339 date-time: a `T` separator, seconds, 1-9 fraction digits, a zone (no plain dates in a dataset). */
const RFC3339_DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Parses an RFC 3339 date-time (`2025-01-18T14:04:02.659Z`, any offset, 1-9 fraction
 * digits, truncated to ms) to milliseconds since the Unix epoch; returns null when the
 * text is not one or names an impossible date (Feb 30, hour 24, leap second 60).
 * Rule: RFC 3339 §5.6, as required by contract §2.
 */
export function rfc3339ToMs(text: string): number | null {
  return RFC3339_DATE_TIME.test(text) ? (parseTimeLiteral(text) ?? null) : null;
}

// ---------------------------------------------------------------------------------------
// JSON schema

const int32Id = { type: 'integer', minimum: 1, maximum: INT32_MAX };
const refOrZero = { type: 'integer', minimum: 0, maximum: INT32_MAX };
const text = { type: 'string' };
const name256 = { type: 'string', maxLength: 256 };
const nonEmpty256 = { type: 'string', minLength: 1, maxLength: 256 };
const timestamp = { type: 'string', format: 'rfc3339' };
const timestampOrEmpty = { type: 'string', format: 'rfc3339-or-empty' };
const customerCode = { type: 'string', pattern: '^C-[A-Z0-9]{8}$', errorText: 'must be "C-" followed by 8 of A-Z, 0-9' };
const currency = { type: 'string', pattern: '^([A-Z]{3})?$', errorText: 'must be a 3-letter ISO 4217 code such as USD, or empty' };
const money = { type: 'number', minimum: 0 };

/** A record object: exactly these properties, all required except `optional`. */
function record(props: Record<string, object>, optional: string[] = []): SchemaObject {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(props).filter((k) => !optional.includes(k)),
    properties: props,
  };
}

const assemblyProps = {
  id: int32Id,
  name: nonEmpty256,
  version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+\\.\\d+$', errorText: 'must be a version a.b.c.d' },
  culture: name256,
  publicKeyToken: { type: 'string', pattern: '^([0-9a-fA-F]{16})?$', errorText: 'must be 16 hex digits or empty' },
  mappingFileId: refOrZero,
  debugSymbolsKey: text,
};
const assemblySchema = record(assemblyProps);
/** An assembly inside a license template: id 0 allowed (a copy not in the assemblies table). */
const embeddedAssemblySchema = record({ ...assemblyProps, id: refOrZero });

/**
 * JSON schema (draft-07, ajv dialect) of a seed file. Besides standard keywords it uses
 * the formats `rfc3339` and `rfc3339-or-empty` and the annotation `errorText`, which
 * `parseDataset` registers.
 */
export const DATASET_SCHEMA: SchemaObject = {
  title: 'lic serve seed dataset',
  ...record(
    {
      $schema: text,
      users: {
        type: 'array',
        items: record(
          {
            id: nonEmpty256,
            name: name256,
            email: name256,
            role: { enum: [...ROLES] },
            customerCode,
          },
          ['customerCode'],
        ),
      },
      apiKeys: {
        type: 'array',
        items: record(
          {
            ownerId: nonEmpty256,
            name: name256,
            permissions: { type: 'integer', minimum: 0, maximum: 7 },
            description: text,
            key: { type: 'string', pattern: '^api_[a-z0-9]{24}$', errorText: 'must be "api_" followed by 24 of a-z, 0-9' },
            expireDate: timestampOrEmpty,
            revoked: { type: 'boolean' },
          },
          ['description', 'key', 'expireDate', 'revoked'],
        ),
      },
      customers: {
        type: 'array',
        items: record({ id: int32Id, code: customerCode, name: name256, email: name256, country: name256, createdAt: timestamp }),
      },
      products: {
        type: 'array',
        items: record({
          id: int32Id,
          code: nonEmpty256,
          name: name256,
          description: text,
          url: text,
          copyright: text,
          createdAt: timestamp,
          image: text,
          price: money,
          resellerPrice: money,
          currency,
          signatureKeysId: refOrZero,
        }),
      },
      releases: {
        type: 'array',
        items: record({ id: int32Id, productId: int32Id, version: name256, name: name256, releaseDate: timestampOrEmpty }),
      },
      licenseTemplates: {
        type: 'array',
        items: record({
          id: int32Id,
          name: name256,
          code: name256,
          format: nonEmpty256,
          licenseFileName: name256,
          generateKeyInfo: { type: 'boolean' },
          description: text,
          template: text,
          productId: int32Id,
          signatureKeysId: refOrZero,
          releaseId: int32Id,
          components: { type: 'array', items: text },
          assemblies: { type: 'array', items: embeddedAssemblySchema },
          fields: { type: 'array', items: record({ name: name256, value: text }) },
          features: {
            type: 'array',
            items: record({ id: text, name: name256, description: text, expireDate: timestampOrEmpty, key: text, data: text }),
          },
          restrictions: {
            type: 'array',
            items: record({
              id: text,
              name: name256,
              expireDate: timestampOrEmpty,
              properties: { type: 'object', additionalProperties: text },
            }),
          },
        }),
      },
      customerProducts: {
        type: 'array',
        items: record({ customerId: int32Id, productId: int32Id }),
      },
      orders: {
        type: 'array',
        items: record({
          id: int32Id,
          orderNumber: nonEmpty256,
          status: name256,
          processedBy: name256,
          purchaseOrder: name256,
          total: { type: 'number' },
          currency,
          createdAt: timestamp,
          updatedAt: timestamp,
          invoiceNumber: name256,
          paymentType: name256,
          paymentNumber: name256,
          paymentStatus: name256,
          paymentDate: timestampOrEmpty,
          description: text,
          customerId: int32Id,
          resellerId: refOrZero,
          createdById: name256,
        }),
      },
      resources: {
        type: 'array',
        items: record(
          {
            id: int32Id,
            name: nonEmpty256,
            type: name256,
            code: name256,
            description: text,
            source: text,
            password: text,
            createdAt: timestamp,
            updatedAt: timestamp,
            data: { type: 'string', format: 'base64', errorText: 'must be base64 (RFC 4648, with padding)' },
            dataFormat: name256,
          },
          ['id', 'createdAt', 'updatedAt'],
        ),
      },
      assemblies: { type: 'array', items: assemblySchema },
      log: {
        type: 'array',
        items: record(
          {
            timeStamp: timestamp,
            level: { enum: [...LOG_LEVELS] },
            message: text,
            messageTemplate: text,
            exception: text,
            properties: { type: 'string', format: 'json-object', errorText: 'must be a JSON object serialised as a string' },
          },
          ['exception', 'properties'],
        ),
      },
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

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

let compiled: ReturnType<Ajv['compile']> | undefined;

function validator(): ReturnType<Ajv['compile']> {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: false, verbose: true, strict: true });
    ajv.addVocabulary(['errorText']);
    ajv.addFormat('rfc3339', { type: 'string', validate: (s: string) => rfc3339ToMs(s) !== null });
    ajv.addFormat('rfc3339-or-empty', { type: 'string', validate: (s: string) => s === '' || rfc3339ToMs(s) !== null });
    ajv.addFormat('base64', { type: 'string', validate: (s: string) => BASE64.test(s) });
    ajv.addFormat('json-object', {
      type: 'string',
      validate: (s: string) => {
        if (s === '') return true;
        try {
          const v: unknown = JSON.parse(s);
          return typeof v === 'object' && v !== null && !Array.isArray(v);
        } catch {
          return false;
        }
      },
    });
    compiled = ajv.compile(DATASET_SCHEMA);
  }
  return compiled;
}

// ---------------------------------------------------------------------------------------
// Error paths and messages

/** JSON path text (`orders[12].customerId`) of a JSON pointer into `root`. */
function pathOf(root: unknown, pointer: string, extra?: string): string {
  const segments =
    pointer === ''
      ? []
      : pointer
          .slice(1)
          .split('/')
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) segments.push(extra);
  let out = '';
  let node: unknown = root;
  for (const seg of segments) {
    if (Array.isArray(node)) {
      out += `[${seg}]`;
      node = node[Number(seg)];
    } else {
      out += /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(seg) ? (out === '' ? seg : `.${seg}`) : `[${JSON.stringify(seg)}]`;
      node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[seg] : undefined;
    }
  }
  return out === '' ? 'dataset' : out;
}

const ARTICLE: Record<string, string> = {
  integer: 'an integer',
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  null: 'null',
};

function toDatasetError(root: unknown, e: ErrorObject): DatasetError {
  const ps = (e.parentSchema ?? {}) as Record<string, unknown>;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return new DatasetError(pathOf(root, e.instancePath, String(p.missingProperty)), 'is required');
    case 'additionalProperties':
      return new DatasetError(pathOf(root, e.instancePath, String(p.additionalProperty)), 'is not a known field');
    case 'type':
      return new DatasetError(pathOf(root, e.instancePath), `must be ${ARTICLE[String(p.type)] ?? String(p.type)}`);
    case 'enum':
      return new DatasetError(
        pathOf(root, e.instancePath),
        `must be one of ${(p.allowedValues as unknown[]).map((v) => String(v)).join(', ')}`,
      );
    case 'format':
      if (p.format === 'rfc3339')
        return new DatasetError(pathOf(root, e.instancePath), 'must be an RFC 3339 timestamp such as 2025-01-18T14:04:02.659Z');
      if (p.format === 'rfc3339-or-empty')
        return new DatasetError(pathOf(root, e.instancePath), 'must be an RFC 3339 timestamp such as 2025-01-18T14:04:02.659Z, or empty');
      break;
    case 'minimum':
    case 'maximum':
      if (typeof ps.minimum === 'number' && typeof ps.maximum === 'number') {
        return new DatasetError(pathOf(root, e.instancePath), `must be an integer from ${ps.minimum} to ${ps.maximum}`);
      }
      return new DatasetError(pathOf(root, e.instancePath), `must be ${e.keyword === 'minimum' ? '>=' : '<='} ${String(p.limit)}`);
    case 'minLength':
      if (p.limit === 1) return new DatasetError(pathOf(root, e.instancePath), 'must not be empty');
      break;
    case 'maxLength':
      return new DatasetError(pathOf(root, e.instancePath), `must be at most ${String(p.limit)} characters`);
  }
  if (typeof ps.errorText === 'string') return new DatasetError(pathOf(root, e.instancePath), ps.errorText);
  return new DatasetError(pathOf(root, e.instancePath), e.message ?? `fails ${e.keyword}`);
}

// ---------------------------------------------------------------------------------------
// Referential checks

/** Indexes `items` by `key`, failing on the first duplicate. */
function indexUnique<T, K>(
  items: readonly T[] | undefined,
  coll: string,
  field: string,
  key: (t: T) => K | undefined,
  what: (k: K) => string,
): Map<K, number> {
  const seen = new Map<K, number>();
  (items ?? []).forEach((item, i) => {
    const k = key(item);
    if (k === undefined) return;
    const first = seen.get(k);
    if (first !== undefined) throw new DatasetError(`${coll}[${i}].${field}`, `duplicate ${what(k)} (also ${coll}[${first}])`);
    seen.set(k, i);
  });
  return seen;
}

function checkReferences(d: Dataset): void {
  const customers = indexUnique(
    d.customers,
    'customers',
    'id',
    (c) => c.id,
    (k) => `id ${k}`,
  );
  const customerCodes = indexUnique(
    d.customers,
    'customers',
    'code',
    (c) => c.code,
    (k) => `code ${k}`,
  );
  const products = indexUnique(
    d.products,
    'products',
    'id',
    (p) => p.id,
    (k) => `id ${k}`,
  );
  indexUnique(
    d.products,
    'products',
    'code',
    (p) => p.code,
    (k) => `code ${JSON.stringify(k)}`,
  );
  const releases = indexUnique(
    d.releases,
    'releases',
    'id',
    (r) => r.id,
    (k) => `id ${k}`,
  );
  indexUnique(
    d.licenseTemplates,
    'licenseTemplates',
    'id',
    (t) => t.id,
    (k) => `id ${k}`,
  );
  indexUnique(
    d.orders,
    'orders',
    'id',
    (o) => o.id,
    (k) => `id ${k}`,
  );
  indexUnique(
    d.orders,
    'orders',
    'orderNumber',
    (o) => o.orderNumber,
    (k) => `order number ${JSON.stringify(k)}`,
  );
  const resources = indexUnique(
    d.resources,
    'resources',
    'id',
    (r) => r.id,
    (k) => `id ${k}`,
  );
  indexUnique(
    d.resources,
    'resources',
    'name',
    (r) => r.name,
    (k) => `name ${JSON.stringify(k)}`,
  );
  indexUnique(
    d.resources,
    'resources',
    'code',
    (r) => (r.code === '' ? undefined : r.code),
    (k) => `code ${JSON.stringify(k)}`,
  );
  indexUnique(
    d.assemblies,
    'assemblies',
    'id',
    (a) => a.id,
    (k) => `id ${k}`,
  );
  indexUnique(
    d.assemblies,
    'assemblies',
    'name',
    (a) => JSON.stringify([a.name, a.version, a.culture, a.publicKeyToken.toLowerCase()]),
    (k) => `identity ${(JSON.parse(k) as string[]).join(', ')}`,
  );
  const users = indexUnique(
    d.users,
    'users',
    'id',
    (u) => u.id,
    (k) => `id ${JSON.stringify(k)}`,
  );
  indexUnique(
    d.apiKeys,
    'apiKeys',
    'key',
    (k) => k.key,
    () => 'key',
  );
  indexUnique(
    d.customerProducts,
    'customerProducts',
    'productId',
    (cp) => `${cp.customerId}/${cp.productId}`,
    (k) => `link ${k.replace('/', ' → ')}`,
  );

  const resourceRef = (path: string, id: number): void => {
    if (id !== 0 && !resources.has(id)) throw new DatasetError(path, `no resource with id ${id} (use 0 for none)`);
  };

  d.users.forEach((u, i) => {
    if (u.role === 'Customer') {
      if (u.customerCode === undefined) throw new DatasetError(`users[${i}].customerCode`, 'is required for role Customer');
      if (!customerCodes.has(u.customerCode)) throw new DatasetError(`users[${i}].customerCode`, `no customer with code ${u.customerCode}`);
    } else if (u.customerCode !== undefined) {
      throw new DatasetError(`users[${i}].customerCode`, `only a Customer user has a customer code (role is ${u.role})`);
    }
  });
  d.apiKeys?.forEach((k, i) => {
    if (!users.has(k.ownerId)) throw new DatasetError(`apiKeys[${i}].ownerId`, `no user with id ${JSON.stringify(k.ownerId)}`);
  });
  d.products?.forEach((p, i) => resourceRef(`products[${i}].signatureKeysId`, p.signatureKeysId));
  d.releases?.forEach((r, i) => {
    if (!products.has(r.productId)) throw new DatasetError(`releases[${i}].productId`, `no product with id ${r.productId}`);
  });
  d.licenseTemplates?.forEach((t, i) => {
    if (!products.has(t.productId)) throw new DatasetError(`licenseTemplates[${i}].productId`, `no product with id ${t.productId}`);
    const r = releases.get(t.releaseId);
    if (r === undefined) throw new DatasetError(`licenseTemplates[${i}].releaseId`, `no release with id ${t.releaseId}`);
    const owner = d.releases![r]!.productId;
    if (owner !== t.productId) {
      throw new DatasetError(`licenseTemplates[${i}].releaseId`, `release ${t.releaseId} belongs to product ${owner}, not ${t.productId}`);
    }
    resourceRef(`licenseTemplates[${i}].signatureKeysId`, t.signatureKeysId);
  });
  d.customerProducts?.forEach((cp, i) => {
    if (!customers.has(cp.customerId)) throw new DatasetError(`customerProducts[${i}].customerId`, `no customer with id ${cp.customerId}`);
    if (!products.has(cp.productId)) throw new DatasetError(`customerProducts[${i}].productId`, `no product with id ${cp.productId}`);
  });
  d.orders?.forEach((o, i) => {
    if (!customers.has(o.customerId)) throw new DatasetError(`orders[${i}].customerId`, `no customer with id ${o.customerId}`);
  });
  d.assemblies?.forEach((a, i) => resourceRef(`assemblies[${i}].mappingFileId`, a.mappingFileId));
}

// ---------------------------------------------------------------------------------------

/**
 * Validates a parsed seed file (`JSON.parse` output) and returns it typed as a Dataset
 * (the same object, not copied). Checks the shape against DATASET_SCHEMA (types, required
 * and unknown fields, int32 ids, permissions 0..7, roles from wire ROLES, levels from
 * LOG_LEVELS, RFC 3339 timestamps, base64 data, `properties` a JSON object string),
 * then uniqueness (ids, customer and product codes, order numbers, resource names and
 * codes, assembly identities, API keys, customer-product links) and references (order →
 * customer, release → product, template → product and a release of that product, user
 * customerCode → customer, customerProducts → both, apiKeys.ownerId → user,
 * signatureKeysId / mappingFileId → resource or 0).
 * Throws DatasetError naming the JSON path of the first fault, e.g.
 * `orders[12].customerId: no customer with id 99`. Rules: contract §2, §3, §6, §7, §8.
 */
export function parseDataset(json: unknown): Dataset {
  const validate = validator();
  if (!validate(json)) {
    const first = validate.errors?.[0];
    throw first ? toDatasetError(json, first) : new DatasetError('dataset', 'is not a valid dataset');
  }
  const d = json as unknown as Dataset;
  checkReferences(d);
  return d;
}
