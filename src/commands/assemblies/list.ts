import type { Command } from 'commander';
import { listAssemblies } from '../../client/endpoints/assemblies.js';
import type { Assembly } from '../../wire.js';
import {
  parseFilterValue,
  addListOptions,
  fieldNames,
  type FieldTypes,
  equalsClause,
  runList,
  type ListDef,
  type ListFlags,
} from '../../cli/list/index.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { ASSEMBLY_COLUMNS } from './columns.js';
import { parsePublicKeyToken } from './input.js';

interface AssembliesListOptions extends ListFlags {
  /** Name = this, exactly */
  name?: string;
  /** PublicKeyToken = this: 16 lowercase hex digits, or '' for assemblies that are not strong-named */
  publicKeyToken?: string;
}

/** Fields of an assembly with their wire types (src/wire.ts Assembly; contract §7): the defaults of what the service leaves out. */
export const ASSEMBLY_FIELD_TYPES = {
  id: 'int',
  name: 'string',
  version: 'string',
  culture: 'string',
  publicKeyToken: 'string',
  mappingFileId: 'int',
  debugSymbolsKey: 'string',
} as const satisfies FieldTypes;

/**
 * Fields of an assembly in lists, as the service names them (spec Assembly; contract §5,
 * §7; lic serve's FieldSpecs in src/server/routes/assemblies.ts, checked by a test), for
 * --fields and --sort.
 */
export const ASSEMBLY_FIELDS = fieldNames(ASSEMBLY_FIELD_TYPES);

/** Assemblies as a list (contract §5, §7): paged by id. */
export const ASSEMBLY_LIST: ListDef<Assembly> = {
  what: 'assemblies',
  arrayField: 'assemblies',
  totalField: 'totalAssembliesCount',
  columns: ASSEMBLY_COLUMNS,
  fields: ASSEMBLY_FIELDS,
  types: ASSEMBLY_FIELD_TYPES,
};

/**
 * The assemblies' friendly filter flags → filter clauses (contract §5): --name (Name = …,
 * exactly), --public-key-token (PublicKeyToken = …; the service stores it lowercase,
 * contract §7, and parsePublicKeyToken lowercases the flag).
 */
function assemblyFilters(o: Pick<AssembliesListOptions, 'name' | 'publicKeyToken'>): (string | undefined)[] {
  return [
    o.name !== undefined ? equalsClause('Name', o.name) : undefined,
    o.publicKeyToken !== undefined ? equalsClause('PublicKeyToken', o.publicKeyToken) : undefined,
  ];
}

/** `lic assemblies list`: GET /v1/assemblies through the list machinery, rendered with ASSEMBLY_COLUMNS. */
async function runAssembliesList(opts: AssembliesListOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  await runList(rt, {
    def: ASSEMBLY_LIST,
    flags: opts,
    filters: assemblyFilters(opts),
    fetch: (q) => listAssemblies(client, q),
  });
}

/** Declares `assemblies list` with --name, --public-key-token and the shared list flags. */
export function registerAssembliesList(parent: Command, cli: Cli, run = runAssembliesList): void {
  const cmd = parent
    .command('list')
    .alias('ls')
    .description('List assemblies')
    .option('--name <name>', 'only assemblies with this name, exactly (case-sensitive), e.g. Folio.Pdf', parseFilterValue)
    .option(
      '--public-key-token <hex>',
      'only assemblies with this public key token (16 hex digits, any case), or null for those not strong-named',
      parsePublicKeyToken,
    );
  addListOptions(cmd, ASSEMBLY_LIST, { sortExample: 'name', whereExample: 'Name.Contains("Folio") and Version != "8.1.0.0"' })
    .addHelpText(
      'after',
      '\nExamples:\n  lic assemblies list --name Folio.Pdf\n  lic assemblies list --public-key-token 0bbe75556158122f --sort name\n  lic assemblies list --all --fields id,name,version -o csv > assemblies.csv',
    )
    .action(async (o: AssembliesListOptions, cmd: Command) => run(o, cli.runtimeOf(cmd)));
}
