import type { Column } from '../../cli/output.js';
import type { Resource } from '../../wire.js';

/**
 * Bytes of a resource's data: the service's `dataSize` when it sends one (lic serve
 * does), else computed from the base64 `data` (contract §2), padding and URL-safe
 * alphabet allowed. '' when neither is present (a `select` without them).
 */
export function resourceSize(r: Partial<Resource> & { dataSize?: number }): number | '' {
  if (typeof r.dataSize === 'number') return r.dataSize;
  if (typeof r.data !== 'string') return '';
  const body = r.data.replace(/[=\s]+$/, '');
  return Math.floor((body.length * 3) / 4);
}

/** Table columns of a resource: the size of its data, never the data or the password. */
export const RESOURCE_COLUMNS: Column<Resource>[] = [
  { header: 'ID', kind: 'id', get: (r) => r.id },
  { header: 'NAME', kind: 'name', get: (r) => r.name },
  { header: 'TYPE', kind: 'label', get: (r) => r.type },
  { header: 'FORMAT', kind: 'label', get: (r) => r.dataFormat },
  { header: 'CODE', kind: 'code', get: (r) => r.code },
  { header: 'SIZE', kind: 'number', get: (r) => resourceSize(r) },
  { header: 'UPDATED', kind: 'time', get: (r) => r.updatedAt },
  { header: 'DESCRIPTION', kind: 'text', get: (r) => r.description },
];

/**
 * The fields RESOURCE_COLUMNS read, as the service names them (contract §5 `select`):
 * `dataSize` stands in for `data`, so a list for the table never carries the bytes.
 */
export const RESOURCE_COLUMN_FIELDS = [
  'id',
  'name',
  'type',
  'dataFormat',
  'code',
  'dataSize',
  'updatedAt',
  'description',
] as const satisfies readonly (keyof Resource)[];
