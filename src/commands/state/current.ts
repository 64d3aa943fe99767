/**
 * What the service holds, read for `lic state export`, `lic diff` and `lic apply` through
 * the published list endpoints only (contract §5, §10), paged by id with the nouns' list
 * definitions (src/cli/list/define.ts) and normalised against their schemas, so a service
 * that leaves out default values (contract §1) reads the same. Resource data is never
 * listed: it is fetched one resource at a time (resourceData), so memory stays flat.
 */
import { createHash } from 'node:crypto';
import { listApiKeys } from '../../client/endpoints/api-keys.js';
import { listAssemblies } from '../../client/endpoints/assemblies.js';
import { listResources } from '../../client/endpoints/resources.js';
import type { ApiClient } from '../../client/request.js';
import { intKey, listRecords, normalizeRecord, pages, planList, type ListDef } from '../../cli/list/index.js';
import type { ListQuery, Resource } from '../../wire.js';
import { API_KEY_LIST } from '../keys/list.js';
import { ASSEMBLY_LIST } from '../assemblies/list.js';
import { RESOURCE_LIST } from '../resources/list.js';
import { assemblyIdentity, assemblyKey, type AssemblyState, type KeyState, type ResourceState, type StateNoun } from './file.js';

/** Page size of these reads: records without resource data, so a page stays small. */
const PAGE = 500;

/** An API key on the service: its state fields, id and prefix (to spot the key lic runs with). */
export interface ServiceKey extends KeyState {
  id: number;
  keyPrefix: string;
}
/** A resource on the service without its data (resourceData fetches it). */
interface ServiceResource extends Omit<ResourceState, 'data'> {
  id: number;
}
/** An assembly on the service; mappingFileId as stored (0: none). */
export interface ServiceAssembly extends Omit<AssemblyState, 'mappingFile'> {
  id: number;
  mappingFileId: number;
}

/** The service's records of the nouns asked for, each by its match key (file.ts matchKey); `resourceCode` maps a resource id to its code. */
export interface ServiceState {
  keys?: Map<string, ServiceKey>;
  resources?: Map<string, ServiceResource>;
  assemblies?: Map<string, ServiceAssembly>;
  /** every resource's id → code ("" when it has none), read whenever resources or assemblies are */
  resourceCode: Map<number, string>;
  /** resources without a code: a state file can't name them (left out of export, never pruned) */
  uncoded: { id: number; name: string }[];
  /** API keys without a name (`keys create` without --name): a state file can't name them (left out of export, never pruned) */
  unnamed: { id: number }[];
}

/**
 * The one note on API keys without a name, which a state file can't name (docs/state.md):
 * `lic: left out 2 API key(s) without a name, which a state file can't name: 5, 9; …`,
 * with the command that names one. `done` says what was done with them ("left out" by
 * export, "left alone" by a prune).
 */
export function unnamedNote(done: string, keys: readonly { id: number }[]): string {
  return `lic: ${done} ${keys.length} API key(s) without a name, which a state file can't name: ${keys.map((k) => k.id).join(', ')}; to manage one as code, name it (lic keys update ${keys[0]?.id ?? 'ID'} --name NAME)`;
}

/** Each record of a list, paged by id, normalised to `fields` (the service's defaults filled in), given to `take` as its page comes. */
async function each<R>(
  def: ListDef<R> & { types: Parameters<typeof normalizeRecord>[1] },
  fetch: (q: ListQuery, signal?: AbortSignal) => Promise<object>,
  fields: readonly string[],
  take: (r: Record<string, unknown>) => void,
): Promise<void> {
  const plan = planList(def, { all: true, take: PAGE, fields: [...fields] });
  for await (const page of pages<R>(def, plan, fetch)) {
    for (const r of page.records) take(normalizeRecord(r as unknown as Record<string, unknown>, def.types, fields));
  }
}

/** Every record of a list, as each gives them. */
async function all<R>(
  def: ListDef<R> & { types: Parameters<typeof normalizeRecord>[1] },
  fetch: (q: ListQuery, signal?: AbortSignal) => Promise<object>,
  fields: readonly string[],
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  await each(def, fetch, fields, (r) => out.push(r));
  return out;
}

/**
 * The service's records can't be written as a state file (two share the identity a file
 * names them by, or an assembly's mapping resource has no code): the command line is fine,
 * so not a UsageError. Exit code 1 (src/cli/errors.ts: any other error); nothing was written.
 */
export class ServiceStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServiceStateError';
  }
}

/** `s` as one POSIX shell word: bare when it is plainly safe, else in single quotes. */
const shellQuote = (s: string): string => (/^[A-Za-z0-9_./:,=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * A ServiceStateError naming records of the service that share an identity a state file
 * needs to be unique, in one line: each group with its ids, then `fix(identity, ids)`, the
 * commands that make them unique (all but the first id changed).
 */
function duplicates(what: string, by: string, groups: Map<string, number[]>, fix: (identity: string, ids: number[]) => string): void {
  const dup = [...groups].filter(([, ids]) => ids.length > 1);
  if (!dup.length) return;
  const list = dup.map(([k, ids]) => `"${k}" (ids ${ids.join(', ')})`).join('; ');
  const commands = dup.map(([k, ids]) => fix(k, ids)).join(', ');
  throw new ServiceStateError(
    `the service has ${what} that share a ${by}, which a state file names them by: ${list}; make them unique (${commands}) and run it again; nothing was written or sent`,
  );
}

/**
 * Reads the `nouns` of the service (keys, resources, assemblies). Throws ServiceStateError (exit 1)
 * when two API keys share a name, two resources a code, or two assemblies an identity —
 * naming them — since a state file could not tell them apart; ApiError, NetworkError as
 * the client throws them.
 */
export async function readService(client: ApiClient, nouns: readonly StateNoun[]): Promise<ServiceState> {
  const state: ServiceState = { resourceCode: new Map(), uncoded: [], unnamed: [] };
  if (nouns.includes('keys')) {
    const fields = ['id', 'name', 'ownerId', 'permissions', 'description', 'expireDate', 'revoked', 'keyPrefix'];
    // each key kept once, as it comes (a service of 376,000 keys: no list of them beside the
    // map, no copy of each, no group per name), its expiry as file.ts writes it, one string per
    // distinct value; a name seen again starts a group of the ids sharing it
    const keys = new Map<string, ServiceKey>();
    const shared = new Map<string, number[]>();
    const isoOf = new Map<string, string>();
    await each(
      API_KEY_LIST,
      (q, s) => listApiKeys(client, q, s),
      fields,
      (r) => {
        const k = r as unknown as ServiceKey;
        if (k.name === '') return void state.unnamed.push({ id: k.id });
        const first = keys.get(k.name);
        if (first) return void shared.set(k.name, [...(shared.get(k.name) ?? [first.id]), k.id]);
        if (k.expireDate) {
          let iso = isoOf.get(k.expireDate);
          if (iso === undefined) {
            iso = new Date(k.expireDate).toISOString();
            if (isoOf.size < 16_384) isoOf.set(k.expireDate, iso);
          }
          k.expireDate = iso;
        } else k.expireDate = null;
        keys.set(k.name, k);
      },
    );
    // in the order of each group's first id, as the keys came (by id)
    duplicates('API keys', 'name', new Map([...shared].sort(([, a], [, b]) => a[0]! - b[0]!)), (name, ids) =>
      ids
        .slice(1)
        .map((id) => `lic keys update ${id} --name ${shellQuote(`${name}-${id}`)}`)
        .join(', '),
    );
    state.keys = keys;
  }
  if (nouns.includes('resources') || nouns.includes('assemblies')) {
    const fields = ['id', 'code', 'name', 'type', 'description', 'source', 'dataFormat'];
    const recs = (await all(RESOURCE_LIST, (q, s) => listResources(client, q, s), fields)) as unknown as ServiceResource[];
    const groups = new Map<string, number[]>();
    for (const r of recs) {
      state.resourceCode.set(r.id, r.code);
      if (r.code === '') state.uncoded.push({ id: r.id, name: r.name });
      else groups.set(r.code, [...(groups.get(r.code) ?? []), r.id]);
    }
    duplicates('resources', 'code', groups, (code, ids) =>
      ids
        .slice(1)
        .map((id) => `lic resources update ${id} --code ${shellQuote(`${code}-${id}`)}`)
        .join(', '),
    );
    if (nouns.includes('resources')) state.resources = new Map(recs.filter((r) => r.code !== '').map((r) => [r.code, r]));
  }
  if (nouns.includes('assemblies')) {
    const fields = ['id', 'name', 'version', 'culture', 'publicKeyToken', 'mappingFileId', 'debugSymbolsKey'];
    const recs = (await all(ASSEMBLY_LIST, (q, s) => listAssemblies(client, q, s), fields)) as unknown as ServiceAssembly[];
    const groups = new Map<string, number[]>();
    const byKey = new Map<string, ServiceAssembly>();
    for (const a of recs) {
      const norm = {
        ...a,
        culture: a.culture.toLowerCase() === 'neutral' ? '' : a.culture,
        publicKeyToken: a.publicKeyToken.toLowerCase(),
      };
      // grouped by the key a file matches by (culture and token in any case), named by the first one's identity:
      // `de` and `DE` are one culture, and two of them in one map would leave one out unseen
      const k = assemblyKey(norm);
      const first = byKey.get(k);
      const shown = assemblyIdentity(first ?? norm);
      groups.set(shown, [...(groups.get(shown) ?? []), a.id]);
      if (!first) byKey.set(k, norm);
    }
    duplicates('assemblies', 'name, version, culture and public key token', groups, (_, ids) =>
      ids
        .slice(1)
        .map((id) => `lic assemblies delete ${id}`)
        .join(', '),
    );
    state.assemblies = byKey;
  }
  return state;
}

/**
 * The bytes of resource `id`, fetched alone (`Id = N`, contract §5) so that only one
 * resource's data is in memory; undefined when it is gone.
 */
export async function resourceData(client: ApiClient, id: number): Promise<Buffer | undefined> {
  const body = await listResources(client, { filter: `Id = ${id}`, take: 1 });
  const found = listRecords<Resource>(body, 'resources', '/v1/resources')[0];
  if (!found || intKey(found.id) !== id) return undefined;
  const r = normalizeRecord(found as unknown as Record<string, unknown>, RESOURCE_LIST.types, ['data']);
  return Buffer.from(r.data as string, 'base64');
}

/** A short fingerprint of bytes for plans: `N bytes, sha256 abcdef012345`. */
export function fingerprint(bytes: Buffer): string {
  return `${bytes.length} bytes, sha256 ${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`;
}
