/**
 * The resource bundle of `resources export` / `resources import`: NDJSON, one resource
 * per line with every writable field but the password (contract §7: write-only, never
 * read back), `data` as base64 (contract §2). Resources are matched by `code`.
 */
import type { Static } from 'typebox';
import { UsageError } from '../../cli/errors.js';
import { MAX_DATA_BYTES } from './input.js';

/** Names and codes at most 256 characters (contract §9). */
const MAX_NAME = 256;

/**
 * One line of a bundle: the fields that recreate a resource, in this order. `code` is
 * required and not empty (the import matches by it); `data` is standard base64.
 */
export const BundleResource = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: MAX_NAME },
    type: { type: 'string', minLength: 1 },
    code: { type: 'string', minLength: 1, maxLength: MAX_NAME },
    description: { type: 'string' },
    source: { type: 'string' },
    dataFormat: { type: 'string' },
    data: { type: 'string' },
  },
  required: ['name', 'type', 'code', 'description', 'source', 'dataFormat', 'data'],
  additionalProperties: false,
} as const;
// a plain JSON Schema (like src/schema/), checked by TypeBox's Value, which parseBundle
// imports when it runs: loading TypeBox costs every command ~10 ms
export type BundleResource = Static<typeof BundleResource>;

/** The fields of a bundle line, in the order export writes them. */
export const BUNDLE_FIELDS = ['name', 'type', 'code', 'description', 'source', 'dataFormat', 'data'] as const;

/** Largest bundle read by `resources import`: 256 MiB (held as bytes and checked whole before anything is sent). */
export const MAX_BUNDLE_BYTES = 256 * 1024 * 1024;

/**
 * Data formats that hold a password-protected container: PKCS #12 (`.pfx`, `.p12`;
 * RFC 7292). A resource in one needs its password set again after an import, since the
 * service never gives it back (contract §7). An SNK key pair has none.
 */
const PASSWORD_FORMATS = ['pfx', 'p12'];

/** Whether a resource of this data format needs a password (PASSWORD_FORMATS, case-insensitive). */
export const needsPassword = (r: Pick<BundleResource, 'dataFormat'>): boolean => PASSWORD_FORMATS.includes(r.dataFormat.toLowerCase());

/** A bundle line checked: its 1-based number, its code, and the resource (parsed again on each call, so a large bundle is held as bytes only). */
export interface BundleEntry {
  line: number;
  code: string;
  read(): BundleResource;
}

/** Standard base64 with padding, as protobuf JSON writes bytes (contract §2); also the empty string. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** TypeBox's value checker (typebox/value), loaded by parseBundle. */
type TypeBoxValue = typeof import('typebox/value').Value;

/** TypeBox's first complaint about `value` as `field: message`, naming the field (or the unknown one). */
function firstError(Value: TypeBoxValue, value: unknown): string {
  const errors = [...Value.Errors(BundleResource, value)];
  const unknown =
    value && typeof value === 'object' ? Object.keys(value).filter((k) => !(BUNDLE_FIELDS as readonly string[]).includes(k)) : [];
  if (unknown.includes('password'))
    return 'field password: a bundle never carries passwords (the service never gives them back); set them after the import';
  if (unknown.length) return `unknown field ${unknown[0]} (fields: ${BUNDLE_FIELDS.join(', ')})`;
  const missing = BUNDLE_FIELDS.filter((f) => !(f in (value as object)));
  if (missing.length) return `field ${missing[0]} is missing`;
  const e = errors[0]!;
  return `field ${e.instancePath.replace(/^\//, '')}: ${e.message}`;
}

/**
 * Checks the bundle `bytes` (from `source`, for messages): UTF-8 (a byte-order mark at
 * the start is dropped), one JSON object per line (LF or CRLF), blank lines ignored.
 * Every line is checked before anything is sent: a line that is not UTF-8 or JSON, not a
 * BundleResource, whose data is not base64 or is over MAX_DATA_BYTES, or whose code an
 * earlier line already has, is a UsageError (exit 2) naming the line and the field (up to
 * 5 such lines listed). An empty bundle is a UsageError too. The entries parse their
 * line again when read, so only the bytes stay in memory, not every record.
 */
export async function parseBundle(bytes: Buffer, source: string): Promise<BundleEntry[]> {
  const { Value } = await import('typebox/value');
  const entries: BundleEntry[] = [];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const textOf = (start: number, end: number) => utf8.decode(bytes.subarray(start, end)).replace(/\r$/, '');
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  for (let start = bom, line = 1; start < bytes.length; line++) {
    const nl = bytes.indexOf(10, start);
    const end = nl === -1 ? bytes.length : nl;
    const at = start;
    start = end + 1;
    let s: string;
    try {
      s = textOf(at, end);
    } catch {
      problems.push(`${source} line ${line}: not UTF-8 text`);
      continue;
    }
    if (s.trim() === '') continue;
    const r = checkLine(Value, s, (p) => problems.push(`${source} line ${line}: ${p}`));
    if (!r) continue;
    const before = seen.get(r.code);
    if (before !== undefined) {
      problems.push(`${source} line ${line}: field code: "${r.code}" is already on line ${before}; a bundle has each code once`);
      continue;
    }
    seen.set(r.code, line);
    entries.push({ line, code: r.code, read: () => JSON.parse(textOf(at, end)) as BundleResource });
  }
  if (problems.length) {
    const more = problems.length > 5 ? `\n  … and ${problems.length - 5} more` : '';
    throw new UsageError(`invalid bundle; nothing was sent:\n  ${problems.slice(0, 5).join('\n  ')}${more}`);
  }
  if (entries.length === 0) throw new UsageError(`${source}: the bundle is empty (no resource on any line); nothing was sent`);
  return entries;
}

/** One line's text → the resource, or undefined after telling `problem` what is wrong with it. */
function checkLine(Value: TypeBoxValue, s: string, problem: (p: string) => void): BundleResource | undefined {
  let value: unknown;
  try {
    value = JSON.parse(s);
  } catch (e) {
    // the parser's own message quotes the line, which may hold anything: give the position only
    const at = /position (\d+)/.exec((e as Error).message)?.[1];
    return void problem(`not valid JSON${at === undefined ? '' : ` (at character ${Number(at) + 1})`}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return void problem(
      `expected a JSON object (a resource), got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}`,
    );
  }
  if (!Value.Check(BundleResource, value)) return void problem(firstError(Value, value));
  if (!BASE64.test(value.data)) return void problem('field data: not standard base64 (A-Z a-z 0-9 + / with = padding)');
  const size = Buffer.byteLength(value.data, 'base64');
  if (size > MAX_DATA_BYTES) return void problem(`field data: ${size} bytes is more than the limit of ${MAX_DATA_BYTES} bytes (7 MiB)`);
  return value;
}
