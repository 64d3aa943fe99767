import { Agent, request as undiciRequest, errors as undiciErrors } from 'undici';
import { ApiError, AuthError, NetworkError, ProtocolError } from './errors.js';

export type Query = Record<string, string | number | boolean | undefined>;

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:8765`; a trailing slash is ignored */
  baseUrl: string;
  /** sent as `x-api-key`; never logged */
  apiKey?: string;
  /** `lic/<version>` */
  userAgent: string;
  /** per request, headers and body each; default 30 000 ms */
  timeoutMs?: number;
  /** extra attempts for GET on network errors, 429 and 502/503/504; default 2 */
  retries?: number;
  /** receives one line per request and reply for `--verbose`; the key is shown redacted */
  trace?: (line: string) => void;
  /** waits between retries; injectable for tests */
  sleep?: (ms: number) => Promise<void>;
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** skip the API key (no endpoint needs this today) */
  anonymous?: boolean;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/** Builds `baseUrl + path + ?query`, dropping undefined values (octokit/request.js style: pure). */
export function buildUrl(baseUrl: string, path: string, query?: Query): string {
  const u = new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
  return u.toString();
}

/** Thin HTTP layer (STYLE §4): JSON in and out, envelope checks, typed errors, retries. */
export class ApiClient {
  /** our own connection pool, so close() can end its keep-alive sockets at once */
  private readonly agent = new Agent();

  constructor(readonly opts: ClientOptions) {}

  /**
   * Closes the pooled connections. A command calls it when done: an idle keep-alive
   * socket would otherwise hold the process open for a while after the output is written.
   */
  async close(): Promise<void> {
    // destroy, not close: a request still in flight (a Ctrl-C mid-page) is abandoned anyway
    await this.agent.destroy();
  }

  /**
   * Sends one API call and returns the parsed JSON body on success.
   * Throws ApiError (non-2xx or `success:false`), NetworkError, ProtocolError (2xx not JSON),
   * AuthError (no key configured).
   */
  async request<T = Record<string, unknown>>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    if (!o.anonymous && !this.opts.apiKey) {
      throw new AuthError('no API key: run `lic profile add`, or set LIC_API_KEY');
    }
    const url = buildUrl(this.opts.baseUrl, path, o.query);
    const retries = method === 'GET' ? (this.opts.retries ?? 2) : 0;
    for (let attempt = 0; ; attempt++) {
      try {
        const { status, body, retryAfter } = await this.once(method, url, path, o);
        if (RETRYABLE_STATUS.has(status) && attempt < retries) {
          await this.wait(attempt, retryAfter);
          continue;
        }
        return this.interpret<T>(status, body, method, path);
      } catch (e) {
        if (e instanceof NetworkError && attempt < retries) {
          await this.wait(attempt);
          continue;
        }
        throw e;
      }
    }
  }

  private async wait(attempt: number, retryAfter?: string): Promise<void> {
    const fromHeader = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : undefined;
    const ms = Math.min(fromHeader ?? 200 * 2 ** attempt, 5000);
    this.opts.trace?.(`* retrying in ${ms} ms`);
    await (this.opts.sleep ?? ((t) => new Promise((r) => setTimeout(r, t))))(ms);
  }

  private async once(method: string, url: string, path: string, o: RequestOptions) {
    const headers: Record<string, string> = { 'user-agent': this.opts.userAgent, accept: 'application/json' };
    if (!o.anonymous && this.opts.apiKey) headers['x-api-key'] = this.opts.apiKey;
    let payload: string | undefined;
    if (o.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(o.body);
    }
    const timeout = this.opts.timeoutMs ?? 30_000;
    const started = Date.now();
    this.opts.trace?.(`> ${method} ${url}${headers['x-api-key'] ? ' (x-api-key: [redacted])' : ''}${payload ? ` (${payload.length} bytes)` : ''}`);
    try {
      const res = await undiciRequest(url, { dispatcher: this.agent, method: method as 'GET', headers, body: payload, headersTimeout: timeout, bodyTimeout: timeout });
      const text = await res.body.text();
      this.opts.trace?.(`< ${res.statusCode} ${path} (${Date.now() - started} ms, ${text.length} bytes)`);
      const ra = res.headers['retry-after'];
      return { status: res.statusCode, body: text, retryAfter: Array.isArray(ra) ? ra[0] : ra };
    } catch (e) {
      throw new NetworkError(describeNetworkError(e, url, timeout), method, path);
    }
  }

  private interpret<T>(status: number, text: string, method: string, path: string): T {
    let json: unknown;
    let notJson = false;
    try {
      json = text.length ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
      notJson = true;
    }
    const env = json && typeof json === 'object' ? (json as { success?: unknown; code?: unknown; message?: unknown; details?: unknown }) : undefined;
    if (status < 200 || status >= 300 || env?.success === false) {
      const message = typeof env?.message === 'string' && env.message
        ? this.redact(env.message)
        : `HTTP ${status}${text && !env ? `: ${this.redact(text).slice(0, 200).replace(/\s+/g, ' ')}` : ''}`;
      throw new ApiError(status, typeof env?.code === 'number' ? env.code : -1, message, method, path, Array.isArray(env?.details) ? (env.details as never) : undefined);
    }
    if (!env || Array.isArray(json)) {
      const what = notJson
        ? `a body that is not JSON: ${JSON.stringify(this.redact(text).slice(0, 80))}`
        : text.length ? 'JSON that is not an object' : 'an empty body';
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
    const timeout = this.opts.timeoutMs ?? 30_000;
    this.opts.trace?.(`> GET ${url}${headers['x-api-key'] ? ' (x-api-key: [redacted])' : ''}`);
    try {
      const res = await undiciRequest(url, { dispatcher: this.agent, method: 'GET', headers, headersTimeout: timeout, bodyTimeout: timeout });
      // a probe needs the status, not the body: keep at most PROBE_BODY_BYTES, drop the rest
      const chunks: Buffer[] = [];
      let kept = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        chunks.push(chunk.subarray(0, ApiClient.PROBE_BODY_BYTES - kept));
        kept += chunks[chunks.length - 1]!.length;
        if (kept >= ApiClient.PROBE_BODY_BYTES) {
          res.body.destroy();
          break;
        }
      }
      const body = Buffer.concat(chunks).toString('utf8');
      this.opts.trace?.(`< ${res.statusCode} ${path} (${body.length} bytes)`);
      const flat: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      return { status: res.statusCode, headers: flat, body };
    } catch (e) {
      throw new NetworkError(describeNetworkError(e, url, timeout), 'GET', path);
    }
  }

  /** An excerpt of a reply may echo our request (a proxy, an echo server): never let it carry the key. */
  private redact(excerpt: string): string {
    const key = this.opts.apiKey;
    return key ? excerpt.split(key).join('[redacted]') : excerpt;
  }
}

function describeNetworkError(e: unknown, url: string, timeoutMs: number): string {
  const origin = new URL(url).origin;
  const code = (e as { code?: string }).code ?? (e as { cause?: { code?: string } }).cause?.code;
  if (e instanceof undiciErrors.HeadersTimeoutError || e instanceof undiciErrors.BodyTimeoutError || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `timed out after ${timeoutMs} ms waiting for ${origin}`;
  }
  switch (code) {
    case 'ECONNREFUSED':
      return `cannot connect to ${origin}: connection refused (is the service running? try \`lic serve\`)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve the host of ${origin}`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `connection to ${origin} was reset`;
    default:
      return `request to ${origin} failed: ${(e as Error).message ?? String(e)}`;
  }
}
