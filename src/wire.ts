/**
 * Wire types shared by the CLI and the local reference service: the JSON shapes of
 * management API as docs/contract.md describes it (the published API, and our decisions where
 * it is silent). Each record's shape is declared once, as a JSON schema in src/schema/, and
 * its type here is inferred from it; this file and src/schema/ are what both sides import.
 */

/** gRPC status numbers used as the envelope `code` (contract §1). */
export const Code = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** Permission bitmask bits of an API key (spec: Read = 1, Write = 2, Delete = 4). */
export const Permission = { Read: 1, Write: 2, Delete: 4 } as const;

/** Roles of the owner of a key (spec, Authentication §2). */
export const ROLES = ['Administrator', 'LicenseManager', 'Sales', 'Customer'] as const;
export type Role = (typeof ROLES)[number];

export { LOG_LEVELS, type LogLevel } from './schema/log-entry.js';
export type { ApiKey, ApiKeyInput } from './schema/api-key.js';
export type { LogEntry } from './schema/log-entry.js';
export type { Resource, ResourceInput } from './schema/resource.js';
export type { Assembly, AssemblyInput } from './schema/assembly.js';
export type { Order } from './schema/order.js';
export type { LicenseTemplate } from './schema/license-template.js';
export type { CustomerProduct } from './schema/customer-product.js';
import type { ApiKey } from './schema/api-key.js';
import type { LogEntry } from './schema/log-entry.js';
import type { Resource } from './schema/resource.js';
import type { Assembly } from './schema/assembly.js';
import type { Order } from './schema/order.js';
import type { LicenseTemplate } from './schema/license-template.js';
import type { CustomerProduct } from './schema/customer-product.js';

/** Fields every response body carries (spec, Common rules §2): src/schema/envelope.ts. */
export type { Envelope } from './schema/envelope.js';
import type { Envelope } from './schema/envelope.js';

/** Query parameters every list endpoint takes (spec, Common rules §3; contract §5). */
export interface ListQuery {
  select?: string;
  filter?: string;
  sort?: string;
  take?: number;
  skip?: number;
}

export const TAKE_DEFAULT = 100;
export const TAKE_MAX = 1000;
export { INT32_MAX } from './schema/json-schema.js';

export type ApiKeyList = Envelope & { apiKeys: ApiKey[]; totalApiKeysCount: number };
export type LogList = Envelope & { logEntries: LogEntry[]; totalLogEntriesCount: number };
export type ResourceList = Envelope & { resources: Resource[]; totalResourcesCount: number };
export type AssemblyList = Envelope & { assemblies: Assembly[]; totalAssembliesCount: number };
export type OrderList = Envelope & { orders: Order[]; totalOrdersCount: number };
export type LicenseTemplateList = Envelope & { licenseTemplates: LicenseTemplate[]; totalLicenseTemplatesCount: number };
export type CustomerProductList = Envelope & { products: CustomerProduct[] };

/**
 * An API key as lic shows it anywhere (lists, doctor, dry runs): the public 8-character
 * prefix of an `api_` key (contract §3, §4) and `…`; of any other form only 4 characters,
 * and nothing of a short one (`****`).
 */
export function maskApiKey(key: string): string {
  const n = key.startsWith('api_') ? 8 : 4;
  return key.length > n * 2 ? `${key.slice(0, n)}…` : '****';
}
