/**
 * The seed dataset of the local service: the JSON shape of `lic serve --seed FILE.json`
 * (and of the built-in `--seed demo`), and `parseDataset`, which checks a parsed JSON
 * value against its schema (DATASET_SCHEMA, composed from the record schemas of
 * src/schema/ in ./dataset-schema.ts) and the references between records (contract §2,
 * §3, §6, §7, §8).
 *
 * Conventions of the file: camelCase fields as on the wire; timestamps are RFC 3339
 * strings (contract §2); optional timestamps (`releaseDate`, `paymentDate`, `expireDate`)
 * may be '' for "unset"; ids are int32 1..2147483647; binary data is base64.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { parseRfc3339 } from '../../time.js';
import {
  type ApiKey,
  type Assembly,
  type CustomerProduct,
  type LicenseTemplate,
  type LogEntry,
  type Order,
  type ResourceInput,
  type Role,
} from '../../wire.js';
import { DATASET_SCHEMA } from './dataset-schema.js';

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

/**
 * An API key to install: the wire ApiKey's fields that a caller sets (contract §4), its
 * full secret `key` when given (else generated at load), `expireDate` RFC 3339 or '' (no
 * expiry), `revoked` to install it already revoked.
 */
export type DatasetApiKey = Pick<ApiKey, 'ownerId' | 'name' | 'permissions'> &
  Partial<Pick<ApiKey, 'description' | 'revoked'>> & {
    /** A full key, `api_` + 24 of [a-z0-9] (contract §3), installed as is. */
    key?: string;
    expireDate?: string;
  };

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

/** A stored timestamp: an RFC 3339 date-time in the forms of src/time.ts (no plain date) → ms, or undefined. */
const timestampMs = (s: string) => parseRfc3339(s, { dateTimeOnly: true });

// ---------------------------------------------------------------------------------------
// Validation

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

let compiled: ReturnType<Ajv['compile']> | undefined;

function validator(): ReturnType<Ajv['compile']> {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: false, verbose: true, strict: true });
    ajv.addVocabulary(['errorText']);
    ajv.addFormat('rfc3339', { type: 'string', validate: (s: string) => timestampMs(s) !== undefined });
    ajv.addFormat('rfc3339-or-empty', { type: 'string', validate: (s: string) => s === '' || timestampMs(s) !== undefined });
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

const oneOf = (values: readonly unknown[]): string => `must be one of ${values.map((v) => String(v)).join(', ')}`;

function toDatasetError(root: unknown, e: ErrorObject): DatasetError {
  const ps = (e.parentSchema ?? {}) as Record<string, unknown>;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return new DatasetError(pathOf(root, e.instancePath, String(p.missingProperty)), 'is required');
    case 'additionalProperties':
      return new DatasetError(pathOf(root, e.instancePath, String(p.additionalProperty)), 'is not a known field');
    case 'type':
      if (Array.isArray(ps.enum)) return new DatasetError(pathOf(root, e.instancePath), oneOf(ps.enum));
      return new DatasetError(pathOf(root, e.instancePath), `must be ${ARTICLE[String(p.type)] ?? String(p.type)}`);
    case 'enum':
      return new DatasetError(pathOf(root, e.instancePath), oneOf(p.allowedValues as unknown[]));
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

/** Indexes `items` by `field`, failing on the first duplicate (`duplicate id 3`, `duplicate name "x"`). */
function unique<T, F extends keyof T & string>(items: readonly T[] | undefined, coll: string, field: F): Map<T[F], number> {
  return indexUnique(
    items,
    coll,
    field,
    (item) => item[field],
    (k) => `${field} ${JSON.stringify(k)}`,
  );
}

function checkReferences(d: Dataset): void {
  const customers = unique(d.customers, 'customers', 'id');
  const customerCodes = indexUnique(
    d.customers,
    'customers',
    'code',
    (c) => c.code,
    (k) => `code ${k}`,
  );
  const products = unique(d.products, 'products', 'id');
  unique(d.products, 'products', 'code');
  const releases = unique(d.releases, 'releases', 'id');
  unique(d.licenseTemplates, 'licenseTemplates', 'id');
  unique(d.orders, 'orders', 'id');
  indexUnique(
    d.orders,
    'orders',
    'orderNumber',
    (o) => o.orderNumber,
    (k) => `order number ${JSON.stringify(k)}`,
  );
  const resources = unique(d.resources, 'resources', 'id');
  unique(d.resources, 'resources', 'name');
  indexUnique(
    d.resources,
    'resources',
    'code',
    (r) => (r.code === '' ? undefined : r.code),
    (k) => `code ${JSON.stringify(k)}`,
  );
  unique(d.assemblies, 'assemblies', 'id');
  indexUnique(
    d.assemblies,
    'assemblies',
    'name',
    (a) => JSON.stringify([a.name, a.version, a.culture, a.publicKeyToken.toLowerCase()]),
    (k) => `identity ${(JSON.parse(k) as string[]).join(', ')}`,
  );
  const users = unique(d.users, 'users', 'id');
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
