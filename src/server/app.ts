import Fastify, { type FastifyError, type FastifyInstance, type FastifySchemaCompiler } from 'fastify';
import { Ajv } from 'ajv';
import { Code } from '../wire.js';
import { createAuth } from './auth.js';
import type { AuthFailLimit } from './auth-guard.js';
import type { ServiceContext } from './context.js';
import { ApiFailure } from './errors.js';
import { writeLog } from './log-writer.js';
import { fieldWithLoneSurrogate, firstStringWhere } from './text.js';
import { registerOpenApi } from './openapi.js';
import { registerRoutes } from './routes/index.js';

/** Where request logs go: one JSON line per write (pino). */
export interface LogSink {
  write(line: string): unknown;
}

/** Body size limit of contract §9. */
export const BODY_LIMIT = 10 * 1024 * 1024;

export interface AppOptions extends Omit<ServiceContext, 'invalidateKeys'> {
  /** fastify request logging (pino): `true` for stderr, or a sink; off by default */
  logger?: boolean | LogSink;
  /** the failed-authentication guard (auth-guard.ts); default 5 per 60 s, limit 0 = off */
  authFailLimit?: AuthFailLimit;
}

/** One ajv message → "field: reason" naming the field as a user wrote it (`apiKey.permissions`). */
function describeValidation(
  errors: {
    instancePath: string;
    keyword: string;
    message?: string;
    params: Record<string, unknown>;
    parentSchema?: { minimum?: unknown; maximum?: unknown };
  }[],
  part: string,
): { message: string; field: string } {
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
  // a bound violated: name the whole allowed range (contract §5: "take -1" names the limit 1000 too)
  const range =
    (e.keyword === 'minimum' || e.keyword === 'maximum') &&
    typeof e.parentSchema?.minimum === 'number' &&
    typeof e.parentSchema.maximum === 'number'
      ? ` (allowed: ${e.parentSchema.minimum}..${e.parentSchema.maximum})`
      : '';
  return { field, message: `${field} ${e.message ?? 'is invalid'}${range}` };
}

type TextValidator = ((data: unknown) => boolean) & { errors?: unknown };
// canonical decimals only: no leading zeros (`01`), no sign on zero (contract §2)
const PLAIN = { integer: /^(0|-?[1-9]\d*)$/, boolean: /^(true|false)$/ } as const;

/** Plain JSON.parse accepts it: valid JSON (then a refusal of the secure parser means a prototype key). */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The dotted path (`resource.name`) of the first string of a JSON body whose bytes are
 * not UTF-8, found by decoding leniently (bad bytes → U+FFFD) and looking for U+FFFD;
 * undefined when the body is not JSON even then (the bad bytes sit outside any string).
 */
function fieldWithInvalidUtf8(body: Buffer): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  return firstStringWhere(value, (s) => s.includes('\uFFFD'));
}

/**
 * Query strings and path params arrive as text, and ajv's coercion is lenient (`1e3`,
 * `0x10`, ` 7`, `+5`, `1.0` would all pass as integers). Ids and numbers must be plain
 * decimal digits (contract §2), booleans `true`/`false`: check that before coercing.
 */
function strictText(validate: TextValidator, schema: unknown): TextValidator {
  const props = Object.entries((schema as { properties?: Record<string, { type?: string }> }).properties ?? {}).filter(
    ([, p]) => p.type === 'integer' || p.type === 'boolean',
  ) as [string, { type: 'integer' | 'boolean' }][];
  if (props.length === 0) return validate;
  const wrapped: TextValidator = (data) => {
    for (const [name, p] of props) {
      const v = (data as Record<string, unknown> | null)?.[name];
      if (typeof v === 'string' && !PLAIN[p.type].test(v)) {
        wrapped.errors = [
          {
            instancePath: `/${name}`,
            keyword: 'type',
            params: {},
            message:
              p.type === 'integer'
                ? `must be integer (decimal digits without leading zeros), got "${v.slice(0, 40)}"`
                : `must be boolean (true or false), got "${v.slice(0, 40)}"`,
          },
        ];
        return false;
      }
    }
    const ok = validate(data);
    wrapped.errors = validate.errors;
    return ok;
  };
  return wrapped;
}

/**
 * A validator compiled on its first call instead of at start: compiling every route's
 * schemas up front was ~40 % of `lic serve`'s cold start (bench/serve.md).
 */
function onFirstUse(compile: () => TextValidator): TextValidator {
  let v: TextValidator | undefined;
  const lazy: TextValidator = (data) => {
    v ??= compile();
    const ok = v(data);
    lazy.errors = v.errors;
    return ok;
  };
  return lazy;
}

/**
 * Builds the local reference service (fastify) over an opened database: envelope, errors
 * and status codes of contract §1, auth of §3, audit entries of §6, every route.
 * Throws only on programming errors; the caller listens and closes.
 */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  // Query strings and path params are text: coerce to the schema's types. Bodies are
  // JSON: a wrong type is a 400, never silently coerced (contract §1).
  // verbose: errors carry their parentSchema, so a bound violation can name the whole range
  const ajvText = new Ajv({
    coerceTypes: true,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
    verbose: true,
  });
  const ajvBody = new Ajv({
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    allErrors: false,
    strict: false,
    verbose: true,
  });
  const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
    onFirstUse(() =>
      httpPart === 'body' ? ajvBody.compile(schema as object) : strictText(ajvText.compile(schema as object), schema),
    ) as ReturnType<typeof ajvText.compile>;
  const app = Fastify({
    // our compiler from the start: fastify then never loads its default (@fastify/ajv-compiler, ~10 % of a cold
    // start); the option is typed for ajv-compiler's own builders, hence the cast
    schemaController: { compilersFactory: { buildValidator: (() => validatorCompiler) as never } },
    // pino writes to stdout unless told otherwise; stdout is for data (the URL), so logs go to the sink or stderr
    logger: opts.logger ? { level: 'info', stream: typeof opts.logger === 'object' ? opts.logger : process.stderr } : false,
    bodyLimit: BODY_LIMIT,
    // path parameters up to contract §9's 256-character codes, plus room for a too-long id to reach its 400
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    return503OnClosing: true,
  });

  // JSON bodies: an empty one is fine where no body is expected (GET, DELETE: several HTTP
  // clients send `content-type: application/json` with nothing); bytes that are not UTF-8,
  // and escaped lone surrogates, are a 400 naming the field (never stored); a __proto__ / constructor.prototype
  // key is a 400 saying so (fastify's default parser refuses them as "not JSON").
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body: Buffer, done) => {
    if (body.length === 0) {
      if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') return done(null, undefined);
      return done(new ApiFailure(400, Code.INVALID_ARGUMENT, 'request body is empty; expected a JSON object'), undefined);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      const field = fieldWithInvalidUtf8(body);
      return done(
        new ApiFailure(
          400,
          Code.INVALID_ARGUMENT,
          `${field ?? 'request body'} is not valid UTF-8`,
          field ? [{ field, reason: 'not valid UTF-8' }] : undefined,
        ),
        undefined,
      );
    }
    void defaultJson(req, text, (err, value) => {
      // the default parser (secure-json-parse) refuses prototype keys with its generic "not valid JSON"
      if (err && isJson(text)) {
        return done(
          new ApiFailure(400, Code.INVALID_ARGUMENT, 'request body has a "__proto__" or "constructor.prototype" key, which is not allowed'),
          undefined,
        );
      }
      if (err) return done(err, undefined);
      const field = fieldWithLoneSurrogate(text, value);
      if (field !== undefined) {
        const reason = 'not valid Unicode: it holds an unpaired surrogate (a \\uD800-\\uDFFF escape without its other half)';
        const name = field || 'request body';
        return done(new ApiFailure(400, Code.INVALID_ARGUMENT, `${name} is ${reason}`, [{ field: name, reason }]), undefined);
      }
      done(null, value);
    });
  });

  app.setSchemaErrorFormatter((errors, part) => {
    const { message, field } = describeValidation(errors as never, part);
    return new ApiFailure(400, Code.INVALID_ARGUMENT, message, [{ field, reason: message }]);
  });

  const auth = createAuth(opts, opts.authFailLimit);
  const ctx: ServiceContext = { ...opts, invalidateKeys: auth.invalidate };
  app.addHook('onRequest', auth.onRequest);

  // Shutting down (SIGTERM/SIGINT): in-flight requests finish, but their replies close the
  // connection; a kept-alive one would hold `close()` (and `lic serve`) until the client lets go.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });

  // The audit entry of each write (contract §6) is written by the route, in the write's own
  // transaction (audit.ts), so the two commit together or not at all.

  app.setErrorHandler((err: FastifyError | ApiFailure, req, reply) => {
    if (err instanceof ApiFailure) {
      return reply
        .status(err.status)
        .send({ success: false, code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) });
    }
    const status = err.statusCode ?? 500;
    if (status === 413) {
      return reply
        .status(413)
        .send({ success: false, code: Code.RESOURCE_EXHAUSTED, message: `request body is larger than the limit of ${BODY_LIMIT} bytes` });
    }
    if (status >= 400 && status < 500) {
      const message =
        err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError
          ? 'request body is not valid JSON'
          : err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
            ? 'request body is empty; expected a JSON object'
            : err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
              ? 'content-type must be application/json'
              : err.message;
      return reply.status(400).send({ success: false, code: Code.INVALID_ARGUMENT, message });
    }
    req.log.error(err);
    try {
      writeLog(
        opts.db,
        opts.now(),
        'Error',
        'Unhandled error in {Method} {Path}',
        { Method: req.method, Path: req.url.split('?')[0] },
        String(err.stack ?? err),
      );
    } catch {
      // the log itself may be what failed (a full disk): the 500 still goes out
    }
    return reply.status(500).send({ success: false, code: Code.INTERNAL, message: 'internal error in the service; see its log' });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ success: false, code: Code.NOT_FOUND, message: `no such endpoint: ${req.method} ${req.url.split('?')[0]}` });
  });

  // OpenAPI document from the route schemas (GET /openapi.json, public), made on first request
  registerOpenApi(app, (instance) => registerRoutes(instance, ctx));
  await registerRoutes(app, ctx);
  return app;
}
