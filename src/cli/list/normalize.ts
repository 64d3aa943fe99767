/**
 * One shape for scripts whatever the service left out (contract §1 tolerance): the
 * original omits fields holding default values (even a list's array and total when the
 * list is empty), and may send integers as strings (int64 in protobuf JSON). Every
 * machine format prints records normalised here, from each record's field types
 * declared once per noun (FieldTypes, next to its list definition). `--raw` skips it.
 */

/**
 * The wire type of a record field (src/wire.ts; contract §2), which decides its default
 * when absent: `int` and `number` 0, `string` "", `time` null (an unset RFC 3339 time,
 * contract §2: null or absent on the wire; a "" from an older service also reads as
 * null), `bool` false, `array` [], `object`
 * null (a nested message); `optionalInt` an int that may be absent and stays absent (a
 * template assembly's id: absent when it describes no assembly record, contract §8 —
 * never a made-up 0); `{ of }` an array of records of those fields ([] when absent,
 * each item normalised), `{ record }` one nested record (null when absent, else
 * normalised).
 */
export type FieldType =
  | 'int'
  | 'optionalInt'
  | 'number'
  | 'string'
  | 'time'
  | 'bool'
  | 'array'
  | 'object'
  | { readonly of: FieldTypes }
  | { readonly record: FieldTypes };

/** A record's fields in their documented order, name → wire type. */
export type FieldTypes = Readonly<Record<string, FieldType>>;

/** The names of `types`, in declared order (for --fields/--sort checks and the default csv columns). */
export const fieldNames = <T extends FieldTypes>(types: T): (keyof T & string)[] => Object.keys(types) as (keyof T & string)[];

/** A JSON schema as fieldTypesOf reads it (src/schema/ objects are plain data: no TypeBox at run time). */
interface SchemaLike {
  readonly type?: unknown;
  readonly format?: unknown;
  readonly required?: readonly string[];
  readonly properties?: { readonly [name: string]: SchemaLike };
  readonly items?: SchemaLike;
}

/**
 * A record's FieldTypes from its JSON schema (src/schema/), in its field order: integer →
 * `int` (`optionalInt` when the record does not require it), number, boolean → `bool`, a
 * `date-time` string → `time`, other strings → `string`; an array of records → `{ of }`,
 * other arrays → `array`; an object with properties → `{ record }`, other objects → `object`.
 */
export function fieldTypesOf<S extends { readonly properties: object }>(
  schema: S,
): { readonly [K in keyof S['properties'] & string]: FieldType } {
  const s = schema as SchemaLike;
  const out: Record<string, FieldType> = {};
  for (const [name, p] of Object.entries(s.properties ?? {})) out[name] = fieldTypeOf(p, s.required?.includes(name) ?? false);
  return out as { readonly [K in keyof S['properties'] & string]: FieldType };
}

function fieldTypeOf(p: SchemaLike, required: boolean): FieldType {
  const types = Array.isArray(p.type) ? (p.type as unknown[]) : [p.type];
  if (types.includes('integer')) return required ? 'int' : 'optionalInt';
  if (types.includes('number')) return 'number';
  if (types.includes('boolean')) return 'bool';
  if (types.includes('string')) return p.format === 'date-time' ? 'time' : 'string';
  if (types.includes('array')) return p.items?.properties ? { of: fieldTypesOf(p.items as { properties: object }) } : 'array';
  return p.properties ? { record: fieldTypesOf(p as { properties: object }) } : 'object';
}

/** The default a field of `type` holds when the service leaves it out (see FieldType). */
function fieldDefault(type: FieldType): unknown {
  if (typeof type === 'object') return 'of' in type ? [] : null;
  switch (type) {
    case 'int':
    case 'number':
      return 0;
    case 'bool':
      return false;
    case 'array':
      return [];
    case 'object':
    case 'time':
      return null;
    default:
      return '';
  }
}

const CANONICAL_INT = /^-?(0|[1-9][0-9]*)$/;

/**
 * A value as its declared type wants it: absent or null → the default (objects stay
 * null); an `int` field's canonical decimal string (`"2"`, `"-7"`, not `"02"`, `"2.0"`,
 * `" 2"`) within the safe integer range → that number. Anything else is kept as sent.
 */
export function normalizeValue(type: FieldType | undefined, v: unknown): unknown {
  if (type === undefined) return v;
  if (v === undefined || v === null || (type === 'time' && v === '')) return fieldDefault(type);
  if (typeof type === 'object') {
    const isRecord = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);
    if ('of' in type) return Array.isArray(v) ? v.map((x) => (isRecord(x) ? normalizeRecord(x, type.of) : x)) : v;
    return isRecord(v) ? normalizeRecord(v, type.record) : v;
  }
  if ((type === 'int' || type === 'optionalInt') && typeof v === 'string' && CANONICAL_INT.test(v)) {
    const n = Number(v);
    if (Number.isSafeInteger(n)) return n;
  }
  return v;
}

/**
 * One record in the documented shape: without `selected`, every declared field in
 * declared order (defaults filled in), then any other field the service sent, as sent;
 * with `selected` (--fields), exactly those fields in that order, filled likewise.
 * Field names are matched case-insensitively (contract §5) and printed as declared.
 */
export function normalizeRecord(rec: Record<string, unknown>, types: FieldTypes, selected?: readonly string[]): Record<string, unknown> {
  const names = selected ?? declaredNames(types);
  // the usual case (lic serve, a page of whole records): already in the documented shape
  if (isNormal(rec, types, names)) return rec;
  const out: Record<string, unknown> = {};
  let used = 0;
  for (const name of names) {
    // the declared spelling first (the usual case), else a case-insensitive match
    const k = name in rec ? name : findKey(rec, name);
    if (k !== undefined) used++;
    const type = types[name] ?? typeByLower(types, name);
    if (type === 'optionalInt' && (k === undefined || rec[k] === null)) continue;
    out[name] = normalizeValue(types[name] ?? typeByLower(types, name), k === undefined ? undefined : rec[k]);
  }
  if (!selected && used < Object.keys(rec).length) {
    for (const [k, v] of Object.entries(rec)) if (!(k in out) && findKey(out, k) === undefined) out[k] = v;
  }
  return out;
}

/** The names of `types` in declared order, computed once per FieldTypes. */
const namesOf = new WeakMap<FieldTypes, readonly string[]>();
function declaredNames(types: FieldTypes): readonly string[] {
  let names = namesOf.get(types);
  if (!names) namesOf.set(types, (names = Object.keys(types)));
  return names;
}

/**
 * Whether normalizeRecord would return a copy of `rec` equal to it, key for key in the
 * same order: `rec` has exactly `names` (declared spelling, that order) and every value is
 * already what normalizeValue keeps as sent (ints as numbers, no null or absent value that
 * takes a default, no "" time). Nested records ({ of }, { record }) are left to the full path.
 */
function isNormal(rec: Record<string, unknown>, types: FieldTypes, names: readonly string[]): boolean {
  const keys = Object.keys(rec);
  if (keys.length !== names.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const name = names[i]!;
    if (keys[i] !== name) return false;
    const v = rec[name];
    switch (types[name]) {
      case 'int':
      case 'optionalInt':
        if (typeof v !== 'number') return false;
        break;
      case 'time':
        if (v === undefined || v === '') return false;
        break;
      case 'number':
      case 'string':
      case 'bool':
      case 'array':
        if (v === undefined || v === null) return false;
        break;
      case 'object':
        if (v === undefined) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function findKey(rec: Record<string, unknown>, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const k of Object.keys(rec)) if (k.toLowerCase() === lower) return k;
  return undefined;
}

function typeByLower(types: FieldTypes, name: string): FieldType | undefined {
  const k = findKey(types as Record<string, unknown>, name);
  return k === undefined ? undefined : types[k];
}

/** Where a list body keeps its records and its total, and the records' declared fields. */
export interface NormalShape {
  arrayField: string;
  totalField?: string;
  types?: FieldTypes;
}

/**
 * A reply's envelope in the documented shape (contract §1): `success` (true unless
 * sent), `code` (0), `message` ("") first, then the other fields the service sent except
 * the list's array and total, which the caller places.
 */
export function normalizeEnvelope(
  body: Record<string, unknown>,
  shape: Pick<NormalShape, 'arrayField' | 'totalField'>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    success: body.success ?? true,
    code: normalizeValue('int', body.code),
    message: normalizeValue('string', body.message),
  };
  for (const [k, v] of Object.entries(body)) {
    if (k === 'success' || k === 'code' || k === 'message' || k === shape.arrayField || k === shape.totalField) continue;
    out[k] = v;
  }
  return out;
}

/** A list's total as sent (a number, or an integer string) or 0 when left out (contract §1: a missing total is 0). */
export function normalTotal(v: unknown): number {
  const n = normalizeValue('int', v);
  return typeof n === 'number' && Number.isFinite(n) ? n : 0;
}

/**
 * A whole list reply in the documented shape: the envelope, then the array (always
 * present, records normalised against `shape.types` and `selected`), then the total
 * (always present when the list has one).
 */
export function normalizeListBody(
  body: Record<string, unknown>,
  records: readonly unknown[],
  shape: NormalShape,
  selected?: readonly string[],
): Record<string, unknown> {
  const out = normalizeEnvelope(body, shape);
  out[shape.arrayField] = shape.types
    ? records.map((r) => normalizeRecord(r as Record<string, unknown>, shape.types!, selected))
    : [...records];
  if (shape.totalField) out[shape.totalField] = normalTotal(body[shape.totalField]);
  return out;
}
