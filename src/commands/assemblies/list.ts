import { Option, type Command } from 'commander';
import { listAssemblies } from '../../client/endpoints/assemblies.js';
import type { Assembly, AssemblyList, ListQuery } from '../../wire.js';
import { parseId } from '../../cli/parse.js';
import { AssemblySchema } from '../../schema/assembly.js';
import {
  fieldOf,
  parseFilterValue,
  addListOptions,
  fieldNames,
  fieldTypesOf,
  equalsClause,
  runList,
  type ListDef,
  type ListFlags,
} from '../../cli/list/index.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { ASSEMBLY_COLUMNS } from './columns.js';
import { parsePublicKeyToken } from './input.js';
import { signingKeyOf } from '../resources/signing-key.js';

interface AssembliesListOptions extends ListFlags {
  /** Name = this, exactly */
  name?: string;
  /** PublicKeyToken = this: 16 lowercase hex digits, or '' for assemblies that are not strong-named */
  publicKeyToken?: string;
  /** a resource id: only assemblies whose public key token is that RSA/SNK signing key's */
  signedBy?: number;
}

/** Fields of an assembly with their wire types (derived from src/schema/ AssemblySchema; contract §7): the defaults of what the service leaves out. */
export const ASSEMBLY_FIELD_TYPES = fieldTypesOf(AssemblySchema);

/**
 * Fields of an assembly in lists, as the service names them (contract §5,
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

/**
 * `lic assemblies list`: GET /v1/assemblies through the list machinery, rendered with
 * ASSEMBLY_COLUMNS. `--signed-by ID` first reads resource ID (an RSA/SNK signing key:
 * NotFoundError, or UsageError naming the flag, otherwise; see signingKeyOf) and computes
 * its public key token client-side (ECMA-335 II.6.2.1.3); the list then asks the service
 * for that token, like --public-key-token, and keeps only the records that carry it.
 */
async function runAssembliesList(opts: AssembliesListOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  const token = opts.signedBy === undefined ? undefined : (await signingKeyOf(client, opts.signedBy, '--signed-by')).key.publicKeyToken;
  await runList(rt, {
    def: ASSEMBLY_LIST,
    flags: opts,
    filters: assemblyFilters(token === undefined ? opts : { ...opts, publicKeyToken: token }),
    fetch:
      token === undefined
        ? (q, signal) => listAssemblies(client, q, signal)
        : (q, signal) => signedWith(token, q, (qq) => listAssemblies(client, qq, signal)),
  });
}

/**
 * One page of assemblies of which only those with public key token `token` are kept,
 * client-side, whatever the service did with the filter: `publicKeyToken` is added to a
 * `select` that lacks it (--fields) and removed again from the records.
 */
async function signedWith(token: string, q: ListQuery, fetch: (q: ListQuery) => Promise<AssemblyList>): Promise<AssemblyList> {
  const fields = q.select?.split(', ');
  const added = fields !== undefined && !fields.some((f) => f.toLowerCase() === 'publickeytoken');
  const body = await fetch(added ? { ...q, select: [...fields, 'publicKeyToken'].join(', ') } : q);
  const rows = (body as { assemblies?: unknown }).assemblies;
  if (!Array.isArray(rows)) return body; // listRecords reports it
  const kept = (rows as Record<string, unknown>[])
    .filter((a) => a !== null && typeof a === 'object' && String(fieldOf(a, 'publicKeyToken') ?? '').toLowerCase() === token)
    .map((a) => (added ? Object.fromEntries(Object.entries(a).filter(([k]) => k.toLowerCase() !== 'publickeytoken')) : a));
  return { ...body, assemblies: kept as unknown as Assembly[] };
}

/** Declares `assemblies list` with --name, --public-key-token, --signed-by and the shared list flags. */
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
    )
    .addOption(
      new Option(
        '--signed-by <resource-id>',
        'only assemblies whose public key token is that of this signing key (a resource of type RSA, format SNK; the token is computed here)',
      )
        .argParser(parseId)
        .conflicts('publicKeyToken'),
    );
  addListOptions(cmd, ASSEMBLY_LIST, { sortExample: 'name', whereExample: 'Name.Contains("Folio") and Version != "8.1.0.0"' })
    .addHelpText(
      'after',
      '\nExamples:\n  lic assemblies list --name Folio.Pdf\n  lic assemblies list --public-key-token 0bbe75556158122f --sort name\n  lic assemblies list --signed-by 1 --all\n  lic assemblies list --all --fields id,name,version -o csv > assemblies.csv',
    )
    .action(async (o: AssembliesListOptions, cmd: Command) => run(o, cli.runtimeOf(cmd)));
}
