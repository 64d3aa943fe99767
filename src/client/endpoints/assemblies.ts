/** `/v1/assemblies` (contract §7). */
import type { AssemblyInput, AssemblyList, Envelope, ListQuery } from '../../wire.js';
import type { ApiClient } from '../request.js';
import { requireId } from './require-id.js';
import { toQuery } from './query.js';

/** The writable fields, from the record's schema (src/schema/). */
export type { AssemblyInput };

/** GET /v1/assemblies (the list query, contract §5). */
export const listAssemblies = (c: ApiClient, query?: ListQuery, signal?: AbortSignal) =>
  c.request<AssemblyList>('GET', '/v1/assemblies', { query: toQuery(query), signal });
/** POST /v1/assemblies → `assemblyId` (contract §7); ProtocolError when the reply lacks an integer id. */
export const createAssembly = async (c: ApiClient, assembly: AssemblyInput) =>
  requireId(
    await c.request<Envelope & { assemblyId: number }>('POST', '/v1/assemblies', { body: { assembly } }),
    'assemblyId',
    'POST',
    '/v1/assemblies',
  );
/** PUT /v1/assemblies: only the fields present change; a missing id is a 404 (contract §7). */
export const updateAssembly = (c: ApiClient, assembly: AssemblyInput & { id: number }) =>
  c.request<Envelope>('PUT', '/v1/assemblies', { body: { assembly } });
/** DELETE /v1/assemblies/{assemblyId}. */
export const deleteAssembly = (c: ApiClient, id: number) => c.request<Envelope>('DELETE', `/v1/assemblies/${id}`);
