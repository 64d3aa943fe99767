import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { maxHeaderSize, STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifySchemaCompiler,
} from 'fastify';
import { Ajv } from 'ajv';
import { Code } from '../wire.js';
import { createAuth } from './auth.js';
import type { AuthFailLimit } from './auth-guard.js';
import { BUSY_RETRY_AFTER_S, createWriteGate, databaseBusy, isBusy } from './busy.js';
import type { ServiceContext } from './context.js';
import { ServiceError } from './errors.js';
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
/** A path segment (an id, a customer code) may be this long; longer is a 414 (contract §9's codes are at most 256). */
const MAX_PARAM_LENGTH = 1024;

/**
 * How long a client may take to send a request, and how many connections the service keeps
 * open at once (contract §9). A request whose line and headers are not all in after
 * `headersTimeoutMs`, or whose body is not all in after `requestTimeoutMs`, is answered 408
 * (code 4) and its connection closed; Node checks every `checkIntervalMs`. A connection
 * beyond `maxConnections` is closed at once, unanswered, so slow or idle clients can't use
 * up the process's file descriptors (the database, its journal and the log's workers need
 * some).
 */
export interface ConnectionLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  checkIntervalMs: number;
  maxConnections: number;
}

/** Connections at most unless the process's open-file limit is lower (connectionLimit). */
const MAX_CONNECTIONS = 4096;
/** File descriptors left for the service's own files and workers when the open-file limit bounds the connections. */
const FD_RESERVE = 256;

/**
 * The open-file limit of this process (Node raises its soft limit to the hard one at start),
 * from /proc/self/limits on Linux; undefined where it can't be read (then MAX_CONNECTIONS holds).
 */
function openFileLimit(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m && m[1] !== 'unlimited' ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** MAX_CONNECTIONS, or fewer so that FD_RESERVE descriptors stay free under the open-file limit (at least 16). */
function connectionLimit(): number {
  const fds = openFileLimit();
  return fds === undefined ? MAX_CONNECTIONS : Math.max(16, Math.min(MAX_CONNECTIONS, fds - FD_RESERVE));
}

/** The defaults of `lic serve`: 10 s for the request line and headers, 60 s for the whole request, checked each second. */
export function defaultConnectionLimits(): ConnectionLimits {
  return { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, checkIntervalMs: 1000, maxConnections: connectionLimit() };
}

export interface AppOptions extends Omit<ServiceContext, 'invalidateKeys' | 'write'> {
  /** timeouts of slow clients and the cap on connections; defaultConnectionLimits() for what is not given */
  connections?: Partial<ConnectionLimits>;
  /** fastify request logging (pino) into this sink (`lic serve --log-requests`: its stderr); off when absent or false */
  logger?: false | LogSink;
  /**
   * one line for the operator (stderr of `lic serve`) about what the service's own log may
   * not hold: the database locked by another process (when it begins and ends), an error
   * whose log entry could not be written; none when absent
   */
  warn?: (line: string) => void;
  /** the failed-authentication guard (auth-guard.ts); default 5 per 60 s, limit 0 = off */
  authFailLimit?: AuthFailLimit;
  /** while it returns a reason (the database found damaged after the start, index.ts), every request is answered 503, code 14, with it */
  unavailable?: () => string | undefined;
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
 * A stack trace as the log keeps it (contract §6: `exception`, which every role that reads
 * the log sees): each file named relative to where lic is installed (`dist/server.cjs:120:7`,
 * `node_modules/better-sqlite3/lib/…`), the home directory as `~`, so no absolute path of
 * the machine is shown to a reader of the log.
 */
function withoutInstallPaths(text: string): string {
  const home = homedir();
  const relative = text.replace(/(?:file:\/\/)?(?:[A-Za-z]:)?[\\/][^\s()'"]*?[\\/](?=(?:node_modules|dist|src|test)[\\/])/g, '');
  return home.length > 1 ? relative.replaceAll(home, '~') : relative;
}

/** The envelope of contract §1 as a JSON text, for replies written outside fastify's reply (a raw socket, a raw response). */
const envelopeText = (code: number, message: string) => JSON.stringify({ success: false, code, message });

/**
 * Node's HTTP parser failed on a connection before fastify saw a request (fastify's
 * `clientErrorHandler`): the reply is written on the socket itself, in the envelope —
 * 431 (code 8) for a request line and headers over the limit, 408 (code 4) for one that
 * did not arrive in time, else 400 (code 3) naming what the parser refused — and the
 * connection closed. A reply still in progress for an earlier, whole request on the
 * connection (pipelining) is finished first; nothing is written to a socket that is gone.
 */
function clientError(err: NodeJS.ErrnoException & { reason?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, Code.RESOURCE_EXHAUSTED, `the request line and headers are larger than the limit of ${maxHeaderSize} bytes`]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, Code.DEADLINE_EXCEEDED, 'the request did not arrive in time; the connection is closed']
        : [
            400,
            Code.INVALID_ARGUMENT,
            `the request is not valid HTTP/1.1: ${(err.reason ?? err.code ?? 'parse error').replace(/\.$/, '')}`,
          ];
  const body = envelopeText(code, message);
  let replied = false;
  const reply = () => {
    if (replied || socket.destroyed) return;
    replied = true;
    if (!socket.writable) return void socket.destroy();
    // whatever the peer still sends is not read: close once the reply is out
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      () => socket.destroy(),
    );
  };
  // the reply Node's server is writing on this socket, if any (`_httpMessage`, as Node's own socketOnError reads it):
  // when its request arrived whole, the error is in a later, pipelined one, so that reply goes out first; when
  // the error is in its own body, it never will, and the 400 takes its place
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished && inFlight.req.complete) {
    inFlight.once('finish', reply);
    inFlight.once('close', reply);
  } else {
    reply();
  }
}

/**
 * Errors fastify's router meets before any route (fastify's `frameworkErrors`), in the
 * envelope: a path segment over MAX_PARAM_LENGTH is a 414 (code 8), a path whose
 * percent-encoding is broken a 400 (code 3); anything else a 500.
 */
function frameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const path = req.url.split('?')[0]!;
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.status(414).send({
      success: false,
      code: Code.RESOURCE_EXHAUSTED,
      message: `a segment of the path ${path.slice(0, 40)}… is longer than the limit of ${MAX_PARAM_LENGTH} characters`,
    });
  } else if (err.code === 'FST_ERR_BAD_URL') {
    void reply.status(400).send({
      success: false,
      code: Code.INVALID_ARGUMENT,
      message: `the path ${path.slice(0, 200)} is not a valid URL path (bad percent-encoding)`,
    });
  } else {
    void reply.status(500).send({ success: false, code: Code.INTERNAL, message: 'internal error in the service; see its log' });
  }
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
  const limits = { ...defaultConnectionLimits(), ...opts.connections };
  const app = Fastify({
    // our compiler from the start: fastify then never loads its default (@fastify/ajv-compiler, ~10 % of a cold
    // start); the option is typed for ajv-compiler's own builders, hence the cast
    schemaController: { compilersFactory: { buildValidator: (() => validatorCompiler) as never } },
    // pino writes to stdout unless told otherwise; stdout is for data (the URL), so logs go to the sink or stderr
    logger: opts.logger ? { level: 'info', stream: opts.logger } : false,
    bodyLimit: BODY_LIMIT,
    // path parameters up to contract §9's 256-character codes, plus room for a too-long id to reach its 400
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // the 503 of a request that arrives while the service shuts down is ours (an onRequest hook below), in the envelope
    return503OnClosing: false,
    // Node's own 400 for an HTTP/1.1 request without Host has no body: the hook below answers it in the envelope.
    // A slow client (a request line sent by halves, a body trickling in) gets a 408 and is closed (clientError);
    // fastify sets the server's requestTimeout from its own option, Node the rest at creation
    http: {
      requireHostHeader: false,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
    },
    requestTimeout: limits.requestTimeoutMs,
    // errors of Node's HTTP parser and of fastify's router, before any route: in the envelope too
    clientErrorHandler: clientError,
    frameworkErrors: frameworkError as never,
  });
  app.server.maxConnections = limits.maxConnections;
  // Node answers these itself, with no body, unless someone listens: an `Expect` other than
  // 100-continue (417) and a CONNECT request (the socket just closed)
  app.server.on('checkExpectation', (req, res) => {
    const body = envelopeText(
      Code.INVALID_ARGUMENT,
      `Expect: ${String(req.headers.expect).slice(0, 100)} is not supported (only 100-continue)`,
    );
    res.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    res.end(body);
  });
  app.server.on('connect', (req, socket: Socket) => {
    const body = envelopeText(Code.NOT_FOUND, `no such endpoint: CONNECT ${String(req.url).slice(0, 200)}`);
    socket.end(
      `HTTP/1.1 404 Not Found\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });

  // JSON bodies: an empty one is fine where no body is expected (GET, DELETE: several HTTP
  // clients send `content-type: application/json` with nothing); bytes that are not UTF-8,
  // and escaped lone surrogates, are a 400 naming the field (never stored); a __proto__ /
  // constructor.prototype key is a 400 saying so (fastify's default parser refuses them as
  // "not JSON").
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body: Buffer, done) => {
    if (body.length === 0) {
      if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') return done(null, undefined);
      return done(new ServiceError(400, Code.INVALID_ARGUMENT, 'request body is empty; expected a JSON object'), undefined);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      const field = fieldWithInvalidUtf8(body);
      return done(
        new ServiceError(
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
          new ServiceError(
            400,
            Code.INVALID_ARGUMENT,
            'request body has a "__proto__" or "constructor.prototype" key, which is not allowed',
          ),
          undefined,
        );
      }
      if (err) return done(err, undefined);
      const field = fieldWithLoneSurrogate(text, value);
      if (field !== undefined) {
        const reason = 'not valid Unicode: it holds an unpaired surrogate (a \\uD800-\\uDFFF escape without its other half)';
        const name = field || 'request body';
        return done(new ServiceError(400, Code.INVALID_ARGUMENT, `${name} is ${reason}`, [{ field: name, reason }]), undefined);
      }
      done(null, value);
    });
  });

  app.setSchemaErrorFormatter((errors, part) => {
    const { message, field } = describeValidation(errors as never, part);
    return new ServiceError(400, Code.INVALID_ARGUMENT, message, [{ field, reason: message }]);
  });

  const warn = opts.warn ?? (() => {});
  const gate = createWriteGate(opts.db, opts.now, warn);
  const auth = createAuth(opts, opts.authFailLimit);
  const ctx: ServiceContext = { ...opts, invalidateKeys: auth.invalidate, write: gate.write };

  // Shutting down (SIGTERM/SIGINT): in-flight requests finish, but their replies close the
  // connection; a kept-alive one would hold `close()` (and `lic serve`) until the client lets go.
  // A request that arrives meanwhile on a kept-alive connection is refused: 503, code 14.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    gate.close();
  });
  app.addHook('onRequest', async (req, reply) => {
    const unavailable = opts.unavailable?.();
    if (unavailable !== undefined) throw new ServiceError(503, Code.UNAVAILABLE, unavailable);
    if (closing) {
      reply.header('retry-after', '1');
      throw new ServiceError(503, Code.UNAVAILABLE, 'the service is shutting down');
    }
    // HTTP/1.1 requires a Host header (RFC 9112 §3.2); Node's own refusal of one without it has no body
    if (req.raw.httpVersion === '1.1' && req.headers.host === undefined) {
      throw new ServiceError(400, Code.INVALID_ARGUMENT, 'an HTTP/1.1 request needs a Host header');
    }
  });
  app.addHook('onRequest', auth.onRequest);
  app.addHook('onSend', async (_req, reply, payload) => {
    if (closing || opts.unavailable?.() !== undefined) reply.header('connection', 'close');
    return payload;
  });

  // The audit entry of each write (contract §6) is written by the route, in the write's own
  // transaction (audit.ts), so the two commit together or not at all.

  app.setErrorHandler((err: FastifyError | ServiceError, req, reply) => {
    // a write that met another process's lock where it could not wait asynchronously (busy.ts)
    if (isBusy(err)) {
      gate.refused(`${req.method} ${req.url.split('?')[0]}`);
      err = databaseBusy();
    }
    if (err instanceof ServiceError) {
      if (err.code === Code.UNAVAILABLE && !reply.hasHeader('retry-after')) reply.header('retry-after', String(BUSY_RETRY_AFTER_S));
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
    const path = req.url.split('?')[0];
    try {
      writeLog(
        opts.db,
        opts.now(),
        'Error',
        'Unhandled error in {Method} {Path}',
        { Method: req.method, Path: path },
        withoutInstallPaths(String(err.stack ?? err)),
      );
    } catch (e) {
      // the log itself may be what failed (a full disk): the 500 still goes out, and the operator hears of it
      warn(
        `internal error in ${req.method} ${path}: ${String(err.message ?? err)}; it could not be written to the log (${(e as Error).message})`,
      );
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
