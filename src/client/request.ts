/**
 * The client's entry point: `ApiClient.request()` sends one API call and returns its JSON
 * body or throws a typed error. The parts are apart, each in its own module: the headers
 * (headers.ts), the pool and proxy (transport.ts), the retry rules and back-off (retry.ts),
 * one attempt with its deadline and size cap and the envelope → typed error (reply.ts), and
 * the names of network failures (network-errors.ts).
 */
import { AuthError, NetworkError } from './errors.js';
import { requestHeaders } from './headers.js';
import { describeNetworkError } from './network-errors.js';
import { interpret, readPrefix, sendOnce } from './reply.js';
import { withRetries } from './retry.js';
import { DEFAULT_MAX_REPLY_BYTES, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS } from './settings.js';
import { createDispatcher, originAndPath, type ProxySettings, type RequestDispatcher } from './transport.js';
import { jsonBody } from './json-body.js';

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
  proxy?: ProxySettings;
  /** called once before undici loads (a proxy, `ca`, https://; transport.ts): the CLI sets V8's --liftoff-only there */
  beforeUndici?: () => void;
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** extra request headers (`lic api -H`), lower-case names; they may replace accept/content-type/user-agent, never x-api-key */
  headers?: Record<string, string>;
  /**
   * Gives up on the request when it aborts (a page fetched ahead whose output went away,
   * Ctrl-C): the attempt in flight is cancelled and the call rejects with
   * RequestAbortedError, with no retry and no notice.
   */
  signal?: AbortSignal;
  /** extra attempts for this request, instead of the client's `retries` (`log tail -f` while the service is away: its own backoff decides) */
  retries?: number;
  /** retry without the `notice` line per retry (`log tail -f` says once that the service is lost, never per retry) */
  quietRetries?: boolean;
  /**
   * Reads the reply's body text instead of `JSON.parse` (same contract: the value, or a
   * SyntaxError for text that is not JSON). A list's page scanner (src/cli/list/page-text.ts)
   * keeps the records as text this way.
   */
  parse?: (text: string) => unknown;
}

/** Builds `baseUrl + path + ?query`, dropping undefined values (octokit/request.js style: pure). */
export function buildUrl(baseUrl: string, path: string, query?: Query): string {
  const u = new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
  return u.toString();
}

/** Thin HTTP layer: JSON in and out, envelope checks, typed errors, retries. */
export class ApiClient {
  /** our own connection pool (or proxy agent), so close() can end its keep-alive sockets at once; made on the first request */
  private agent?: Promise<RequestDispatcher>;
  /** how many times close() was called: a request it cut off is abandoned, not retried (on a new pool) */
  private closings = 0;

  constructor(readonly opts: ClientOptions) {}

  /** The pool every request of this client goes through: one keep-alive connection per origin for a run's sequential requests. */
  private dispatcher(): Promise<RequestDispatcher> {
    this.agent ??= createDispatcher(this.opts.baseUrl, this.timeoutMs, this.opts.ca, this.opts.proxy, this.opts.beforeUndici);
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
    if (!this.opts.apiKey) {
      throw new AuthError('no API key: run `lic profile add`, or set LIC_API_KEY');
    }
    const url = buildUrl(this.opts.baseUrl, path, o.query);
    const closings = this.closings;
    const attempt = {
      dispatcher: () => this.dispatcher(),
      method,
      url,
      path,
      headers: requestHeaders(this.opts, o),
      payload: o.body !== undefined ? jsonBody(o.body) : undefined,
      timeoutMs: this.timeoutMs,
      maxReplyBytes: this.opts.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES,
      signal: o.signal,
      trace: this.opts.trace,
      proxy: this.opts.proxy,
    };
    const reply = await withRetries(() => sendOnce(attempt), {
      method,
      url,
      path,
      policy: {
        ...this.opts,
        retries: o.retries ?? this.opts.retries ?? DEFAULT_RETRIES,
        notice: o.quietRetries ? undefined : this.opts.notice,
      },
      cutOff: () => this.closings !== closings,
      signal: o.signal,
    });
    return interpret<T>(reply, method, path, this.opts.apiKey, (this.opts.now ?? Date.now)(), o.parse);
  }

  /**
   * This client (its pool, its settings) with `parse` reading the body of every request sent
   * through the returned one, unless a request names its own: for an endpoint function that
   * takes a client but no request options (a list's pages).
   */
  withBodyParser(parse: NonNullable<RequestOptions['parse']>): ApiClient {
    const request = this.request.bind(this);
    return Object.assign(Object.create(this) as ApiClient, {
      request: <T>(method: string, path: string, o: RequestOptions = {}) => request<T>(method, path, { parse, ...o }),
    });
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
    const headers = requestHeaders(this.opts, {});
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
      const body = await readPrefix(res.body, ApiClient.PROBE_BODY_BYTES);
      this.opts.trace?.(`< ${res.statusCode} ${path} (${body.length} bytes)`);
      const flat: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      return { status: res.statusCode, headers: flat, body };
    } catch (e) {
      const [kind, message] = describeNetworkError(e, new URL(url).origin, timeout);
      throw new NetworkError(message, 'GET', path, kind);
    }
  }
}
