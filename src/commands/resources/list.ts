import type { Command } from 'commander';
import { listResources } from '../../client/endpoints/resources.js';
import { ApiError } from '../../client/errors.js';
import type { ListQuery, Resource, ResourceList } from '../../wire.js';
import { ResourceSchema } from '../../schema/resource.js';
import {
  addListOptions,
  containsClause,
  fieldNames,
  fieldTypesOf,
  equalsClause,
  parseFilterValue,
  runList,
  type ListDef,
  type ListFlags,
} from '../../cli/list/index.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { RESOURCE_COLUMN_FIELDS, RESOURCE_COLUMNS, resourceSize } from './columns.js';

interface ResourcesListOptions extends ListFlags {
  /** Type = this, exactly (RSA, email, MappingFile, …) */
  type?: string;
  /** DataFormat = this, exactly (SNK, html, xml, …) */
  format?: string;
  /** text the name contains (case-sensitive) */
  nameContains?: string;
}

/**
 * Fields of a resource with their wire types (derived from src/schema/ ResourceSchema; contract §2, §7):
 * the defaults of what the service leaves out. `dataSize` is lic serve's addition.
 */
export const RESOURCE_FIELD_TYPES = fieldTypesOf(ResourceSchema);

/**
 * Fields of a resource in lists, as the service names them (contract §5,
 * §7; lic serve's FieldSpecs in src/server/routes/resources.ts, checked by a test), for
 * --fields and --sort.
 */
export const RESOURCE_FIELDS = fieldNames(RESOURCE_FIELD_TYPES);

/**
 * Fields that can be selected but neither filtered nor sorted on (contract §5, §7): the
 * data itself, and the write-only password (always "").
 */
export const RESOURCE_SELECT_ONLY = ['password', 'data'] as const;

/**
 * Resources as a list (contract §5, §7): paged by id. Table, csv and tsv without
 * --fields select only what RESOURCE_COLUMNS show, with `dataSize` for SIZE instead of
 * the base64 data (lic serve knows dataSize; resourceSize falls back to `data` for a
 * service that sends it anyway). json and ndjson get whole records.
 */
export const RESOURCE_LIST: ListDef<Resource> = {
  what: 'resources',
  arrayField: 'resources',
  totalField: 'totalResourcesCount',
  columns: RESOURCE_COLUMNS,
  fields: RESOURCE_FIELDS,
  types: RESOURCE_FIELD_TYPES,
  blobs: RESOURCE_SELECT_ONLY,
  selectOnly: RESOURCE_SELECT_ONLY,
  columnFields: RESOURCE_COLUMN_FIELDS,
};

/**
 * The resources' friendly filter flags → filter clauses (contract §5): --type (Type = …),
 * --format (DataFormat = …), --name-contains (Name.Contains(…), case-sensitive).
 */
export function resourceFilters(o: Pick<ResourcesListOptions, 'type' | 'format' | 'nameContains'>): (string | undefined)[] {
  return [
    o.type !== undefined ? equalsClause('Type', o.type) : undefined,
    o.format !== undefined ? equalsClause('DataFormat', o.format) : undefined,
    o.nameContains !== undefined ? containsClause('Name', o.nameContains) : undefined,
  ];
}

/** `lic resources list`: GET /v1/resources through the list machinery, rendered with RESOURCE_COLUMNS. */
async function runResourcesList(opts: ResourcesListOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  await runList(rt, {
    def: RESOURCE_LIST,
    flags: opts,
    filters: resourceFilters(opts),
    fetch: async (q, signal) => {
      try {
        return measured(q, await listResources(client, q, signal));
      } catch (e) {
        // `dataSize` is lic serve's own field; a service without it (the original) may refuse
        // it in select: ask for `data` instead and measure it
        if (e instanceof ApiError && e.status === 400 && q.select?.includes('dataSize')) {
          const fields = q.select.split(', ').filter((f) => f !== 'dataSize');
          return measured(
            q,
            await listResources(client, { ...q, select: (fields.includes('data') ? fields : [...fields, 'data']).join(', ') }, signal),
          );
        }
        throw e;
      }
    },
  });
}

/** Adds the resources' friendly filter flags (--type, --format, --name-contains; resourceFilters reads them), shared by list and export. */
export function addResourceFilterOptions(cmd: Command): Command {
  return cmd
    .option('--type <type>', 'only this type, exactly (case-sensitive): RSA, email, MappingFile, or any other', parseFilterValue)
    .option('--format <format>', 'only this data format, exactly (case-sensitive): SNK, html, xml, or any other', parseFilterValue)
    .option('--name-contains <text>', 'only resources whose name contains this text (case-sensitive)', parseFilterValue);
}

/** Declares `resources list` with --type, --format, --name-contains and the shared list flags. */
export function registerResourcesList(parent: Command, cli: Cli, run = runResourcesList): void {
  const cmd = parent
    .command('list')
    .alias('ls')
    .description(
      'List resources: signing keys, e-mail templates, mapping files (tables show sizes, never the data; -o json carries the base64 data; passwords never)',
    );
  addListOptions(addResourceFilterOptions(cmd), RESOURCE_LIST, { sortExample: 'updatedAt:desc', whereExample: 'DataSize > 1024' })
    .addHelpText(
      'after',
      '\nExamples:\n  lic resources list --type RSA\n  lic resources list --type email --format html --name-contains renewal\n  lic resources list --all --fields id,name,dataSize -o csv > resources.csv',
    )
    .action(async (o: ResourcesListOptions, cmd: Command) => run(o, cli.runtimeOf(cmd)));
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
