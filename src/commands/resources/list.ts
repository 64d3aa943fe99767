import type { Command } from 'commander';
import { listResources } from '../../client/endpoints/resources.js';
import type { Resource, ResourceList } from '../../wire.js';
import { parseCount, parseTake } from '../../cli/parse.js';
import type { Cli } from '../../cli/program.js';
import type { Runtime } from '../../cli/runtime.js';
import { RESOURCE_COLUMNS } from './columns.js';

export interface ResourcesListOptions {
  take?: number;
  skip?: number;
}

/**
 * The list verb's parts, apart from its flags, so shared list flags (--where, --sort,
 * --all) can drive them: `fetch` gets one page (GET /v1/resources, rule-3 query),
 * `rows`/`total` read the reply, `columns` render it.
 */
export const RESOURCE_LIST = {
  fetch: listResources,
  rows: (body: ResourceList): Resource[] => body.resources ?? [],
  total: (body: ResourceList): number | undefined => body.totalResourcesCount,
  columns: RESOURCE_COLUMNS,
} as const;

/** `lic resources list`: one page of GET /v1/resources, rendered with RESOURCE_COLUMNS. */
export async function runResourcesList(opts: ResourcesListOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  const body = await RESOURCE_LIST.fetch(client, { take: opts.take, skip: opts.skip });
  await rt.out.list(body, RESOURCE_LIST.rows(body), RESOURCE_LIST.columns);
}

/** Declares `resources list [--take N] [--skip N]`. */
export function registerResourcesList(parent: Command, cli: Cli): void {
  parent
    .command('list')
    .alias('ls')
    .description('List resources: signing keys, e-mail templates, mapping files (sizes, never the data or passwords)')
    .option('--take <n>', 'page size, 0..1000 (default 100)', parseTake)
    .option('--skip <n>', 'records to skip', parseCount)
    .action(async (o: ResourcesListOptions, cmd: Command) => runResourcesList(o, cli.runtimeOf(cmd)));
}
