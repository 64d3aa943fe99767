/** `/v1/log` (contract §6). */
import type { Envelope, ListQuery, LogList } from '../../wire.js';
import type { LogPurgeQuery, LogRange } from '../../schema/log-entry.js';
import type { ApiClient, RequestOptions } from '../request.js';
import { toQuery } from './query.js';

/** The query of GET /v1/log: the list query (contract §5) and the time range (src/schema/log-entry.ts). */
export type LogQuery = ListQuery & LogRange;
export type { LogPurgeQuery };

/** GET /v1/log (contract §6); `retry`: this request's own retry count and whether retries are announced. */
export const listLog = (c: ApiClient, query?: LogQuery, signal?: AbortSignal, retry?: Pick<RequestOptions, 'retries' | 'quietRetries'>) =>
  c.request<LogList>('GET', '/v1/log', { query: toQuery(query), signal, ...retry });
/** DELETE /v1/log → `deletedLogCount` (contract §6). */
export const purgeLog = (c: ApiClient, query: LogPurgeQuery) =>
  c.request<Envelope & { deletedLogCount: number }>('DELETE', '/v1/log', { query: toQuery(query) });
