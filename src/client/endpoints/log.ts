/** `/v1/log` (contract §6). */
import type { Envelope, ListQuery, LogList } from '../../wire.js';
import type { ApiClient } from '../request.js';
import { toQuery } from './query.js';

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
export const listLog = (c: ApiClient, query?: LogQuery) => c.request<LogList>('GET', '/v1/log', { query: toQuery(query) });
/** DELETE /v1/log → `deletedLogCount` (contract §6). */
export const purgeLog = (c: ApiClient, query: LogPurgeQuery) =>
  c.request<Envelope & { deletedLogCount: number }>('DELETE', '/v1/log', { query: toQuery(query) });
