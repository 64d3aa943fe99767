/** `/v1/api-keys` (contract §4). */
import type { ApiKeyInput, ApiKeyList, Envelope, ListQuery } from '../../wire.js';
import { ProtocolError } from '../errors.js';
import type { ApiClient } from '../request.js';
import { requireId } from './require-id.js';
import { toQuery } from './query.js';

/** The writable fields, from the record's schema (src/schema/). */
export type { ApiKeyInput };

/** GET /v1/api-keys (contract §4). */
export const listApiKeys = (c: ApiClient, query?: ListQuery, signal?: AbortSignal) =>
  c.request<ApiKeyList>('GET', '/v1/api-keys', { query: toQuery(query), signal });
/**
 * POST /v1/api-keys → `apiKeyId` and the full `key`, shown this once (contract §4).
 * ProtocolError when the reply lacks an integer id or a non-empty key.
 */
export const createApiKey = async (c: ApiClient, apiKey: ApiKeyInput) => {
  const reply = requireId(
    await c.request<Envelope & { apiKeyId: number; key: string }>('POST', '/v1/api-keys', { body: { apiKey } }),
    'apiKeyId',
    'POST',
    '/v1/api-keys',
  );
  if (typeof reply.key !== 'string' || !reply.key) {
    throw new ProtocolError('the service replied to POST /v1/api-keys without the new "key"', 'POST', '/v1/api-keys');
  }
  return reply;
};
/** PUT /v1/api-keys: only the fields present change (contract §4). */
export const updateApiKey = (c: ApiClient, apiKey: ApiKeyInput & { id: number }) =>
  c.request<Envelope>('PUT', '/v1/api-keys', { body: { apiKey } });
/** DELETE /v1/api-keys/{apiKeyId}. */
export const deleteApiKey = (c: ApiClient, id: number) => c.request<Envelope>('DELETE', `/v1/api-keys/${id}`);
