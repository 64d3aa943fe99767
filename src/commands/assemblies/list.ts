import type { Command } from 'commander';
import { listAssemblies } from '../../client/endpoints/assemblies.js';
import type { Assembly, AssemblyList } from '../../wire.js';
import { parseCount, parseTake } from '../../cli/parse.js';
import type { Cli } from '../../cli/program.js';
import type { Runtime } from '../../cli/runtime.js';
import { ASSEMBLY_COLUMNS } from './columns.js';

export interface AssembliesListOptions {
  take?: number;
  skip?: number;
}

/**
 * The list verb's parts, apart from its flags, so shared list flags (--where, --sort,
 * --all) can drive them: `fetch` gets one page (GET /v1/assemblies, rule-3 query),
 * `rows`/`total` read the reply, `columns` render it.
 */
export const ASSEMBLY_LIST = {
  fetch: listAssemblies,
  rows: (body: AssemblyList): Assembly[] => body.assemblies ?? [],
  total: (body: AssemblyList): number | undefined => body.totalAssembliesCount,
  columns: ASSEMBLY_COLUMNS,
} as const;

/** `lic assemblies list`: one page of GET /v1/assemblies, rendered with ASSEMBLY_COLUMNS. */
export async function runAssembliesList(opts: AssembliesListOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  const body = await ASSEMBLY_LIST.fetch(client, { take: opts.take, skip: opts.skip });
  await rt.out.list(body, ASSEMBLY_LIST.rows(body), ASSEMBLY_LIST.columns);
}

/** Declares `assemblies list [--take N] [--skip N]`. */
export function registerAssembliesList(parent: Command, cli: Cli): void {
  parent
    .command('list')
    .alias('ls')
    .description('List assemblies')
    .option('--take <n>', 'page size, 0..1000 (default 100)', parseTake)
    .option('--skip <n>', 'records to skip', parseCount)
    .action(async (o: AssembliesListOptions, cmd: Command) => runAssembliesList(o, cli.runtimeOf(cmd)));
}
