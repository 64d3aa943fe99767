/**
 * The service's view of a record schema (src/schema/): the FieldSpecs a list route queries
 * (name, SQL column, query type), derived from the schema's properties so that a field is
 * declared once. Server-only: the CLI never loads this.
 */
import type { Properties, PropertySchema } from '../schema/json-schema.js';
import type { ColumnType, FieldSpec } from './query/types.js';

/** What a record's field needs beyond its schema: a column that is not `<alias>.<snake_case name>`, a wire conversion. */
type FieldOverride = Partial<Omit<FieldSpec, 'name'>>;

/** `mappingFileId` → `mapping_file_id`: the column naming of the migrations (src/server/migrations.ts). */
const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The query type of a property (contract §5): integer → int, number, boolean → bool, a
 * `date-time` string → timestamp, any other string → string. Arrays and objects (JSON
 * columns) are not queryable; their override supplies the column's `toWire`.
 */
function queryType(s: PropertySchema): { type: ColumnType; queryable?: false } {
  const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
  if (types.includes('integer')) return { type: 'int' };
  if (types.includes('number')) return { type: 'number' };
  if (types.includes('boolean')) return { type: 'bool' };
  if (types.includes('string')) return { type: s.format === 'date-time' ? 'timestamp' : 'string' };
  return { type: 'string', queryable: false };
}

/**
 * The FieldSpecs of a list from a record schema, in its field order: column
 * `<alias>.<snake_case name>` and the type of queryType, unless `overrides[name]` says
 * otherwise. Throws (a programming error, at start-up) when an override names no field.
 */
export function listFields(schema: { properties: Properties }, alias: string, overrides: Record<string, FieldOverride> = {}): FieldSpec[] {
  for (const name of Object.keys(overrides)) {
    if (!(name in schema.properties)) throw new Error(`listFields: override of an unknown field ${name}`);
  }
  return Object.entries(schema.properties).map(([name, s]) => ({
    name,
    column: `${alias}.${snakeCase(name)}`,
    ...queryType(s),
    ...overrides[name],
  }));
}
