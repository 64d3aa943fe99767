/**
 * One attempt of a request and what its reply means: the deadline over the whole attempt,
 * the cap on the reply's size, a network failure named (network-errors.ts), and the
 * envelope turned into data or a typed error.
 */
import { ApiError, NetworkError, ProtocolError, RequestAbortedError } from './errors.js';
import { describeNetworkError, socketCode } from './network-errors.js';
import { parseRetryAfter } from './retry.js';
import { formatDuration } from '../time.js';
import { discard, isProxied, originAndPath, type ProxySettings, type RequestDispatcher } from './transport.js';

/** The outcome of one attempt that got a reply. */
export interface Reply {
  status: number;
  body: string;
  retryAfter?: string;
}

/** One attempt: where, what, and its limits. */
export interface Attempt {
  /** the client's pool (made on first use) */
  dispatcher: () => Promise<RequestDispatcher>;
  method: string;
  url: string;
  /** the path as the caller gave it, for messages and errors (no query) */
  path: string;
  headers: Record<string, string>;
  /** the JSON body, serialised (json-body.ts: bytes when it holds long strings) */
  payload?: string | Buffer;
  /** deadline of the whole attempt (connect, headers, body) in ms */
  timeoutMs: number;
  /** bodies larger than this many bytes are refused */
  maxReplyBytes: number;
  /** the caller's abort */
  signal?: AbortSignal;
  trace?: (line: string) => void;
  /** the client's proxies: a refused connection through one is the proxy's */
  proxy?: ProxySettings;
}

/**
 * Sends one attempt and reads its whole reply (any status). Throws NetworkError (timeout,
 * refused, reset, closed before the announced body …), ProtocolError (reply over
 * `maxReplyBytes`: announced or sent), RequestAbortedError (`signal` aborted).
 */
export async function sendOnce(a: Attempt): Promise<Reply> {
  const { method, url, path, headers, payload, timeoutMs: timeout, maxReplyBytes: max } = a;
  const started = Date.now();
  a.trace?.(`> ${method} ${url}${headers['x-api-key'] ? ' (x-api-key: [redacted])' : ''}${payload ? ` (${payload.length} bytes)` : ''}`);
  // one deadline for the whole attempt: undici's headersTimeout/bodyTimeout only bound idle gaps
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeout);
  const onAbort = () => deadline.abort();
  a.signal?.addEventListener('abort', onAbort, { once: true });
  let expected: number | undefined;
  let received = -1;
  try {
    const res = await (
      await a.dispatcher()
    ).request({
      ...originAndPath(url),
      method: method as 'GET',
      headers,
      body: payload,
      signal: deadline.signal,
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    received = 0;
    const cl = res.headers['content-length'];
    expected = typeof cl === 'string' && /^\d+$/.test(cl) ? Number(cl) : undefined;
    if (expected !== undefined && expected > max) {
      discard(res.body);
      throw tooLarge(method, path, max, `announced ${expected} bytes`);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      received += chunk.length;
      // stop at limit+1: the rest is never read, and destroying the body drops the connection
      if (received > max) {
        discard(res.body);
        throw tooLarge(method, path, max, 'kept sending');
      }
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    a.trace?.(`< ${res.statusCode} ${path} (${Date.now() - started} ms, ${received} bytes)`);
    const ra = res.headers['retry-after'];
    return { status: res.statusCode, body: text, retryAfter: Array.isArray(ra) ? ra[0] : ra };
  } catch (e) {
    if (e instanceof ProtocolError) throw e;
    if (a.signal?.aborted) throw new RequestAbortedError(method, path);
    const origin = new URL(url).origin;
    if (deadline.signal.aborted) {
      throw new NetworkError(`timed out after ${formatDuration(timeout)} waiting for ${origin} (--timeout)`, method, path, 'timeout');
    }
    // the headers came, then the service closed (FIN, not a reset) before the body was complete
    if (received >= 0 && closedEarly(e, expected, received)) {
      const got = expected !== undefined ? `${received} of ${expected} bytes` : `after ${received} bytes`;
      throw new NetworkError(`connection to ${origin} closed before the whole body arrived (${got})`, method, path, 'closed');
    }
    const [kind, message] = describeNetworkError(e, origin, timeout);
    // through a proxy, a refused connection is the proxy's (the proxy itself dials the service)
    if (kind === 'refused' && isProxied(url, a.proxy)) {
      throw new NetworkError(
        `cannot connect to the proxy for ${origin}: connection refused (check HTTPS_PROXY / HTTP_PROXY)`,
        method,
        path,
        kind,
      );
    }
    throw new NetworkError(message, method, path, kind);
  } finally {
    clearTimeout(timer);
    a.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Whether `e`, thrown while reading a body of which `received` bytes (of `expected`, the
 * Content-Length) came, means the service closed the connection early: undici's
 * UND_ERR_SOCKET (short of the length, or "other side closed" without one), or Node's
 * ECONNRESET "aborted" (node:http, node-http.ts), which fails an unfinished body that way.
 */
function closedEarly(e: unknown, expected: number | undefined, received: number): boolean {
  const code = socketCode(e);
  if (code === 'ECONNRESET' && (e as Error).message === 'aborted') return true;
  return code === 'UND_ERR_SOCKET' && (expected !== undefined ? received < expected : (e as Error).message === 'other side closed');
}

function tooLarge(method: string, path: string, max: number, how: string): ProtocolError {
  return new ProtocolError(
    `the reply to ${method} ${path} is larger than ${max} bytes (${how}); stopped reading. Ask for less (--take, --fields) or raise LIC_MAX_REPLY_BYTES`,
    method,
    path,
  );
}

/** An excerpt of a reply may echo our request (a proxy, an echo server): never let it carry the key. */
function redact(excerpt: string, apiKey: string | undefined): string {
  return apiKey ? excerpt.split(apiKey).join('[redacted]') : excerpt;
}

/**
 * A reply → its JSON body (a 2xx whose envelope is an object without `success: false`).
 * Throws ApiError (non-2xx or `success: false`: status, envelope code or -1, the envelope's
 * message or an excerpt of the body, details, the `Retry-After` of a 429/503 in seconds
 * from `nowMs`) or ProtocolError (a 2xx that is not a JSON object). `apiKey` is cut out of
 * every excerpt. `parse` reads the body text instead of JSON.parse.
 */
export function interpret<T>(
  reply: Reply,
  method: string,
  path: string,
  apiKey: string | undefined,
  nowMs: number,
  parse?: (text: string) => unknown,
): T {
  const { status, body: text } = reply;
  let json: unknown;
  let notJson = false;
  try {
    json = !text.length ? undefined : parse ? parse(text) : JSON.parse(text);
  } catch {
    json = undefined;
    notJson = true;
  }
  const env =
    json && typeof json === 'object' ? (json as { success?: unknown; code?: unknown; message?: unknown; details?: unknown }) : undefined;
  if (status < 200 || status >= 300 || env?.success === false) {
    let message =
      typeof env?.message === 'string' && env.message
        ? redact(env.message, apiKey)
        : `HTTP ${status}${text && !env ? `: ${redact(text, apiKey).slice(0, 200).replace(/\s+/g, ' ')}` : ''}`;
    const after = status === 429 || status === 503 ? parseRetryAfter(reply.retryAfter, nowMs) : undefined;
    if (status === 429 && /authenticat/i.test(message)) {
      // the service's lockout after repeated failed authentications (code 8 with Retry-After): say what it is and when it lifts
      message = `too many failed authentications from this address; retry after ${after ?? 'a while'}${after !== undefined ? ' s' : ''}`;
    } else if (after !== undefined) {
      message = `${message}; retry after ${after} s`;
    } else if (status === 429) {
      message = `${message}; too many requests, retry later`;
    }
    throw new ApiError(
      status,
      typeof env?.code === 'number' ? env.code : -1,
      message,
      method,
      path,
      Array.isArray(env?.details) ? (env.details as never) : undefined,
      after,
    );
  }
  if (!env || Array.isArray(json)) {
    const what = notJson
      ? `a body that is not JSON: ${JSON.stringify(redact(text, apiKey).slice(0, 80))}`
      : text.length
        ? 'JSON that is not an object'
        : 'an empty body';
    throw new ProtocolError(`the service at ${path} replied ${status} with ${what}`, method, path);
  }
  return json as T;
}

/**
 * Reads at most `max` bytes of a reply body and drops the rest (and its connection):
 * `lic doctor`'s probe needs the status, not a whole body.
 */
export async function readPrefix(body: AsyncIterable<Buffer> & Parameters<typeof discard>[0], max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk.subarray(0, max - kept));
    kept += chunks[chunks.length - 1]!.length;
    if (kept >= max) {
      discard(body);
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
