/**
 * Wire types shared by the CLI and the local reference service: the JSON shapes of
 * management API as docs/contract.md describes it (the published API, and our decisions where
 * it is silent). The only file both sides import.
 */

/** gRPC status numbers used as the envelope `code` (contract §1). */
export const Code = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAUTHENTICATED: 16,
} as const;

/** Permission bitmask bits of an API key (spec: Read = 1, Write = 2, Delete = 4). */
export const Permission = { Read: 1, Write: 2, Delete: 4 } as const;

/** Roles of the owner of a key (spec, Authentication §2). */
export const ROLES = ['Administrator', 'LicenseManager', 'Sales', 'Customer'] as const;
export type Role = (typeof ROLES)[number];

/** Serilog levels, the allowed values of LogEntry.level (contract §6). */
export const LOG_LEVELS = ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Fields every response body carries (spec, Common rules §2). */
export interface Envelope {
  success: boolean;
  code: number;
  message: string;
  details?: { field: string; reason: string }[];
}

/** An API key as listed (contract §4); never carries the full secret. */
export interface ApiKey {
  id: number;
  name: string;
  ownerId: string;
  permissions: number;
  description: string;
  createdAt: string;
  expireDate: string | null;
  revoked: boolean;
  keyPrefix: string;
}

export interface LogEntry {
  id: number;
  message: string;
  messageTemplate: string;
  level: string;
  timeStamp: string;
  exception: string;
  properties: string;
}

export interface Resource {
  id: number;
  name: string;
  type: string;
  code: string;
  description: string;
  source: string;
  password: string;
  createdAt: string;
  updatedAt: string;
  /** base64 of the stored bytes (contract §2) */
  data: string;
  dataFormat: string;
}

export interface Assembly {
  id: number;
  name: string;
  version: string;
  culture: string;
  publicKeyToken: string;
  mappingFileId: number;
  debugSymbolsKey: string;
}

export interface Order {
  id: number;
  orderNumber: string;
  status: string;
  processedBy: string;
  purchaseOrder: string;
  total: number;
  currency: string;
  createdAt: string;
  updatedAt: string;
  invoiceNumber: string;
  paymentType: string;
  paymentNumber: string;
  paymentStatus: string;
  paymentDate: string | null;
  description: string;
  customerId: number;
  resellerId: number;
  createdById: string;
}

export interface LicenseTemplate {
  id: number;
  name: string;
  code: string;
  format: string;
  licenseFileName: string;
  generateKeyInfo: boolean;
  description: string;
  template: string;
  productId: number;
  signatureKeysId: number;
  releaseId: number;
  product: { id: string; name: string; version: string; copyright: string; url: string; description: string };
  components: string[];
  assemblies: Assembly[];
  fields: { name: string; value: string }[];
  features: { id: string; name: string; description: string; expireDate: string | null; key: string; data: string }[];
  restrictions: { id: string; name: string; expireDate: string | null; properties: Record<string, string> }[];
}

export interface CustomerProduct {
  id: number;
  code: string;
  name: string;
  description: string;
  url: string;
  copyright: string;
  createdAt: string;
  image: string;
  price: number;
  resellerPrice: number;
  currency: string;
  signatureKeysId: number;
}

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
export const INT32_MAX = 2147483647;

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
