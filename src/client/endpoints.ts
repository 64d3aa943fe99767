/**
 * One typed function per endpoint of management-api.md; each is a few lines over
 * ApiClient.request. Bodies come back unchanged so `-o json` can print them as-is.
 */
import type { ApiKeyList, Envelope, ListQuery, LogList } from '../wire.js';
import type { ApiClient, Query } from './request.js';

const q = (o: object | undefined): Query => ({ ...(o as Query) });

export interface ApiKeyInput {
  name?: string;
  ownerId?: string;
  permissions?: number;
  description?: string;
  expireDate?: string;
  revoked?: boolean;
}

/** GET /v1/api-keys (contract §4). */
export const listApiKeys = (c: ApiClient, query?: ListQuery) => c.request<ApiKeyList>('GET', '/v1/api-keys', { query: q(query) });
/** POST /v1/api-keys → `apiKeyId` and the full `key`, shown this once (contract §4). */
export const createApiKey = (c: ApiClient, apiKey: ApiKeyInput) =>
  c.request<Envelope & { apiKeyId: number; key: string }>('POST', '/v1/api-keys', { body: { apiKey } });
/** PUT /v1/api-keys: only the fields present change (contract §4). */
export const updateApiKey = (c: ApiClient, apiKey: ApiKeyInput & { id: number }) =>
  c.request<Envelope>('PUT', '/v1/api-keys', { body: { apiKey } });
/** DELETE /v1/api-keys/{apiKeyId}. */
export const deleteApiKey = (c: ApiClient, id: number) => c.request<Envelope>('DELETE', `/v1/api-keys/${id}`);

export interface LogQuery extends ListQuery {
  startDate?: string;
  endDate?: string;
}
export interface LogPurgeQuery {
  id?: number;
  filter?: string;
  startDate?: string;
  endDate?: string;
  deleteAll?: boolean;
}

/** GET /v1/log (contract §6). */
export const listLog = (c: ApiClient, query?: LogQuery) => c.request<LogList>('GET', '/v1/log', { query: q(query) });
/** DELETE /v1/log → `deletedLogCount` (contract §6). */
export const purgeLog = (c: ApiClient, query: LogPurgeQuery) =>
  c.request<Envelope & { deletedLogCount: number }>('DELETE', '/v1/log', { query: q(query) });
