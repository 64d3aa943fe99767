/**
 * The contract between list routes and the query language (contract §5).
 * A route describes its record's fields once; compileListQuery (./compile.ts) turns the
 * user's `filter`, `sort` and `select` into parameterised SQL pieces over those fields.
 */

/**
 * How the query language compares a field's column (its SQL storage): `timestamp` columns hold
 * INTEGER ms since epoch (UTC) and compare as points in time. Not the CLI's record `FieldType`
 * (src/cli/list/normalize.ts), which is the JSON wire type a record is normalised to.
 */
export type ColumnType = 'int' | 'number' | 'string' | 'bool' | 'timestamp';

export interface FieldSpec {
  /** wire name as in the JSON record, camelCase (`timeStamp`); matched case-insensitively */
  name: string;
  /** SQL expression for the column, written by us, never by a user (`l.time_stamp`) */
  column: string;
  type: ColumnType;
  /** false for fields that can be selected but not filtered or sorted (blobs, JSON arrays) */
  queryable?: boolean;
  /** converts the stored value to its wire form; default by type (timestamp → RFC 3339, bool → boolean) */
  toWire?: (value: unknown) => unknown;
}

export interface SortKey {
  field: FieldSpec;
  desc: boolean;
}

/**
 * A list resource's fields as the query language sees them (contract §5), with the default
 * sort: what compileListQuery compiles `filter`, `sort` and `select` against. Not the CLI's
 * `ListSpec` (src/cli/list/define.ts), which declares a list verb.
 */
export interface QueryFields {
  fields: readonly FieldSpec[];
  /** sort used when `sort` is absent, e.g. [{id, desc:false}] or the log's TimeStamp desc, Id desc */
  defaultSort: readonly { name: string; desc: boolean }[];
}

/** What a list route may add to the compiler for one request. */
export interface CompileOptions {
  /**
   * SQL (and its `?` params) for `field.Contains(needle)` in place of the byte-exact substring
   * test, e.g. from a full-text index; it must match exactly the rows that test matches, and
   * never be NULL. Undefined: the substring test.
   */
  contains?: (field: FieldSpec, needle: string) => { sql: string; params: (string | number | null)[] } | undefined;
}

export interface CompiledQuery {
  /** SQL boolean expression to AND into the WHERE clause; `1` when there is no filter */
  where: string;
  /** positional parameters for the `?` placeholders of `where`, in order */
  params: (string | number | null)[];
  /** SQL ORDER BY list; always ends with the `id` field as a tiebreak so pages are stable */
  orderBy: string;
  sort: SortKey[];
  /** fields to put in each record, in spec order; all fields when `select` is absent */
  select: FieldSpec[];
}

/** A bad filter/sort/select: becomes HTTP 400, code 3, with this message. */
export class QueryError extends Error {
  constructor(
    /** which query parameter: 'filter' | 'sort' | 'select' */
    readonly param: string,
    /** 0-based character offset in that parameter's text */
    readonly position: number,
    message: string,
  ) {
    super(message);
    this.name = 'QueryError';
  }
}
