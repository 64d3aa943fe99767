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

/** RFC 3339 date-time (T, t or space separator; fraction of any length; Z or ±hh:mm) or a plain date. */
const TIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|([+-])(\d{2}):(\d{2})))?$/;

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/**
 * Parses a time as contract §2 and §5 write it: RFC 3339 (`2025-01-18T14:04:02.659Z`,
 * offsets like `+01:00` allowed, fraction digits past milliseconds truncated) or a plain
 * date `2025-01-18` (midnight UTC). Returns ms since the epoch, or undefined if `text`
 * is not such a time (including impossible dates like 2025-02-30 and leap seconds).
 */
export function parseTimeLiteral(text: string): number | undefined {
  if (text.length > 64) return undefined;
  const m = TIME_RE.exec(text);
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // not Date.UTC: it maps years 0..99 to 1900..1999
  if (m[4] === undefined) return date.getTime();
  const h = Number(m[4]);
  const mi = Number(m[5]);
  const s = Number(m[6]);
  if (h > 23 || mi > 59 || s > 59) return undefined;
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  let offset = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  date.setUTCHours(h, mi, s, ms);
  return date.getTime() - offset;
}

/**
 * An API key as lic shows it anywhere (lists, doctor, dry runs): the public 8-character
 * prefix of an `api_` key (contract §3, §4) and `…`; of any other form only 4 characters,
 * and nothing of a short one (`****`).
 */
export function maskApiKey(key: string): string {
  const n = key.startsWith('api_') ? 8 : 4;
  return key.length > n * 2 ? `${key.slice(0, n)}…` : '****';
}
