/**
 * Pure text helpers of the data formats (ndjson, csv, tsv, streamed json) used by the
 * Renderer (../output.ts). No I/O here, so each is unit-tested on its own.
 */

/**
 * A cell of a data format (csv, tsv): strings as-is, booleans `true`/`false`, numbers as
 * JSON writes them, null/undefined empty, objects and arrays as JSON.
 */
export function dataCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * A TSV field, reversibly escaped (the text/tab-separated-values convention of
 * PostgreSQL COPY and Miller): `\` → `\\`, tab → `\t`, LF → `\n`, CR → `\r`.
 */
export function tsvField(s: string): string {
  return s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** One TSV line (with its `\n`) of already-rendered cells. */
export function tsvLine(cells: string[]): string {
  return `${cells.map(tsvField).join('\t')}\n`;
}

/** A first key that cannot end a string (see ndjsonLines): a plain identifier. */
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The ndjson text of `records`: each record's `JSON.stringify` and a `\n`, exactly. A page
 * of flat records (objects whose values are all strings, numbers, booleans or null) that
 * all begin with the same plain key K is stringified as one array (V8 does that several
 * times faster than a call per record) and split where `},{"K":` occurs: inside a string
 * a `"` is always escaped, so a `{"` followed by `K":` can only open a record, and flat
 * records have no other `{`. Anything else (nested values, mixed first keys) takes one
 * `JSON.stringify` per record.
 */
export function ndjsonLines(records: readonly unknown[]): string {
  if (records.length === 0) return '';
  const first = sameFlatFirstKey(records);
  if (first === undefined) {
    let out = '';
    for (const r of records) out += `${JSON.stringify(r)}\n`;
    return out;
  }
  // in slices of NDJSON_SLICE records: strings of some 20 KB stay in V8's young generation
  // (a whole page's 300 KB string is a large object: +9 MB peak RSS over a 1M-entry walk, measured)
  const boundary = `},{"${first}":`;
  const newline = `}\n{"${first}":`;
  let out = '';
  for (let i = 0; i < records.length; i += NDJSON_SLICE) {
    const all = JSON.stringify(records.length <= NDJSON_SLICE ? records : records.slice(i, i + NDJSON_SLICE));
    out += `${all.slice(1, -1).replaceAll(boundary, newline)}\n`;
  }
  return out;
}

/** Records stringified at a time by ndjsonLines. */
const NDJSON_SLICE = 64;

/** The first key all `records` share when every one is a flat object starting with the same plain key; else undefined. */
function sameFlatFirstKey(records: readonly unknown[]): string | undefined {
  let first: string | undefined;
  for (const r of records) {
    if (r === null || typeof r !== 'object' || Array.isArray(r)) return undefined;
    let k0: string | undefined;
    for (const k in r) {
      k0 ??= k;
      const v = (r as Record<string, unknown>)[k];
      if (v !== null && typeof v === 'object') return undefined;
      // a function, symbol or undefined value is left out by JSON.stringify: take the plain path
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') return undefined;
    }
    if (k0 === undefined || (first !== undefined && k0 !== first)) return undefined;
    if (first === undefined) {
      if (!PLAIN_KEY.test(k0)) return undefined;
      first = k0;
    }
    // an own toJSON, or keys from a prototype, would make JSON.stringify differ from for-in
    if (Object.getPrototypeOf(r) !== Object.prototype) return undefined;
  }
  return first;
}

/** Where a list body keeps its records and its total (contract §5: `logEntries` / `totalLogEntriesCount`). */
export interface ListShape {
  /** the array field, e.g. `logEntries` */
  arrayField: string;
  /** the total-count field, e.g. `totalLogEntriesCount`; absent for lists without one (customer products) */
  totalField?: string;
}

/**
 * The pieces of one JSON document `{...envelope, [arrayField]: [records], [totalField]: total}`
 * written incrementally: exactly the text `JSON.stringify(whole)` (compact) or
 * `JSON.stringify(whole, null, 2)` (pretty) would give, without ever holding the array.
 * Call `open` once, `items` per batch, `close` once.
 */
export class JsonListStream {
  private count = 0;

  constructor(
    private readonly shape: ListShape,
    private readonly pretty: boolean,
  ) {}

  /** The text up to and including the array's `[`; `envelope` keys other than the array and total keep their order. */
  open(envelope: Record<string, unknown>): string {
    const head: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(envelope)) if (k !== this.shape.arrayField && k !== this.shape.totalField) head[k] = v;
    const key = JSON.stringify(this.shape.arrayField);
    if (!this.pretty) {
      const h = JSON.stringify(head);
      return `${h.slice(0, -1)}${h.length > 2 ? ',' : ''}${key}:[`;
    }
    const h = JSON.stringify(head, null, 2);
    // "{}" for an empty head; otherwise "{\n  ...\n}" → drop the closing "\n}"
    return h === '{}' ? `{\n  ${key}: [` : `${h.slice(0, -2)},\n  ${key}: [`;
  }

  /** The text of a batch of records, with the separating commas. */
  items(records: readonly unknown[]): string {
    let out = '';
    for (const r of records) {
      const sep = this.count++ > 0 ? ',' : '';
      out += this.pretty ? `${sep}\n    ${JSON.stringify(r, null, 2).replace(/\n/g, '\n    ')}` : `${sep}${JSON.stringify(r)}`;
    }
    return out;
  }

  /** The text of `count` records already written compactly and joined by `,` (`text`; compact only), with the separating comma. */
  itemsText(text: string, count: number): string {
    if (this.pretty) throw new Error('JsonListStream.itemsText: compact output only');
    if (count === 0) return '';
    const sep = this.count > 0 ? ',' : '';
    this.count += count;
    return `${sep}${text}`;
  }

  /** The text closing the array and the object (with the total when known), ending in `\n`. */
  close(total: number | undefined): string {
    const withTotal = this.shape.totalField !== undefined && total !== undefined;
    const key = JSON.stringify(this.shape.totalField ?? '');
    if (!this.pretty) return `]${withTotal ? `,${key}:${total}` : ''}}\n`;
    const end = this.count > 0 ? '\n  ]' : ']';
    return `${end}${withTotal ? `,\n  ${key}: ${total}` : ''}\n}\n`;
  }
}
