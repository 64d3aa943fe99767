import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { Ajv } from 'ajv';
import { Code } from '../wire.js';
import { createAuth } from './auth.js';
import type { ServiceContext } from './context.js';
import { ApiFailure } from './errors.js';
import { writeLog } from './log-writer.js';
import { registerRoutes } from './routes/index.js';

/** Body size limit of contract §9. */
export const BODY_LIMIT = 10 * 1024 * 1024;

export interface AppOptions extends Omit<ServiceContext, 'invalidateKeys'> {
  /** fastify request logging to stderr (pino); off by default */
  logger?: boolean;
}

/** One ajv message → "field: reason" naming the field as a user wrote it (`apiKey.permissions`). */
function describeValidation(errors: { instancePath: string; keyword: string; message?: string; params: Record<string, unknown> }[], part: string): { message: string; field: string } {
  const e = errors[0]!;
  const base = e.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (e.keyword === 'required') {
    const field = [base, e.params.missingProperty].filter(Boolean).join('.');
    return { field, message: `${field} is required` };
  }
  if (e.keyword === 'additionalProperties') {
    const field = [base, e.params.additionalProperty].filter(Boolean).join('.');
    return { field, message: `${field} is not a known field` };
  }
  const field = base || part;
  return { field, message: `${field} ${e.message ?? 'is invalid'}` };
}

/**
 * Builds the local reference service (fastify) over an opened database: envelope, errors
 * and status codes of contract §1, auth of §3, audit entries of §6, every route.
 * Throws only on programming errors; the caller listens and closes.
 */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ? { level: 'info' } : false,
    bodyLimit: BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true },
    return503OnClosing: true,
  });

  // Query strings and path params are text: coerce to the schema's types. Bodies are
  // JSON: a wrong type is a 400, never silently coerced (contract §1).
  const ajvText = new Ajv({ coerceTypes: true, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  const ajvBody = new Ajv({ coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false, strict: false });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? ajvBody : ajvText).compile(schema as object),
  );
  app.setSchemaErrorFormatter((errors, part) => {
    const { message, field } = describeValidation(errors as never, part);
    return new ApiFailure(400, Code.INVALID_ARGUMENT, message, [{ field, reason: message }]);
  });

  const auth = createAuth(opts);
  const ctx: ServiceContext = { ...opts, invalidateKeys: auth.invalidate };
  app.addHook('onRequest', auth.onRequest);

  // One audit entry per successful write (contract §6), written before the reply leaves
  // so a client that reads the log right after sees it.
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.caller && reply.statusCode === 200 && req.method !== 'GET' && req.method !== 'HEAD') {
      const a = req.audit ?? {};
      const props: Record<string, unknown> = {
        Method: req.method,
        Path: req.url.split('?')[0],
        ApiKeyId: req.caller.keyId,
        OwnerId: req.caller.ownerId,
        ...(a.recordId !== undefined ? { RecordId: a.recordId } : {}),
        ...a.properties,
      };
      const template = `{Method} {Path} by API key {ApiKeyId} of user {OwnerId}${a.recordId !== undefined ? ', record {RecordId}' : ''}${a.note ?? ''}`;
      writeLog(opts.db, opts.now(), 'Information', template, props);
    }
    return payload;
  });

  app.setErrorHandler((err: FastifyError | ApiFailure, req, reply) => {
    if (err instanceof ApiFailure) {
      return reply.status(err.status).send({ success: false, code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) });
    }
    const status = err.statusCode ?? 500;
    if (status === 413) {
      return reply.status(413).send({ success: false, code: Code.RESOURCE_EXHAUSTED, message: `request body is larger than the limit of ${BODY_LIMIT} bytes` });
    }
    if (status >= 400 && status < 500) {
      const message = err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError
        ? 'request body is not valid JSON'
        : err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
          ? 'request body is empty; expected a JSON object'
          : err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
            ? 'content-type must be application/json'
            : err.message;
      return reply.status(400).send({ success: false, code: Code.INVALID_ARGUMENT, message });
    }
    req.log.error(err);
    writeLog(opts.db, opts.now(), 'Error', 'Unhandled error in {Method} {Path}', { Method: req.method, Path: req.url.split('?')[0] }, String(err.stack ?? err));
    return reply.status(500).send({ success: false, code: Code.INTERNAL, message: 'internal error in the service; see its log' });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ success: false, code: Code.NOT_FOUND, message: `no such endpoint: ${req.method} ${req.url.split('?')[0]}` });
  });

  await registerRoutes(app, ctx);
  return app;
}
