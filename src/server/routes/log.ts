import type { FastifyInstance } from 'fastify';
import { audited, writeAudit, type AuditFacts } from '../audit.js';
import type { ServiceContext } from '../context.js';
import { cachedStatement } from '../db.js';
import { badRequest } from '../errors.js';
import { compileListRequest, compileOr400, listQuerySchema, type ListParams, type ListSource } from '../list.js';
import { BUDGET_GUARD, BUDGET_MIN_VALUES, LOG_READ_BUDGET_MS, withinBudget } from '../log/budget.js';
import { containsHook } from '../log/fts.js';
import { logPage } from '../log/page.js';
import { hasForeignTriggers, partsIn } from '../log/parts.js';
import { rangeScope } from '../log/range-scope.js';
import { readAhead, takeKept, type LogReply } from '../log/read-ahead.js';
import {
  deleteAllViaView,
  deleteEntry,
  detachAll,
  detachParts,
  dropDetachedSoon,
  planRange,
  purgeRange,
  fitsInOne,
  purgePartInOne,
  purgeWindows,
} from '../log/purge.js';
import type { TimeRange } from '../log/totals.js';
import { TAKE_DEFAULT } from '../../wire.js';
import { LogEntrySchema, LogPurgeQuerySchema, logRangeProperties, type LogPurgeQuery, type LogRange } from '../../schema/log-entry.js';
import { listFields } from '../fields.js';
import { envelopeProperties, listResponse, selectable } from '../openapi.js';
import { ADMIN_ONLY, OK, parseTimestamp } from './common.js';

/** Fields of a log entry; default sort TimeStamp desc, Id desc (contract §6). Read per partition by ../log/page.ts. */
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

/**
 * A filter's values × the daily partitions a request reads, at most: the SQL of a log read
 * repeats the filter in every partition it reads, and SQLite prepares and runs it without
 * letting other requests in (better-sqlite3 is synchronous). At this bound a read takes
 * ~1-3 s on 2 busy cores (a 4,000-character filter over 600 days took 15-19 s, holding up
 * every other request); beyond it the request is a 400 saying how to narrow it.
 */
export const MAX_FILTER_WORK = 40_000;

/** 400 when `filter` (its values, from a compile without the full-text hook) over the partitions of `range` is beyond MAX_FILTER_WORK. */
function boundFilterWork(db: ServiceContext['db'], filter: string | undefined, range: TimeRange): void {
  if (filter === undefined) return;
  const values = compileOr400(logSource.spec, { filter }).params.length;
  const days = partsIn(db, range).length;
  if (values * days > MAX_FILTER_WORK) {
    throw badRequest(
      `filter: ${values} values over ${days} days of the log is more than one request may read (values × days at most ${MAX_FILTER_WORK}); narrow startDate/endDate or use fewer values`,
      'filter',
    );
  }
}

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

  /** The reply to `GET /v1/log` with query `q`: its text, how many records, the last one's id. */
  const readPage = (q: ListParams & DateRange): LogReply => {
    const range = timeRange(q);
    boundFilterWork(db, q.filter, range);
    // Message.Contains from the full-text index when it matches few entries for a page this long
    const rows = (q.take ?? TAKE_DEFAULT) + (q.skip ?? 0);
    const list = compileListRequest(logSource.spec, q, { contains: containsHook(db, partsIn(db, range), rows) });
    const scope = rangeScope(db, range, list.query.sort[0]!.field.name === 'id');
    // a filter of several values is read against the time budget: past it, a 400 (log/budget.ts)
    const budget = list.query.params.length > BUDGET_MIN_VALUES ? (ctx.logReadBudgetMs ?? LOG_READ_BUDGET_MS) : undefined;
    const { records, total } =
      budget === undefined
        ? logPage(db, list, scope, range)
        : withinBudget(db, budget, () => logPage(db, list, scope, range, BUDGET_GUARD));
    const lastId = records.at(-1)?.id;
    // the largest reply of the API (a page of 1000 is ~300 KB): V8's JSON.stringify writes it
    // 2.5–4× faster than the schema's serializer, the same text (the records hold exactly the
    // schema's fields, of its types; a test checks the bytes against the serializer's)
    return {
      text: JSON.stringify({ ...OK, logEntries: records, totalLogEntriesCount: total }),
      count: records.length,
      // a read under the time budget is not read ahead (it may be refused at another time)
      lastId: budget === undefined && typeof lastId === 'number' ? lastId : undefined,
    };
  };

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
      async (req, reply) => {
        // the page read ahead while the client wrote the one before, if this is its request and the log is unchanged
        const r = takeKept(db, req.query) ?? readPage(req.query);
        readAhead(db, req.query, r, readPage);
        return reply.type('application/json; charset=utf-8').send(r.text);
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
          const deleted = deleteEntry(db, q.id!);
          req.audit = purged(deleted);
          return reply(deleted);
        });
      }
      if (q.filter !== undefined || q.startDate !== undefined || q.endDate !== undefined) {
        const range = timeRange(q);
        boundFilterWork(db, q.filter, range);
        const query = compileOr400(logSource.spec, { filter: q.filter });
        // someone else's trigger on the log: every entry deleted through the view, so that it fires
        const foreign = hasForeignTriggers(db);
        // The purge began when the request arrived (contract §6): the entries it may delete are
        // those that existed then, ids up to lastId; writes acknowledged later (which may be
        // committed before the purge gets the write lock) keep their entries. What it plans,
        // deletes and counts is decided holding the lock, each part bounded by lastId.
        const lastId = cachedStatement(db, 'SELECT last_id FROM log_stats').pluck().get() as number;
        const rangeOnly = q.filter === undefined && !foreign;
        // A range alone that takes whole partitions, and little of those it cuts through or
        // leaves little of them: the whole ones taken out, the others replaced by a copy of
        // their rest (or their few entries deleted), in one transaction.
        const request = `${req.method} ${req.url.split('?')[0]}`;
        if (rangeOnly) {
          const deleted = await ctx.write(request, () => {
            const plan = planRange(db, range, lastId);
            if (!plan.partial.every((k) => fitsInOne(db, k, range))) return undefined;
            let n = detachParts(db, plan.whole);
            for (const k of plan.partial) n += purgePartInOne(db, k, range, lastId);
            writeAudit(ctx, req, purged(n));
            return n;
          });
          if (deleted !== undefined) {
            await dropDetachedSoon(db);
            return reply(deleted);
          }
        }
        // In several transactions: an audit entry before (criteria, how many will go) and one
        // after (how many went), so a purge cut off midway still leaves a trace.
        const scope = rangeScope(db, range, false);
        const willGo = db.transaction(() => {
          const matching = logPage(db, { query, take: 0, skip: 0 }, scope, range).total;
          const later = cachedStatement(db, `SELECT count(*) FROM log l WHERE (${scope.where}) AND (${query.where}) AND l.id > ?`)
            .pluck()
            .get(...scope.params, ...query.params, lastId) as number;
          return matching - later;
        })();
        const before: AuditFacts = {
          properties: { WillDelete: willGo, Criteria: criteria },
          note: ': purging {WillDelete} log entries in windows',
        };
        let deleted = 0;
        if (rangeOnly) {
          // whole partitions go at once (with the entry before); the others in windows, or as above where that fits
          const { n, partial } = await ctx.write(request, () => {
            const plan = planRange(db, range, lastId);
            const n = detachParts(db, plan.whole);
            writeAudit(ctx, req, before);
            return { n, partial: plan.partial };
          });
          deleted += n;
          for (const k of partial) {
            const n = await ctx.write(request, () => (fitsInOne(db, k, range) ? purgePartInOne(db, k, range, lastId) : undefined));
            deleted += n ?? (await purgeWindows(db, k, range, { where: '1', params: [] }, lastId, false));
          }
        } else {
          writeAudit(ctx, req, before);
          deleted = await purgeRange(db, range, { where: query.where, params: query.params }, lastId, foreign);
        }
        writeAudit(ctx, req, purged(deleted));
        await dropDetachedSoon(db);
        return reply(deleted);
      }
      if (q.deleteAll === true) {
        // only what existed when the request arrived, as above
        const lastId = cachedStatement(db, 'SELECT last_id FROM log_stats').pluck().get() as number;
        const deleted = await audited(ctx, req, () => {
          const n = hasForeignTriggers(db) ? deleteAllViaView(db, lastId) : detachAll(db, lastId);
          req.audit = purged(n);
          return n;
        });
        await dropDetachedSoon(db);
        return reply(deleted);
      }
      throw badRequest('DELETE /v1/log needs a criterion: id, filter, startDate, endDate or deleteAll=true', 'deleteAll');
    },
  );
}
