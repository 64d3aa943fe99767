import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { badRequest } from '../errors.js';
import { compileOr400, listPage, listQuerySchema, type ListParams, type ListSource } from '../list.js';
import { ADMIN_ONLY, OK, idSchema, parseTimestamp } from './common.js';

/** Fields of a log entry (spec LogEntry); default sort TimeStamp desc, Id desc (contract §6). */
export const logSource: ListSource = {
  from: 'log l',
  spec: {
    fields: [
      { name: 'id', column: 'l.id', type: 'int' },
      { name: 'message', column: 'l.message', type: 'string' },
      { name: 'messageTemplate', column: 'l.message_template', type: 'string' },
      { name: 'level', column: 'l.level', type: 'string' },
      { name: 'timeStamp', column: 'l.time_stamp', type: 'timestamp' },
      { name: 'exception', column: 'l.exception', type: 'string' },
      { name: 'properties', column: 'l.properties', type: 'string' },
    ],
    defaultSort: [
      { name: 'timeStamp', desc: true },
      { name: 'id', desc: true },
    ],
  },
};

const READ_ROLES = ['Administrator', 'LicenseManager', 'Sales'] as const;
/** Rows deleted per statement by a purge, so readers get a turn between batches. */
export const PURGE_BATCH = 5000;

interface DateRange {
  startDate?: string;
  endDate?: string;
}

/** startDate (inclusive) / endDate (exclusive) → SQL scope over `l.time_stamp` (contract §6). */
function rangeScope(q: DateRange): { where: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (q.startDate !== undefined) (parts.push('l.time_stamp >= ?'), params.push(parseTimestamp(q.startDate, 'startDate')));
  if (q.endDate !== undefined) (parts.push('l.time_stamp < ?'), params.push(parseTimestamp(q.endDate, 'endDate')));
  return { where: parts.length ? parts.join(' AND ') : '1', params };
}

/** `GET /v1/log` (alias `/v1/logs`) and `DELETE /v1/log` (spec, Log; contract §6). */
export async function logRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const { db } = ctx;
  const dateProps = { startDate: { type: 'string', maxLength: 64 }, endDate: { type: 'string', maxLength: 64 } } as const;

  for (const url of ['/v1/log', '/v1/logs']) {
    app.get<{ Querystring: ListParams & DateRange }>(url, {
      config: { roles: READ_ROLES },
      schema: { querystring: { type: 'object', properties: { ...listQuerySchema, ...dateProps } } },
    }, async (req) => {
      const { records, total } = listPage(db, logSource, req.query, rangeScope(req.query));
      return { ...OK, logEntries: records, totalLogEntriesCount: total };
    });
  }

  app.delete<{ Querystring: DateRange & { id?: number; filter?: string; deleteAll?: boolean } }>('/v1/log', {
    config: { roles: ADMIN_ONLY },
    schema: {
      querystring: {
        type: 'object',
        properties: { id: idSchema, filter: { type: 'string', maxLength: 4096 }, deleteAll: { type: 'boolean' }, ...dateProps },
      },
    },
  }, async (req) => {
    const q = req.query;
    // an empty filter compiles to "everything": never let it stand for a criterion (contract §6)
    if (q.filter !== undefined && q.filter.trim() === '') throw badRequest('filter is empty; to delete the whole log use deleteAll=true', 'filter');
    let deleted = 0;
    if (q.id !== undefined) {
      deleted = db.prepare('DELETE FROM log WHERE id = ?').run(q.id).changes;
    } else if (q.filter !== undefined || q.startDate !== undefined || q.endDate !== undefined) {
      const scope = rangeScope(q);
      const c = compileOr400(logSource.spec, { filter: q.filter });
      const stmt = db.prepare(
        `DELETE FROM log WHERE id IN (SELECT l.id FROM log l WHERE (${scope.where}) AND (${c.where}) LIMIT ${PURGE_BATCH})`,
      );
      const params = [...scope.params, ...c.params];
      for (;;) {
        const n = stmt.run(...params).changes;
        deleted += n;
        if (n < PURGE_BATCH) break;
        // let other requests run between batches: better-sqlite3 is synchronous
        await new Promise((r) => setImmediate(r));
      }
    } else if (q.deleteAll === true) {
      deleted = db.prepare('DELETE FROM log').run().changes;
    } else {
      throw badRequest('DELETE /v1/log needs a criterion: id, filter, startDate, endDate or deleteAll=true', 'deleteAll');
    }
    req.audit = {
      properties: { DeletedLogCount: deleted, Criteria: JSON.stringify(q) },
      note: ': purged {DeletedLogCount} log entries',
    };
    return { ...OK, deletedLogCount: deleted };
  });
}
