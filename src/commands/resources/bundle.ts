/**
 * The resource bundle of `resources export` / `resources import`: NDJSON, one resource
 * per line with every writable field but the password (contract §7: write-only, never
 * read back), `data` as base64 (contract §2). Resources are matched by `code`.
 */
import type { Static } from 'typebox';
import { UsageError } from '../../cli/errors.js';
import { collectAfterRecordData } from '../../cli/memory.js';
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
// a plain JSON Schema (like src/schema/), checked by TypeBox's Value, which checkBundle
// imports when it runs: loading TypeBox would cost every command (bench/startup.md)
export type BundleResource = Static<typeof BundleResource>;

/** The fields of a bundle line, in the order export writes them. */
export const BUNDLE_FIELDS = ['name', 'type', 'code', 'description', 'source', 'dataFormat', 'data'] as const;

/**
 * Longest line of a bundle: 16 MiB, more than the longest valid one (MAX_DATA_BYTES of
 * data is 9.4 MiB of base64, plus the other fields). A bundle is read a line at a time
 * (bundleLines), so this, not the bundle's size, bounds the memory an import needs.
 */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Data formats that hold a password-protected container: PKCS #12 (`.pfx`, `.p12`;
 * RFC 7292). A resource in one needs its password set again after an import, since the
 * service never gives it back (contract §7). An SNK key pair has none.
 */
const PASSWORD_FORMATS = ['pfx', 'p12'];

/** Whether a resource of this data format needs a password (PASSWORD_FORMATS, case-insensitive). */
export const needsPassword = (r: Pick<BundleResource, 'dataFormat'>): boolean => PASSWORD_FORMATS.includes(r.dataFormat.toLowerCase());

/** One line of a bundle as read: its 1-based number and its bytes (without the line end). */
export interface BundleLine {
  line: number;
  bytes: Buffer;
}

/**
 * The lines of a bundle arriving as `chunks` (a file or stdin, read as they come): LF or
 * CRLF ends, a UTF-8 byte-order mark at the start dropped. Holds at most one line, so
 * memory stays flat whatever the bundle's size: a line longer than MAX_LINE_BYTES is a
 * UsageError (exit 2) naming it, raised without reading the rest (`< /dev/zero`).
 */
export async function* bundleLines(chunks: AsyncIterable<Buffer>, source: string): AsyncGenerator<BundleLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let line = 1;
  let first = true;
  const take = (tail: Buffer): Buffer => {
    let b = parts.length ? Buffer.concat([...parts, tail]) : tail;
    parts = [];
    size = 0;
    if (first && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
    first = false;
    return b[b.length - 1] === 13 ? b.subarray(0, b.length - 1) : b;
  };
  for await (const chunk of chunks) {
    let at = 0;
    for (let nl = chunk.indexOf(10, at); nl !== -1; nl = chunk.indexOf(10, at)) {
      if (size + nl - at > MAX_LINE_BYTES) throw tooLong(source, line);
      yield { line: line++, bytes: take(chunk.subarray(at, nl)) };
      at = nl + 1;
    }
    if (at < chunk.length) {
      size += chunk.length - at;
      if (size > MAX_LINE_BYTES) throw tooLong(source, line);
      // no copy: a readable stream hands out a new buffer with every chunk and never reuses it
      parts.push(chunk.subarray(at));
    }
  }
  if (size) yield { line, bytes: take(Buffer.alloc(0)) };
}

const tooLong = (source: string, line: number) =>
  new UsageError(
    `${source} line ${line}: longer than the limit of ${MAX_LINE_BYTES} bytes (16 MiB) for a line, more than any resource needs: not a bundle; nothing was sent`,
  );

/**
 * Whether `s` is standard base64 with padding, as protobuf JSON writes bytes (contract §2),
 * or empty: a length in fours, the alphabet, at most two `=` at the end. (A regular
 * expression of groups of four overflows V8's stack on a few MiB of data.)
 */
export const isBase64 = (s: string): boolean => s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s);

/** TypeBox's value checker (typebox/value), loaded by checkBundle. */
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

/** Invalid lines listed in the message of a bad bundle; the rest are counted. */
const SHOWN_PROBLEMS = 5;
/** Invalid lines after which checkBundle stops reading: the bundle is no bundle (`yes | lic resources import -`), more lines tell nothing new. */
const MAX_PROBLEMS = 100;

/**
 * Checks a bundle read as `lines` (bundleLines), a line at a time: UTF-8, one JSON object
 * per line, blank lines ignored. Every line is checked before anything is sent: a line that
 * is not UTF-8 or JSON, not a BundleResource, whose data is not base64 or is over
 * MAX_DATA_BYTES, or whose code an earlier line already has, is a UsageError (exit 2)
 * naming the line and the field: the first SHOWN_PROBLEMS such lines listed, the others
 * counted, and reading stops at the MAX_PROBLEMS-th (memory and time bounded whatever the
 * input's shape). An empty bundle is a UsageError too. Keeps only each code's line, never
 * a record. Returns how many resources.
 */
export async function checkBundle(lines: AsyncIterable<BundleLine>, source: string): Promise<number> {
  const { Value } = await import('typebox/value');
  const problems: string[] = [];
  let count = 0;
  let stoppedAt: number | undefined;
  const problem = (p: string) => {
    if (++count <= SHOWN_PROBLEMS) problems.push(p);
  };
  const seen = new Map<string, number>();
  for await (const { line, bytes } of lines) {
    if (count >= MAX_PROBLEMS) {
      stoppedAt = line - 1;
      break;
    }
    const s = lineText(bytes);
    if (s === undefined) {
      problem(`${source} line ${line}: not UTF-8 text`);
      continue;
    }
    if (s.trim() === '') continue;
    const r = checkLine(Value, s, (p) => problem(`${source} line ${line}: ${p}`));
    if (!r) continue;
    const before = seen.get(r.code);
    if (before !== undefined) {
      problem(`${source} line ${line}: field code: "${r.code}" is already on line ${before}; a bundle has each code once`);
      continue;
    }
    seen.set(r.code, line);
    collectAfterRecordData(bytes.length);
  }
  if (count) {
    const rest = count - problems.length;
    const more = rest ? `\n  … and ${rest} more` : '';
    const stopped = stoppedAt === undefined ? '' : ` (stopped reading after line ${stoppedAt}: ${MAX_PROBLEMS} invalid lines)`;
    throw new UsageError(`invalid bundle; nothing was sent:\n  ${problems.join('\n  ')}${more}${stopped}`);
  }
  if (seen.size === 0) throw new UsageError(`${source}: the bundle is empty (no resource on any line); nothing was sent`);
  return seen.size;
}

/** A line's bytes as text, or undefined when they are not UTF-8. */
export function lineText(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
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
  if (!isBase64(value.data)) return void problem('field data: not standard base64 (A-Z a-z 0-9 + / with = padding)');
  const size = Buffer.byteLength(value.data, 'base64');
  if (size > MAX_DATA_BYTES) return void problem(`field data: ${size} bytes is more than the limit of ${MAX_DATA_BYTES} bytes (7 MiB)`);
  return value;
}
