import { rootCertificates } from 'node:tls';
import type { Dispatcher } from 'undici';
import { Agent, errors as undiciErrors, loadEnvHttpProxyAgent } from './undici.js';
import { ApiError, AuthError, NetworkError, ProtocolError, RequestAbortedError, type NetworkErrorKind } from './errors.js';
import {
  BACKOFF_BASE_MS,
  DEFAULT_MAX_REPLY_BYTES,
  DEFAULT_RETRIES,
  DEFAULT_TIMEOUT_MS,
  MAX_WAIT_MS,
  RESERVED_HEADERS,
} from './settings.js';

export type Query = Record<string, string | number | boolean | undefined>;

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:8765`; a trailing slash is ignored */
  baseUrl: string;
  /** sent as `x-api-key`; never logged */
  apiKey?: string;
  /** `lic/<version>` */
  userAgent: string;
  /** deadline of one attempt in ms, covering connect, headers and the whole body; default DEFAULT_TIMEOUT_MS */
  timeoutMs?: number;
  /** extra attempts on connection errors, 429 and 502/503/504 (see `request`); default DEFAULT_RETRIES */
  retries?: number;
  /** receives one line per request and reply for `--verbose`; the key is shown redacted */
  trace?: (line: string) => void;
  /** receives one line per retry (`503 from http://h, retry 1/2 in 0.8s`), for stderr unless `-q` */
  notice?: (line: string) => void;
  /** waits between retries; injectable for tests */
  sleep?: (ms: number) => Promise<void>;
  /** 0 ≤ x < 1 for the back-off jitter; default Math.random */
  random?: () => number;
  /** epoch ms, to turn an HTTP-date `Retry-After` into a wait; default Date.now */
  now?: () => number;
  /** reply bodies larger than this many bytes are refused; default DEFAULT_MAX_REPLY_BYTES */
  maxReplyBytes?: number;
  /** extra trusted CA certificates (PEM), added to Node's bundled roots, never replacing them */
  ca?: string[];
  /** proxies as in HTTP_PROXY / HTTPS_PROXY / NO_PROXY (already read from the environment by the caller) */
  proxy?: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** skip the API key (no endpoint needs this today) */
  anonymous?: boolean;
  /** extra request headers (`lic api -H`), lower-case names; they may replace accept/content-type/user-agent, never x-api-key */
  headers?: Record<string, string>;
  /**
   * Gives up on the request when it aborts (a page fetched ahead whose output went away,
   * Ctrl-C): the attempt in flight is cancelled and the call rejects with
   * RequestAbortedError, with no retry and no notice.
   */
  signal?: AbortSignal;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** Methods whose repetition is harmless (RFC 9110 §9.2.2 idempotent, and our PUTs are full field sets). */
const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'PUT']);

/** Builds `baseUrl + path + ?query`, dropping undefined values (octokit/request.js style: pure). */
export function buildUrl(baseUrl: string, path: string, query?: Query): string {
  const u = new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
  return u.toString();
}

/**
 * `Retry-After` (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) → seconds from `nowMs`,
 * never negative; undefined when absent or unreadable.
 */
function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (!Number.isFinite(at) || !/[A-Za-z]/.test(v)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** The outcome of one attempt that got a reply. */
interface Reply {
  status: number;
  body: string;
  retryAfter?: string;
}

/**
 * Thin HTTP layer (STYLE §4): JSON in and out, envelope checks, typed errors, retries.
 *
 * Retries are our own loop, not undici's RetryAgent/RetryHandler: that handler's timeouts
 * are per dispatch, so a deadline covering one whole attempt (connect + headers + body)
 * would abort the whole chain instead of one attempt; on the last retryable status it
 * throws RequestRetryError and the service's error body (its message) is lost; it resumes
 * broken GET bodies with Range requests the API does not promise; and it sleeps with its
 * own setTimeout, so tests can't inject the wait. The rule is simple enough to keep here.
 */
export class ApiClient {
  /** our own connection pool (or proxy agent), so close() can end its keep-alive sockets at once; made on the first request */
  private agent?: Promise<Dispatcher>;
  /** how many times close() was called: a request it cut off is abandoned, not retried (on a new pool) */
  private closings = 0;

  constructor(readonly opts: ClientOptions) {}

  /** The pool every request of this client goes through: one keep-alive connection per origin for a run's sequential requests. */
  private dispatcher(): Promise<Dispatcher> {
    this.agent ??= (async () => {
      const ca = this.opts.ca?.length ? [...rootCertificates, ...this.opts.ca] : undefined;
      const connect = { timeout: this.timeoutMs, ...(ca ? { ca } : {}) };
      const p = this.opts.proxy;
      if (!(p && (p.httpProxy || p.httpsProxy))) return new Agent({ connect });
      const EnvHttpProxyAgent = await loadEnvHttpProxyAgent();
      // '' (not undefined) so undici does not fall back to process.env: the Context's env is the truth.
      // proxyTunnel false: an http:// target goes as an absolute-form request (`GET http://host/path`),
      // as curl sends it, which every forward proxy serves (Squid refuses CONNECT to ports other
      // than 443); an https:// target still goes through a CONNECT tunnel
      return new EnvHttpProxyAgent({
        httpProxy: p.httpProxy ?? '',
        httpsProxy: p.httpsProxy ?? '',
        noProxy: p.noProxy ?? '',
        proxyTunnel: false,
        connect,
        ...(ca ? { requestTls: { ca } } : {}),
      });
    })();
    return this.agent;
  }

  private get timeoutMs(): number {
    return this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /**
   * Closes the pooled connections. A command calls it when done: an idle keep-alive
   * socket would otherwise hold the process open for a while after the output is written.
   */
  async close(): Promise<void> {
    // destroy, not close: a request still in flight (a Ctrl-C mid-page) is abandoned anyway
    const agent = this.agent;
    this.agent = undefined;
    this.closings++;
    if (agent) await (await agent).destroy();
  }

  /**
   * Sends one API call and returns the parsed JSON body on success.
   * Retries (up to `retries`, waiting the capped back-off or `Retry-After`, announced through
   * `notice`) on connection errors and 429/502/503/504: GET and PUT always, POST and DELETE
   * only when the connection was refused (the request provably never reached the service).
   * A `Retry-After` above MAX_WAIT_MS is not waited for: the reply fails at once, saying when.
   * Wall time is bounded by (retries+1) × timeout + retries × MAX_WAIT_MS.
   * Throws ApiError (non-2xx or `success:false`), NetworkError, ProtocolError (2xx not JSON,
   * reply over the size cap), AuthError (no key configured), RequestAbortedError (`o.signal`
   * aborted, or close() called while the request was in flight: no retry, no notice).
   */
  async request<T = Record<string, unknown>>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    if (!o.anonymous && !this.opts.apiKey) {
      throw new AuthError('no API key: run `lic profile add`, or set LIC_API_KEY');
    }
    const url = buildUrl(this.opts.baseUrl, path, o.query);
    const retries = this.opts.retries ?? DEFAULT_RETRIES;
    const closings = this.closings;
    for (let attempt = 0; ; attempt++) {
      if (o.signal?.aborted) throw new RequestAbortedError(method, path);
      let outcome: Reply | NetworkError;
      try {
        outcome = await this.once(method, url, path, o);
      } catch (e) {
        if (!(e instanceof NetworkError)) throw e;
        outcome = e;
      }
      // cut off by our own close() (the command is ending): give up quietly
      if (outcome instanceof NetworkError && this.closings !== closings) throw new RequestAbortedError(method, path);
      if (attempt < retries && this.mayRetry(method, outcome)) {
        const ms = this.waitFor(attempt, outcome instanceof NetworkError ? undefined : outcome.retryAfter);
        if (ms !== undefined) {
          const origin = new URL(url).origin;
          const what = outcome instanceof NetworkError ? `${NETWORK_NOTICE[outcome.kind]} ${origin}` : `${outcome.status} from ${origin}`;
          this.opts.notice?.(`${what}, retry ${attempt + 1}/${retries} in ${(ms / 1000).toFixed(1)}s`);
          this.opts.trace?.(`* retrying in ${ms} ms`);
          await (this.opts.sleep ?? ((t) => new Promise((r) => setTimeout(r, t))))(ms);
          if (this.closings !== closings) throw new RequestAbortedError(method, path);
          continue;
        }
      }
      if (outcome instanceof NetworkError) throw outcome;
      return this.interpret<T>(outcome, method, path);
    }
  }

  /** The retry rule (see `request`); a 401, a TLS failure and a refused tunnel are never retried. */
  private mayRetry(method: string, outcome: Reply | NetworkError): boolean {
    if (outcome instanceof NetworkError) {
      if (outcome.kind === 'tls' || outcome.kind === 'proxy') return false;
      return REPEATABLE_METHODS.has(method) || outcome.kind === 'refused';
    }
    return RETRYABLE_STATUS.has(outcome.status) && REPEATABLE_METHODS.has(method);
  }

  /** ms to wait before retry `attempt + 1`; undefined when the service asked for longer than MAX_WAIT_MS. */
  private waitFor(attempt: number, retryAfter?: string): number | undefined {
    const asked = parseRetryAfter(retryAfter, (this.opts.now ?? Date.now)());
    if (asked !== undefined) return asked * 1000 > MAX_WAIT_MS ? undefined : asked * 1000;
    const step = Math.min(MAX_WAIT_MS, BACKOFF_BASE_MS * 2 ** attempt);
    return Math.round(step * (0.5 + 0.5 * (this.opts.random ?? Math.random)()));
  }

  private async once(method: string, url: string, path: string, o: RequestOptions): Promise<Reply> {
    const headers: Record<string, string> = { 'user-agent': this.opts.userAgent, accept: 'application/json' };
    let payload: string | undefined;
    if (o.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(o.body);
    }
    for (const [k, v] of Object.entries(o.headers ?? {})) if (!RESERVED_HEADERS.has(k.toLowerCase())) headers[k.toLowerCase()] = v;
    if (!o.anonymous && this.opts.apiKey) headers['x-api-key'] = this.opts.apiKey;
    const timeout = this.timeoutMs;
    const max = this.opts.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
    const started = Date.now();
    this.opts.trace?.(
      `> ${method} ${url}${headers['x-api-key'] ? ' (x-api-key: [redacted])' : ''}${payload ? ` (${payload.length} bytes)` : ''}`,
    );
    // one deadline for the whole attempt: undici's headersTimeout/bodyTimeout only bound idle gaps
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeout);
    const onAbort = () => deadline.abort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    let expected: number | undefined;
    let received = -1;
    try {
      const res = await (
        await this.dispatcher()
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
        throw this.tooLarge(method, path, max, `announced ${expected} bytes`);
      }
      const chunks: Buffer[] = [];
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        received += chunk.length;
        // stop at limit+1: the rest is never read, and destroying the body drops the connection
        if (received > max) {
          discard(res.body);
          throw this.tooLarge(method, path, max, 'kept sending');
        }
        chunks.push(chunk);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      this.opts.trace?.(`< ${res.statusCode} ${path} (${Date.now() - started} ms, ${received} bytes)`);
      const ra = res.headers['retry-after'];
      return { status: res.statusCode, body: text, retryAfter: Array.isArray(ra) ? ra[0] : ra };
    } catch (e) {
      if (e instanceof ProtocolError) throw e;
      if (o.signal?.aborted) throw new RequestAbortedError(method, path);
      const origin = new URL(url).origin;
      if (deadline.signal.aborted) {
        throw new NetworkError(`timed out after ${timeout} ms waiting for ${origin} (--timeout)`, method, path, 'timeout');
      }
      // the headers came, then the service closed (FIN, not a reset) before the body was complete
      if (
        received >= 0 &&
        socketCode(e) === 'UND_ERR_SOCKET' &&
        (expected !== undefined ? received < expected : (e as Error).message === 'other side closed')
      ) {
        const got = expected !== undefined ? `${received} of ${expected} bytes` : `after ${received} bytes`;
        throw new NetworkError(`connection to ${origin} closed before the whole body arrived (${got})`, method, path, 'closed');
      }
      const [kind, message] = describeNetworkError(e, origin, timeout);
      // through a proxy, a refused connection is the proxy's (the proxy itself dials the service)
      if (kind === 'refused' && this.proxied(url)) {
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
      o.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Whether `url` goes through a proxy: HTTPS_PROXY/HTTP_PROXY as undici picks them, minus NO_PROXY (host or domain suffix, `*`). */
  private proxied(url: string): boolean {
    const p = this.opts.proxy;
    const u = new URL(url);
    if (!(u.protocol === 'https:' ? p?.httpsProxy || p?.httpProxy : p?.httpProxy)) return false;
    const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    return !(p?.noProxy ?? '')
      .split(/[,\s]+/)
      .filter(Boolean)
      .some((entry) => {
        if (entry === '*') return true;
        const e = entry
          .toLowerCase()
          .replace(/^\*?\./, '')
          .replace(/:\d+$/, '');
        return host === e || host.endsWith(`.${e}`);
      });
  }

  private tooLarge(method: string, path: string, max: number, how: string): ProtocolError {
    return new ProtocolError(
      `the reply to ${method} ${path} is larger than ${max} bytes (${how}); stopped reading. Ask for less (--take, --fields) or raise LIC_MAX_REPLY_BYTES`,
      method,
      path,
    );
  }

  private interpret<T>(reply: Reply, method: string, path: string): T {
    const { status, body: text } = reply;
    let json: unknown;
    let notJson = false;
    try {
      json = text.length ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
      notJson = true;
    }
    const env =
      json && typeof json === 'object' ? (json as { success?: unknown; code?: unknown; message?: unknown; details?: unknown }) : undefined;
    if (status < 200 || status >= 300 || env?.success === false) {
      let message =
        typeof env?.message === 'string' && env.message
          ? this.redact(env.message)
          : `HTTP ${status}${text && !env ? `: ${this.redact(text).slice(0, 200).replace(/\s+/g, ' ')}` : ''}`;
      const after = status === 429 || status === 503 ? parseRetryAfter(reply.retryAfter, (this.opts.now ?? Date.now)()) : undefined;
      if (status === 429 && /authenticat/i.test(message)) {
        // the lockout of issue 8 (code 8 with Retry-After): say what it is and when it lifts
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
        ? `a body that is not JSON: ${JSON.stringify(this.redact(text).slice(0, 80))}`
        : text.length
          ? 'JSON that is not an object'
          : 'an empty body';
      throw new ProtocolError(`the service at ${path} replied ${status} with ${what}`, method, path);
    }
    return json as T;
  }

  /** The most of a reply body `probe()` keeps: 64 KiB. */
  private static readonly PROBE_BODY_BYTES = 64 * 1024;

  /**
   * One GET with no retries and no envelope checks, for `lic doctor`: the raw status,
   * the reply headers (lower-case names) and the body text. Sends the key when there is
   * one (none: anonymous). Throws NetworkError (no connection, TLS failure, timeout).
   */
  async probe(path: string, query?: Query): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const url = buildUrl(this.opts.baseUrl, path, query);
    const headers: Record<string, string> = { 'user-agent': this.opts.userAgent, accept: 'application/json' };
    if (this.opts.apiKey) headers['x-api-key'] = this.opts.apiKey;
    const timeout = this.timeoutMs;
    this.opts.trace?.(`> GET ${url}${headers['x-api-key'] ? ' (x-api-key: [redacted])' : ''}`);
    try {
      const res = await (
        await this.dispatcher()
      ).request({
        ...originAndPath(url),
        method: 'GET',
        headers,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      // a probe needs the status, not the body: keep at most PROBE_BODY_BYTES, drop the rest
      const chunks: Buffer[] = [];
      let kept = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        chunks.push(chunk.subarray(0, ApiClient.PROBE_BODY_BYTES - kept));
        kept += chunks[chunks.length - 1]!.length;
        if (kept >= ApiClient.PROBE_BODY_BYTES) {
          discard(res.body);
          break;
        }
      }
      const body = Buffer.concat(chunks).toString('utf8');
      this.opts.trace?.(`< ${res.statusCode} ${path} (${body.length} bytes)`);
      const flat: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      return { status: res.statusCode, headers: flat, body };
    } catch (e) {
      const [kind, message] = describeNetworkError(e, new URL(url).origin, timeout);
      throw new NetworkError(message, 'GET', path, kind);
    }
  }

  /** An excerpt of a reply may echo our request (a proxy, an echo server): never let it carry the key. */
  private redact(excerpt: string): string {
    const key = this.opts.apiKey;
    return key ? excerpt.split(key).join('[redacted]') : excerpt;
  }
}

/** How each network failure is named in a retry notice (`… <origin>, retry 1/2 in 0.5s`). */
const NETWORK_NOTICE: Record<NetworkErrorKind, string> = {
  refused: 'connection refused by',
  dns: 'cannot resolve',
  timeout: 'timed out waiting for',
  proxy: 'the proxy refused a tunnel to',
  reset: 'connection reset by',
  closed: 'connection closed early by',
  tls: 'TLS failure with',
  other: 'network error with',
};

/** OpenSSL verification codes meaning "we don't trust this certificate". */
const UNTRUSTED_CERT = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
]);

function socketCode(e: unknown): string | undefined {
  return (e as { code?: string }).code ?? (e as { cause?: { code?: string } }).cause?.code;
}

function describeNetworkError(e: unknown, origin: string, timeoutMs: number): [NetworkErrorKind, string] {
  const code = socketCode(e);
  if (e instanceof undiciErrors.HeadersTimeoutError || e instanceof undiciErrors.BodyTimeoutError || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return ['timeout', `timed out after ${timeoutMs} ms waiting for ${origin} (--timeout)`];
  }
  if (code && UNTRUSTED_CERT.has(code)) {
    return [
      'tls',
      `the certificate of ${origin} is not trusted (${code}): pass --ca-file PATH with the CA that signed it, or set NODE_EXTRA_CA_CERTS`,
    ];
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return ['tls', `the certificate of ${origin} is not valid for it (${code})`];
  }
  // undici's ProxyAgent when the proxy answers CONNECT with anything but 200
  const tunnel = /^Proxy response \((\d+)\) !== 200 when HTTP Tunneling$/.exec((e as Error)?.message ?? '');
  if (tunnel) {
    return [
      'proxy',
      `the proxy refused to open a tunnel to ${origin} (CONNECT answered HTTP ${tunnel[1]}): check HTTPS_PROXY, or name the host in NO_PROXY`,
    ];
  }
  switch (code) {
    case 'ECONNREFUSED':
      return ['refused', `cannot connect to ${origin}: connection refused (is the service running? try \`lic serve\`)`];
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return ['dns', `cannot resolve the host of ${origin}`];
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return ['reset', `connection to ${origin} was reset`];
    default:
      return ['other', `request to ${origin} failed: ${(e as Error).message ?? String(e)}`];
  }
}

/**
 * Stops reading a reply body and drops its connection. undici's body emits an abort
 * error when destroyed with no reader attached; nobody wants that error (we stopped on
 * purpose), and unheard it would be an uncaught exception, so it is swallowed.
 */
function discard(body: { on(event: 'error', f: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** `url` split as undici's dispatcher.request() takes it (what undici's top-level request() does with a URL). */
function originAndPath(url: string): { origin: string; path: string } {
  const u = new URL(url);
  return { origin: u.origin, path: u.pathname + u.search };
}
