import { listAssemblies } from '../../client/endpoints/assemblies.js';
import type { Assembly, AssemblyList, ListQuery } from '../../wire.js';
import { parseId } from '../../cli/parse.js';
import { AssemblySchema } from '../../schema/assembly.js';
import { defineList, equalsClause, equalsFlag, fieldOf, type ListFlags } from '../../cli/list/index.js';
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

/**
 * `lic assemblies list`: GET /v1/assemblies (contract §5, §7), paged by id. An empty
 * culture shows as `neutral`, mapping file 0 as blank. --public-key-token: the service
 * stores it lowercase and parsePublicKeyToken lowercases the flag. `--signed-by ID` first
 * reads resource ID (an RSA/SNK signing key: NotFoundError, or UsageError naming the
 * flag, otherwise; see signingKeyOf) and computes its public key token client-side
 * (ECMA-335 II.6.2.1.3); the list then asks the service for that token, like
 * --public-key-token, and keeps only the records that carry it (signedWith).
 */
export const ASSEMBLY_LIST = defineList<Assembly, AssembliesListOptions>({
  what: 'assemblies',
  arrayField: 'assemblies',
  totalField: 'totalAssembliesCount',
  schema: AssemblySchema,
  resolve: async (o, client) =>
    o.signedBy === undefined ? o : { ...o, publicKeyToken: (await signingKeyOf(client, o.signedBy, '--signed-by')).key.publicKeyToken },
  fetch: (client, q, o, signal) =>
    o.signedBy === undefined
      ? listAssemblies(client, q, signal)
      : signedWith(o.publicKeyToken!, q, (qq) => listAssemblies(client, qq, signal)),
  description: 'List assemblies',
  columns: [
    { header: 'ID', kind: 'id', get: (a) => a.id },
    { header: 'NAME', kind: 'name', get: (a) => a.name },
    { header: 'VERSION', kind: 'code', get: (a) => a.version },
    { header: 'CULTURE', kind: 'label', get: (a) => a.culture || 'neutral' },
    { header: 'PUBLIC KEY TOKEN', kind: 'code', get: (a) => a.publicKeyToken },
    { header: 'MAPPING FILE', kind: 'id', get: (a) => (a.mappingFileId ? a.mappingFileId : '') },
  ],
  flags: {
    name: equalsFlag('--name <name>', 'Name', 'only assemblies with this name, exactly (case-sensitive), e.g. Folio.Pdf'),
    publicKeyToken: {
      flag: '--public-key-token <hex>',
      help: 'only assemblies with this public key token (16 hex digits, any case), or null for those not strong-named',
      parse: parsePublicKeyToken,
      filter: (v) => equalsClause('PublicKeyToken', v),
    },
    signedBy: {
      flag: '--signed-by <resource-id>',
      help: 'only assemblies whose public key token is that of this signing key (a resource of type RSA, format SNK; the token is computed here)',
      parse: parseId,
      conflicts: 'publicKeyToken',
    },
  },
  help: { sortExample: 'name', whereExample: 'Name.Contains("Folio") and Version != "8.1.0.0"' },
  examples: [
    'lic assemblies list --name Folio.Pdf',
    'lic assemblies list --public-key-token 0bbe75556158122f --sort name',
    'lic assemblies list --signed-by 1 --all',
    'lic assemblies list --all --fields id,name,version -o csv > assemblies.csv',
  ],
});

export const registerAssembliesList = ASSEMBLY_LIST.register;

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
