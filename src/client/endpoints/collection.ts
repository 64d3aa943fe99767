/** The four operations of a collection the API lets clients write (contract §5, §7): list, insert, partial update, delete by id. */
import type { Envelope, ListQuery } from '../../wire.js';
import type { ApiClient } from '../request.js';
import { requireId } from './require-id.js';
import { toQuery } from './query.js';

/** The endpoint functions of one collection (see collectionEndpoints). */
export interface CollectionEndpoints<Input, List, IdField extends string> {
  /** GET PATH with the list query (contract §5). */
  list(c: ApiClient, query?: ListQuery, signal?: AbortSignal): Promise<List>;
  /** POST PATH `{WRAPPER: input}` → the reply with its new id in `IdField`; ProtocolError when it lacks an integer id. */
  create(c: ApiClient, input: Input): Promise<Envelope & Record<IdField, number>>;
  /** PUT PATH `{WRAPPER: input}`: only the fields present change; a missing id is a 404 (contract §7). */
  update(c: ApiClient, input: Input & { id: number }): Promise<Envelope>;
  /** DELETE PATH/{id}. */
  remove(c: ApiClient, id: number): Promise<Envelope>;
}

/**
 * The endpoints of the collection at `path` (e.g. `/v1/assemblies`) whose insert and update
 * bodies wrap the record in `wrapper` (`assembly`) and whose insert reply names the new id
 * `idField` (`assemblyId`), as the API does for every writable record (contract §7).
 */
export function collectionEndpoints<Input, List, IdField extends string>(
  path: string,
  wrapper: string,
  idField: IdField,
): CollectionEndpoints<Input, List, IdField> {
  return {
    list: (c, query, signal) => c.request<List>('GET', path, { query: toQuery(query), signal }),
    create: async (c, input) =>
      requireId(await c.request<Envelope & Record<IdField, number>>('POST', path, { body: { [wrapper]: input } }), idField, 'POST', path),
    update: (c, input) => c.request<Envelope>('PUT', path, { body: { [wrapper]: input } }),
    remove: (c, id) => c.request<Envelope>('DELETE', `${path}/${id}`),
  };
}
