/** `/v1/resources` (contract §2, §7). */
import type { Envelope, ListQuery, ResourceInput, ResourceList } from '../../wire.js';
import type { ApiClient } from '../request.js';
import { requireId } from './require-id.js';
import { toQuery } from './query.js';

/** The writable fields, from the record's schema (src/schema/). */
export type { ResourceInput };

/** GET /v1/resources (the list query, contract §5). */
export const listResources = (c: ApiClient, query?: ListQuery, signal?: AbortSignal) =>
  c.request<ResourceList>('GET', '/v1/resources', { query: toQuery(query), signal });
/** POST /v1/resources → `resourceId` (contract §7); ProtocolError when the reply lacks an integer id. */
export const createResource = async (c: ApiClient, resource: ResourceInput) =>
  requireId(
    await c.request<Envelope & { resourceId: number }>('POST', '/v1/resources', { body: { resource } }),
    'resourceId',
    'POST',
    '/v1/resources',
  );
/** PUT /v1/resources: only the fields present change; a missing id is a 404 (contract §7). */
export const updateResource = (c: ApiClient, resource: ResourceInput & { id: number }) =>
  c.request<Envelope>('PUT', '/v1/resources', { body: { resource } });
/** DELETE /v1/resources/{resourceId}. */
export const deleteResource = (c: ApiClient, id: number) => c.request<Envelope>('DELETE', `/v1/resources/${id}`);
