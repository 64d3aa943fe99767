import { listResources } from '../../client/endpoints/resources.js';
import { ApiError } from '../../client/errors.js';
import type { ListQuery, Resource, ResourceList } from '../../wire.js';
import { ResourceSchema } from '../../schema/resource.js';
import { containsFlag, defineList, equalsFlag, type ListClient, type ListFlags } from '../../cli/list/index.js';

interface ResourcesListOptions extends ListFlags {
  /** Type = this, exactly (RSA, email, MappingFile, …) */
  type?: string;
  /** DataFormat = this, exactly (SNK, html, xml, …) */
  format?: string;
  /** text the name contains (case-sensitive) */
  nameContains?: string;
}

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

/**
 * Fields that can be selected but neither filtered nor sorted on (contract §5, §7): the
 * data itself, and the write-only password (always "").
 */
export const RESOURCE_SELECT_ONLY = ['password', 'data'] as const;

/**
 * `lic resources list`: GET /v1/resources (contract §5, §7), paged by id. The table shows
 * the size of the data, never the data or the password: table, csv and tsv without
 * --fields select only what the columns show (`columnFields`), with `dataSize` for SIZE
 * instead of the base64 data (lic serve knows dataSize; resourceSize falls back to `data`
 * for a service that sends it anyway). json and ndjson get whole records. The flags are
 * shared with `resources export` (addFlags, filters).
 */
export const RESOURCE_LIST = defineList<Resource, ResourcesListOptions>({
  what: 'resources',
  arrayField: 'resources',
  totalField: 'totalResourcesCount',
  blobs: RESOURCE_SELECT_ONLY,
  selectOnly: RESOURCE_SELECT_ONLY,
  columnFields: ['id', 'name', 'type', 'dataFormat', 'code', 'dataSize', 'updatedAt', 'description'],
  schema: ResourceSchema,
  fetch: (client, q, _o, signal) => measuredList(client, q, signal),
  description:
    'List resources: signing keys, e-mail templates, mapping files (tables show sizes, never the data; -o json carries the base64 data; passwords never)',
  columns: [
    { header: 'ID', kind: 'id', get: (r) => r.id },
    { header: 'NAME', kind: 'name', get: (r) => r.name },
    { header: 'TYPE', kind: 'label', get: (r) => r.type },
    { header: 'FORMAT', kind: 'label', get: (r) => r.dataFormat },
    { header: 'CODE', kind: 'code', get: (r) => r.code },
    { header: 'SIZE', kind: 'number', get: (r) => resourceSize(r) },
    { header: 'UPDATED', kind: 'time', get: (r) => r.updatedAt },
    { header: 'DESCRIPTION', kind: 'text', get: (r) => r.description },
  ],
  flags: {
    type: equalsFlag('--type <type>', 'Type', 'only this type, exactly (case-sensitive): RSA, email, MappingFile, or any other'),
    format: equalsFlag('--format <format>', 'DataFormat', 'only this data format, exactly (case-sensitive): SNK, html, xml, or any other'),
    nameContains: containsFlag('--name-contains <text>', 'Name', 'only resources whose name contains this text (case-sensitive)'),
  },
  help: { sortExample: 'updatedAt:desc', whereExample: 'DataSize > 1024' },
  examples: [
    'lic resources list --type RSA',
    'lic resources list --type email --format html --name-contains renewal',
    'lic resources list --all --fields id,name,dataSize -o csv > resources.csv',
  ],
});

export const registerResourcesList = RESOURCE_LIST.register;

/**
 * One page of resources, measured: `dataSize` is lic serve's own field; a service without
 * it (the original) may refuse it in select (400), so it is asked again for `data` instead.
 */
async function measuredList(client: ListClient, q: ListQuery, signal?: AbortSignal): Promise<ResourceList> {
  try {
    return measured(q, await listResources(client, q, signal));
  } catch (e) {
    if (e instanceof ApiError && e.status === 400 && q.select?.includes('dataSize')) {
      const fields = q.select.split(', ').filter((f) => f !== 'dataSize');
      return measured(
        q,
        await listResources(client, { ...q, select: (fields.includes('data') ? fields : [...fields, 'data']).join(', ') }, signal),
      );
    }
    throw e;
  }
}

/**
 * A resources reply with `dataSize` measured from the base64 `data` where the service
 * (the original) sent data but no dataSize, and without `data` where the query's select
 * did not ask for it (it was fetched only to be measured).
 */
function measured(q: ListQuery, body: ResourceList): ResourceList {
  const keepData = q.select === undefined || q.select.split(', ').some((f) => f.toLowerCase() === 'data');
  const rows = (body as { resources?: unknown }).resources;
  if (!Array.isArray(rows)) return body;
  const resources = (rows as (Resource & { dataSize?: unknown })[]).map((r) => {
    if (r === null || typeof r !== 'object' || r.dataSize !== undefined || typeof r.data !== 'string') return r;
    const { data, ...rest } = r;
    return { ...rest, ...(keepData ? { data } : {}), dataSize: resourceSize({ data }) };
  });
  return { ...body, resources: resources as Resource[] };
}
