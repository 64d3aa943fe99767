/**
 * A list page's records passed through as the service sent them. When every record of a
 * page is already in the documented shape (lic serve's are: each declared field, in
 * declared order, nothing else) and written as `JSON.stringify` writes it, the text of the
 * records is what lic would print, so a stream (`--all -o ndjson`, `-o json` off a
 * terminal) writes that text instead of parsing the page into objects and stringifying
 * them again (bench/stream-profile.md: the two took ~40 % of the client's time). Whether a
 * page qualifies is decided record by record by a pattern built from the noun's declared
 * fields; one that does not (the original service, which leaves default values out, a
 * number written `1.0`, a `\/` escape, whitespace) is parsed whole as before and
 * normalised (./normalize.ts), so the output is byte for byte the same either way
 * (test/cli/list/page-text.test.ts compares them).
 */
import type { FieldTypes } from './normalize.js';

/** A page's records as text: `text.slice(start, end)` is `{...},{...}` (the array without its brackets). */
export interface PageText {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** where each record's text ends (the offset after its `}`), in order */
  readonly ends: readonly number[];
  /** how many records */
  readonly count: number;
  /** the field the list pages by, as declared */
  readonly key: string;
  /** each record's `key`, in order */
  readonly keys: readonly number[];
  /** the first declared field: every record's text starts with `{"<first>":` */
  readonly first: string;
  /** set once the body's array was read as objects (a fetch that looks at or rebuilds the records): the text is then not theirs to print */
  touched?: boolean;
}

/** Where a scanned page keeps its PageText: a property of the body, under this symbol. */
const PAGE_TEXT = Symbol('lic.pageText');

/**
 * The PageText of a body the page scanner read and whose records nobody read as objects;
 * undefined for a body parsed whole, rebuilt by the noun's fetch, or whose array was read.
 */
export function pageTextOf(body: object): PageText | undefined {
  const p = (body as { [PAGE_TEXT]?: PageText })[PAGE_TEXT];
  return p && !p.touched ? p : undefined;
}

/** An integer as JSON.stringify writes a safe integer (at most 15 digits, so always exact). */
const INT = '-?(?:0|[1-9][0-9]{0,14})';
/**
 * A JSON string exactly as JSON.stringify writes it: no control character, `"` or `\` unescaped;
 * escapes only `\"`, `\\`, the short ones (`\b \f \n \r \t`) and `\u00XX` (lower-case hex)
 * for the other control characters. Not `\/`, not `\u` of anything else.
 */
const STRING = '"(?:[^"\\\\\\x00-\\x1f]|\\\\["\\\\bfnrt]|\\\\u00(?:0[0-7bef]|1[0-9a-f]))*"';
const NON_EMPTY_STRING = STRING.replace(/\*"$/, '+"');

/**
 * The pattern of one field's value that normalizeRecord keeps as sent (its isNormal) and
 * JSON.stringify writes back the same; undefined for a type the scanner leaves to the full
 * path (arrays, objects, nested records; a non-integer number).
 */
function valuePattern(type: FieldTypes[string]): string | undefined {
  switch (type) {
    case 'int':
    case 'optionalInt':
    case 'number':
      return INT;
    case 'string':
      return STRING;
    case 'time':
      return `(?:null|${NON_EMPTY_STRING})`;
    case 'bool':
      return '(?:true|false)';
    default:
      return undefined;
  }
}

/**
 * The body reader of a list's pages (ApiClient's `parse`) that keeps the records of
 * `arrayField` as text when each one matches the noun's `types` exactly (see the top of
 * this file), with `key` (an integer field) read from each; undefined when the noun has a
 * field the scanner cannot vouch for. The body it returns is the reply's JSON with its
 * PageText under PAGE_TEXT and the array as a getter that parses the records when read
 * (a noun's fetch may look at them: then the page is printed from those objects, as
 * before); any other text is JSON.parse'd whole.
 */
export function pageScanner(arrayField: string, types: FieldTypes, key: string): ((text: string) => unknown) | undefined {
  const names = Object.keys(types);
  if (!names.length || !names.includes(key) || !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(arrayField)) return undefined;
  const parts: string[] = [];
  for (const name of names) {
    const value = valuePattern(types[name]!);
    if (value === undefined || !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) return undefined;
    parts.push(`"${name}":${name === key ? `(${INT})` : value}`);
  }
  const record = new RegExp(`\\{${parts.join(',')}\\}`, 'y');
  const open = `"${arrayField}":[`;
  return (text: string) => {
    const at = text.indexOf(open);
    if (at < 0) return JSON.parse(text);
    const start = at + open.length;
    const keys: number[] = [];
    const ends: number[] = [];
    let i = start;
    if (text.charCodeAt(i) !== 0x5d /* ] */) {
      for (;;) {
        record.lastIndex = i;
        const m = record.exec(text);
        if (!m) return JSON.parse(text);
        keys.push(Number(m[1]));
        i = record.lastIndex;
        ends.push(i);
        const c = text.charCodeAt(i);
        if (c === 0x5d) break;
        if (c !== 0x2c /* , */) return JSON.parse(text);
        i++;
      }
    }
    if (keys.length === 0) return JSON.parse(text);
    const end = i;
    // the rest of the reply, with the array emptied: its envelope and total, checked as JSON
    const body = JSON.parse(`${text.slice(0, start)}${text.slice(end)}`) as unknown;
    // the array found must be the body's own (not a field of something before it), and the only one
    const own = body !== null && typeof body === 'object' && (body as Record<string, unknown>)[arrayField];
    if (!Array.isArray(own) || own.length !== 0 || text.includes(`"${arrayField}":`, end)) return JSON.parse(text);
    const page: PageText = { text, start, end, ends, count: keys.length, key, keys, first: names[0]! };
    Object.defineProperty(body, PAGE_TEXT, { value: page });
    let records: unknown[] | undefined;
    Object.defineProperty(body, arrayField, {
      enumerable: true,
      configurable: true,
      get: () => {
        page.touched = true;
        return (records ??= pageRecords(page));
      },
      set: (v: unknown[]) => {
        page.touched = true;
        records = v;
      },
    });
    return body;
  };
}

/** The records of a PageText as objects (JSON.parse of its array), for a caller that needs them after all. */
const pageRecords = <R>(p: PageText): R[] => JSON.parse(`[${p.text.slice(p.start, p.end)}]`) as R[];

/**
 * Records written as one string at a time: strings of some 20 KB stay in V8's young
 * generation (a page's whole text is a large object, collected only by a full collection:
 * 151 → 124 MiB peak RSS over 400,000 entries, measured, against writing the page's bytes).
 */
const SLICE = 64;

/**
 * The ndjson of a PageText's records, in strings of SLICE records: each record's text and
 * a `\n` (what ndjsonLines gives for the same records).
 */
export function pageNdjson(p: PageText): string[] {
  const { ends, start } = p;
  const out: string[] = [];
  for (let i = 0; i < ends.length; i += SLICE) {
    const from = i === 0 ? start : ends[i - 1]! + 1;
    const to = ends[Math.min(i + SLICE, ends.length) - 1]!;
    // inside a string every `"` is escaped, so `},{"<first>":` only ever joins two records
    out.push(`${p.text.slice(from, to).replaceAll(`},{"${p.first}":`, `}\n{"${p.first}":`)}\n`);
  }
  return out;
}

/** The compact JSON text of a PageText's records for JsonListStream: the records joined by `,`. */
export const pageJsonItems = (p: PageText): string => p.text.slice(p.start, p.end);
