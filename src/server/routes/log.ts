import type { FastifyInstance } from 'fastify';
import { audited, writeAudit, type AuditFacts } from '../audit.js';
import type { ServiceContext } from '../context.js';
import { cachedStatement } from '../db.js';
import { badRequest } from '../errors.js';
import { compileListRequest, compileOr400, listPage, listQuerySchema, type ListParams, type ListSource } from '../list.js';
import { rangeScope } from '../log/planner.js';
import { purgeRange, purgeRangeByTruncation, truncateLog } from '../log/purge.js';
import { logTotal, type TimeRange } from '../log/totals.js';
import { LogEntrySchema, LogPurgeQuerySchema, logRangeProperties, type LogPurgeQuery, type LogRange } from '../../schema/log-entry.js';
import { listFields } from '../fields.js';
import { envelopeProperties, listResponse, selectable } from '../openapi.js';
import { ADMIN_ONLY, OK, parseTimestamp } from './common.js';

/** Fields of a log entry; default sort TimeStamp desc, Id desc (contract §6). */
export const logSource: ListSource = {
  from: 'log l',
  spec: {
    fields: listFields(LogEntrySchema, 'l'),
    defaultSort: [
      { name: 'timeStamp', desc: true },
      { name: 'id', desc: true },
    ],
  },
};

const READ_ROLES = ['Administrator', 'LicenseManager', 'Sales'] as const;

type DateRange = LogRange;

/** startDate/endDate → ms; 400 naming the parameter when one is not a time (contract §2). */
function timeRange(q: DateRange): TimeRange {
  return {
    start: q.startDate === undefined ? undefined : parseTimestamp(q.startDate, 'startDate'),
    end: q.endDate === undefined ? undefined : parseTimestamp(q.endDate, 'endDate'),
  };
}

/** `GET /v1/log` (alias `/v1/logs`) and `DELETE /v1/log` (spec, Log; contract §6). */
export async function logRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const { db } = ctx;
  const dateProps = logRangeProperties;

  for (const url of ['/v1/log', '/v1/logs']) {
    app.get<{ Querystring: ListParams & DateRange }>(
      url,
      {
        config: { roles: READ_ROLES },
        schema: {
          querystring: { type: 'object', properties: { ...listQuerySchema, ...dateProps } },
          response: {
            200: listResponse('logEntries', 'totalLogEntriesCount', selectable(LogEntrySchema)),
          },
        },
      },
      async (req) => {
        const range = timeRange(req.query);
        const list = compileListRequest(logSource.spec, req.query);
        const scope = rangeScope(db, range, list.query.sort[0]!.field.name === 'id');
        const { records, total } = listPage(db, { ...logSource, total: logTotal(range) }, list, scope);
        return { ...OK, logEntries: records, totalLogEntriesCount: total };
      },
    );
  }

  app.delete<{ Querystring: LogPurgeQuery }>(
    '/v1/log',
    {
      config: { roles: ADMIN_ONLY },
      schema: {
        querystring: LogPurgeQuerySchema,
        response: { 200: { type: 'object', properties: { ...envelopeProperties, deletedLogCount: { type: 'integer', minimum: 0 } } } },
      },
    },
    async (req) => {
      const q = req.query;
      // an empty filter compiles to "everything": it must never stand for a criterion (contract §6)
      if (q.filter !== undefined && q.filter.trim() === '') {
        throw badRequest('filter is empty; to delete the whole log use deleteAll=true', 'filter');
      }
      const criteria = JSON.stringify(q);
      const purged = (deleted: number): AuditFacts => ({
        properties: { DeletedLogCount: deleted, Criteria: criteria },
        note: ': purged {DeletedLogCount} log entries',
      });
      const reply = (deleted: number) => ({ ...OK, deletedLogCount: deleted });
      // each purge that runs in one transaction writes its audit entry in that transaction (audited)
      if (q.id !== undefined) {
        return audited(ctx, req, () => {
          const deleted = db.prepare('DELETE FROM log WHERE id = ?').run(q.id).changes;
          req.audit = purged(deleted);
          return reply(deleted);
        });
      }
      if (q.filter !== undefined || q.startDate !== undefined || q.endDate !== undefined) {
        const range = timeRange(q);
        const query = compileOr400(logSource.spec, { filter: q.filter });
        // a range alone that leaves little (purge --before now, or all but the newest day): truncate, put the rest back
        if (q.filter === undefined) {
          const deleted = db
            .transaction(() => {
              const n = purgeRangeByTruncation(db, range);
              if (n !== undefined) writeAudit(ctx, req, purged(n));
              return n;
            })
            .immediate();
          if (deleted !== undefined) return reply(deleted);
        }
        // In windows, each its own transaction: an audit entry before (criteria, how many will go)
        // and one after (how many went), so a purge cut off midway still leaves a trace.
        // What is in the log now: neither the entry below nor later writes are the purge's to delete.
        const lastId = (cachedStatement(db, 'SELECT max(id) FROM log').pluck().get() as number | null) ?? 0;
        const source = { ...logSource, total: logTotal(range) };
        const willGo = listPage(db, source, { query, take: 0, skip: 0 }, rangeScope(db, range, false)).total;
        writeAudit(ctx, req, {
          properties: { WillDelete: willGo, Criteria: criteria },
          note: ': purging {WillDelete} log entries in windows',
        });
        const deleted = await purgeRange(db, range, { where: `(${query.where}) AND l.id <= ?`, params: [...query.params, lastId] });
        writeAudit(ctx, req, purged(deleted));
        return reply(deleted);
      }
      if (q.deleteAll === true) {
        return audited(ctx, req, () => {
          const deleted = truncateLog(db) ?? db.prepare('DELETE FROM log').run().changes;
          req.audit = purged(deleted);
          return reply(deleted);
        });
      }
      throw badRequest('DELETE /v1/log needs a criterion: id, filter, startDate, endDate or deleteAll=true', 'deleteAll');
    },
  );
}
