/**
 * The flags every list verb shares (--where, --sort, --fields, --limit, --take, --skip,
 * --all), their parsers, and the per-noun description of a list (ListDef).
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { Column, ListShape } from '../output.js';
import { parseCount, parseTake } from '../parse.js';
import type { FieldTypes } from './normalize.js';

/** What the list machinery needs to know about one noun's list endpoint. */
export interface ListDef<R> extends ListShape {
  /** plural noun for progress and messages: `log entries`, `API keys` */
  what: string;
  /** the table/csv columns when no `--fields` is given */
  columns: Column<R>[];
  /**
   * The record's wire field names (contract §5: matched case-insensitively). When given,
   * `--fields` and `--sort` names are checked against them (usage error, exit 2) and
   * printed in this spelling; when absent, the service judges them (400, exit 1).
   */
  fields?: readonly string[];
  /**
   * The record's fields with their wire types, in documented order (declare once with
   * the noun's field list: `fields` = fieldNames(types)). Every machine format fills in
   * what the service left out and reads integer strings from them (./normalize.ts).
   */
  types?: FieldTypes;
  /**
   * Fields csv and tsv leave out unless `--fields` names them (a resource's base64 data
   * and its always-empty password).
   */
  blobs?: readonly string[];
  /**
   * The fields `columns` read, sent as `select` when the output is a table and no
   * `--fields` is given, so the service leaves out what no column shows (a resource's
   * base64 data). Absent: no `select`, whole records. json and ndjson print the records
   * themselves, so they always get whole records; csv and tsv select their default
   * fields (all but `blobs`) when the noun has blobs.
   */
  columnFields?: readonly string[];
  /**
   * Fields the service can select but not sort on (contract §5: blobs, JSON arrays);
   * `--sort` on one is a usage error rather than a request bound to fail.
   */
  selectOnly?: readonly string[];
  /**
   * The unique integer key for paging by key (contract §2 ids), as named in filter/sort;
   * default `id`. `false` for a list without one: `--all` then pages by skip.
   */
  key?: string | false;
  /**
   * The key order `--all` (or a `--limit` over several pages) uses when no `--sort` is
   * given: `desc` for newest-first lists (the log), default `asc`.
   */
  keyOrder?: 'asc' | 'desc';
  /**
   * false for an endpoint without the list parameters (customer products, contract §8):
   * only --fields and --limit are offered, applied to the one reply client-side.
   */
  paged?: boolean;
}

/** A parsed `--sort` item. */
export interface SortItem {
  field: string;
  desc: boolean;
}

/** The shared flags, as commander hands them over (camelCase). */
export interface ListFlags {
  /** raw filter expression (contract §5), AND-ed with the friendly flags' clauses */
  where?: string;
  sort?: SortItem[];
  fields?: string[];
  /** total records wanted, across pages */
  limit?: number;
  /** page size (raw paging) */
  take?: number;
  /** records to skip (raw paging) */
  skip?: number;
  /** every page */
  all?: boolean;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Canonical spelling of `name` among `known` (case-insensitive), or an InvalidArgumentError naming the allowed ones. */
function canonical(name: string, known: readonly string[] | undefined, what: string): string {
  if (!known) return name;
  const found = known.find((k) => k.toLowerCase() === name.toLowerCase());
  if (!found) throw new InvalidArgumentError(`unknown field "${name}" of ${what}; fields: ${known.join(', ')}.`);
  return found;
}

/**
 * `--sort FIELD[:asc|desc]` (also `FIELD desc`, and several comma-separated), appended
 * to `prev` so the flag repeats: `--sort level --sort id:desc` → level asc, id desc.
 * Throws InvalidArgumentError (exit 2) for a bad form, direction, or unknown/repeated field.
 */
export function parseSortItems(
  value: string,
  prev: SortItem[] | undefined,
  known?: readonly string[],
  what = 'the records',
  selectOnly: readonly string[] = [],
): SortItem[] {
  const out = [...(prev ?? [])];
  const items = value.split(',').map((s) => s.trim());
  for (const item of items) {
    const m = /^([^\s:]+)(?:\s*[:\s]\s*(\S+))?$/.exec(item);
    if (!m || !NAME.test(m[1]!)) {
      throw new InvalidArgumentError(`expected FIELD, FIELD:asc or FIELD:desc (several: a,b:desc or a repeated --sort), got "${item}".`);
    }
    const dir = m[2]?.toLowerCase();
    if (dir !== undefined && dir !== 'asc' && dir !== 'desc') {
      throw new InvalidArgumentError(`unknown sort direction "${m[2]}" for ${m[1]}; allowed: asc, desc.`);
    }
    const field = canonical(m[1]!, known, what);
    if (selectOnly.some((f) => f.toLowerCase() === field.toLowerCase())) {
      throw new InvalidArgumentError(
        `${what} cannot be sorted by ${field} (it can only be selected with --fields); not sortable: ${selectOnly.join(', ')}.`,
      );
    }
    if (out.some((s) => s.field.toLowerCase() === field.toLowerCase()))
      throw new InvalidArgumentError(`field "${field}" is sorted on twice.`);
    out.push({ field, desc: dir === 'desc' });
  }
  return out;
}

/** `--sort` items → the `sort` parameter (contract §5): `level asc, id desc`. */
export const sortParam = (items: readonly SortItem[]): string => items.map((s) => `${s.field} ${s.desc ? 'desc' : 'asc'}`).join(', ');

/**
 * `--fields a,b,c` → field names (deduplicated, case-insensitively; in the spelling of
 * `known` when given). Throws InvalidArgumentError for a bad form or an unknown field.
 */
export function parseFieldList(value: string, known?: readonly string[], what = 'the records'): string[] {
  const names = value.split(',').map((s) => s.trim());
  if (names.some((n) => !NAME.test(n))) {
    throw new InvalidArgumentError(
      `expected comma-separated field names such as ${known ? known.slice(0, 3).join(',') : 'id,name'}${known ? `; fields: ${known.join(', ')}` : ''}.`,
    );
  }
  const out: string[] = [];
  for (const n of names) {
    const f = canonical(n, known, what);
    if (!out.some((o) => o.toLowerCase() === f.toLowerCase())) out.push(f);
  }
  return out;
}

export interface ListOptionsHelp {
  /** an example `--sort` value for the help, e.g. `timeStamp:desc` */
  sortExample?: string;
  /** an example `--where` value for the help */
  whereExample?: string;
  /** what `--all` does for this noun, appended to the help */
  allNote?: string;
}

/**
 * Adds the shared list flags to a verb (a paged list: all seven; `def.paged === false`:
 * --fields and --limit only). The values arrive in the action's options as ListFlags.
 */
export function addListOptions<R>(cmd: Command, def: ListDef<R>, help: ListOptionsHelp = {}): Command {
  const fieldsList = def.fields ? ` (${def.fields.join(', ')})` : '';
  cmd.option(
    '--fields <list>',
    `comma-separated fields${fieldsList}: the records carry only these, in this order, and the table/csv/tsv columns are exactly these (gh style: --json FIELDS = -o json --fields FIELDS)`,
    (v) => parseFieldList(v, def.fields, def.what),
  );
  cmd.option('--limit <n>', 'at most this many records in all, fetched over as many pages as needed', parseCount);
  if (def.paged === false) return cmd;
  const keyed = def.key !== false;
  cmd
    .option(
      '--where <expr>',
      `filter expression in the service's query language (Field = "x", < > !=, and/or/not, Field.Contains("x")), AND-ed with the other filter flags${help.whereExample ? `; e.g. '${help.whereExample}'` : ''}`,
    )
    .option(
      '--sort <field[:asc|desc]>',
      `sort by a field, ascending unless :desc; repeat for more keys${help.sortExample ? ` (e.g. --sort ${help.sortExample})` : ''}`,
      (v: string, prev: SortItem[] | undefined) => parseSortItems(v, prev, def.fields, def.what, def.selectOnly),
    )
    .option('--take <n>', 'page size, 0..1000 (default 100; 1000 with --all or --limit)', parseTake)
    .option('--skip <n>', 'records to skip', parseCount)
    .option('--all', 'fetch every page (streamed as it arrives with -o ndjson, csv, tsv, json or a piped table)');
  const key = def.key || 'id';
  const order = def.keyOrder ?? 'asc';
  cmd.addHelpText(
    'after',
    `\nPaging: --all and a --limit above one page fetch page after page. ${
      keyed
        ? `Without --sort (or sorted by ${key} only) they page by key: sorted by ${key} ${order}${help.allNote ? ` (${help.allNote})` : ''}, each page asking for ${key} ${order === 'desc' ? '<' : '>'} the last one seen, so records added or deleted meanwhile cause no repeats and no gaps. With another --sort they page by skip, which can repeat or miss records if the list changes while it runs.`
        : 'They page by skip, which can repeat or miss records if the list changes while it runs.'
    }`,
  );
  return cmd;
}

/**
 * A friendly filter flag's value (`--type`, `--status`, `--name-contains`, …), taken as
 * given (case-sensitive, contract §5), but not empty: an empty value is almost always a
 * shell variable that was not set; `--where 'Field = ""'` says it on purpose.
 * Throws InvalidArgumentError (exit 2, commander names the flag).
 */
export function parseFilterValue(value: string): string {
  if (value === '') throw new InvalidArgumentError('expected a non-empty value (to match an empty field, use --where \'Field = ""\').');
  return value;
}
