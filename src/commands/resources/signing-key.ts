/**
 * Signing keys among the resources: an RSA resource in SNK format holds a .NET
 * strong-name key (contract §7), from which lic computes the key size and the public key
 * token client-side (src/dotnet/strong-name.ts), with the published endpoints only.
 * Used by `resources get/create/update`, `assemblies list --signed-by` and
 * `assemblies create --from-dll`.
 */
import { listResources } from '../../client/endpoints/resources.js';
import type { ApiClient } from '../../client/request.js';
import { NotFoundError, UsageError } from '../../cli/errors.js';
import { equalsClause, intKey, listRecords, pages, planList } from '../../cli/list/index.js';
import type { StrongNameKey } from '../../dotnet/strong-name.js';
import type { Resource } from '../../wire.js';
import { RESOURCE_LIST } from './list.js';

/** A resource's type and data format, as far as they are known. */
interface Kind {
  type?: unknown;
  dataFormat?: unknown;
}

const same = (v: unknown, want: string): boolean => typeof v === 'string' && v.toLowerCase() === want.toLowerCase();

/** Whether a resource is a strong-name signing key: type `RSA` and data format `SNK`, in any case (contract §7). */
export function isSnkResource(r: Kind): boolean {
  return same(r.type, 'RSA') && same(r.dataFormat, 'SNK');
}

/**
 * Reads the strong-name key in resource data (`bytes`, or the base64 of the wire):
 * the key, or the reason it is none (empty, or NotAStrongNameKeyError's message).
 * The reader is imported only when a key is read.
 */
export async function readKeyData(data: Uint8Array | string | undefined | null): Promise<StrongNameKey | { problem: string }> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'base64') : (data ?? new Uint8Array(0));
  const { NotAStrongNameKeyError, readStrongNameKey } = await import('../../dotnet/strong-name.js');
  try {
    return readStrongNameKey(bytes);
  } catch (e) {
    if (e instanceof NotAStrongNameKeyError) return { problem: e.message };
    throw e;
  }
}

/**
 * The warning for `--data-file` bytes stored as an RSA/SNK resource that are not a
 * strong-name key (the service stores whatever it is given, so this never stops the
 * write); undefined when they are one, or when the resource is not RSA/SNK.
 */
export async function snkDataWarning(kind: Kind, data: string, dataFile: string): Promise<string | undefined> {
  if (!isSnkResource(kind)) return undefined;
  const key = await readKeyData(data);
  if (!('problem' in key)) return undefined;
  return `lic: warning: --data-file ${dataFile}: not a strong-name key (.snk): ${key.problem}; it is stored as given, but no assembly can be checked against it`;
}

/** A resource as the service sent it, by id: GET /v1/resources?filter=Id = ID (the API has no GET by id); undefined when none. */
export async function findResource(client: ApiClient, id: number): Promise<Resource | undefined> {
  const body = await listResources(client, { filter: `Id = ${id}`, take: 1 });
  const found = listRecords<Resource>(body, 'resources', '/v1/resources')[0];
  // a service may send the id as a string (int64 in protobuf JSON): compare it as an integer
  return found && intKey(found.id) === id ? found : undefined;
}

/**
 * The signing key of resource `id` for a flag such as `--signed-by`: NotFoundError
 * (exit 4) when there is no such resource; UsageError (exit 2) naming `flag` when it is
 * not an RSA resource in SNK format, or its data is not a strong-name key.
 */
export async function signingKeyOf(client: ApiClient, id: number, flag: string): Promise<{ resource: Resource; key: StrongNameKey }> {
  const resource = await findResource(client, id);
  if (!resource) throw new NotFoundError(`${flag} ${id}: no resource with id ${id}`);
  if (!isSnkResource(resource)) {
    const what = `type ${JSON.stringify(resource.type ?? '')}, format ${JSON.stringify(resource.dataFormat ?? '')}`;
    throw new UsageError(
      `${flag} ${id}: resource ${id} (${what}) is not a strong-name signing key; give the id of a resource of type RSA and format SNK (lic resources list --type RSA --format SNK)`,
    );
  }
  const key = await readKeyData(resource.data);
  if ('problem' in key) throw new UsageError(`${flag} ${id}: the data of resource ${id} is not a strong-name key (.snk): ${key.problem}`);
  return { resource, key };
}

/** A signing key of the service: the resource (without its data) and its key. */
export interface ServiceSigningKey {
  id: number;
  name: string;
  key: StrongNameKey;
}

/**
 * Every readable strong-name key on the service: the resources of type RSA (filter
 * `Type = "RSA"`, all pages, with their data), those in SNK format whose data is a
 * strong-name key. Throws the client's errors (ApiError 403 for a key that may not read
 * resources, NetworkError, ProtocolError).
 */
export async function serviceSigningKeys(client: ApiClient): Promise<ServiceSigningKey[]> {
  const plan = planList(RESOURCE_LIST, { all: true, fields: ['id', 'name', 'type', 'dataFormat', 'data'] }, [equalsClause('Type', 'RSA')]);
  const keys: ServiceSigningKey[] = [];
  for await (const page of pages(RESOURCE_LIST, plan, (q, signal) => listResources(client, q, signal))) {
    for (const r of page.records) {
      if (!isSnkResource(r)) continue;
      const key = await readKeyData(r.data);
      if (!('problem' in key)) keys.push({ id: intKey(r.id) ?? Number(r.id), name: r.name ?? '', key });
    }
  }
  return keys;
}
