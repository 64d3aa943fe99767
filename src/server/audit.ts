/**
 * The audit entry of a write (contract §6): one Information entry naming who (key id and
 * owner) did what (method, path, record id), committed in the same transaction as the
 * write itself, so there is never a change without its entry, nor an entry without its
 * change (a failure to write the entry rolls the write back: the client gets a 500 and a
 * retry makes no duplicate).
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from './context.js';
import { writeLog } from './log-writer.js';

/** What one write records beyond who and where: the record id, extra properties, a note appended to the template. */
export interface AuditFacts {
  recordId?: number | string;
  properties?: Record<string, unknown>;
  /** appended to the message template, e.g. `: purged {DeletedLogCount} log entries` */
  note?: string;
}

/** Writes the audit entry of `req` (authenticated) with `facts`; in the caller's transaction. Never pass a secret in facts. */
export function writeAudit(ctx: Pick<ServiceContext, 'db' | 'now'>, req: FastifyRequest, facts: AuditFacts = {}): void {
  const caller = req.caller;
  if (!caller) throw new Error('audit of an unauthenticated request');
  const props: Record<string, unknown> = {
    Method: req.method,
    Path: req.url.split('?')[0],
    ApiKeyId: caller.keyId,
    OwnerId: caller.ownerId,
    ...(facts.recordId !== undefined ? { RecordId: facts.recordId } : {}),
    ...facts.properties,
  };
  const template = `{Method} {Path} by API key {ApiKeyId} of user {OwnerId}${facts.recordId !== undefined ? ', record {RecordId}' : ''}${facts.note ?? ''}`;
  writeLog(ctx.db, ctx.now(), 'Information', template, props);
}

/**
 * Runs a write handler's synchronous database work and its audit entry in one
 * transaction: `work` returns the reply and sets `req.audit`; both commit together, or
 * an error in either rolls back both and propagates (a ServiceError keeps its status).
 * While another process holds the write lock it waits a bounded time, then rejects with
 * 503 having changed nothing (ServiceContext.write).
 */
export function audited<T>(ctx: Pick<ServiceContext, 'db' | 'now' | 'write'>, req: FastifyRequest, work: () => T): Promise<T> {
  return ctx.write(`${req.method} ${req.url.split('?')[0]}`, () => {
    const reply = work();
    writeAudit(ctx, req, req.audit);
    return reply;
  });
}
