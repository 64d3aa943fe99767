/**
 * The dry-run seam: a wrapper around ApiClient that lets reads (GET) through and stops
 * at the first write, throwing DryRunStop with the request it would have sent, redacted.
 * main() prints that plan on stdout and exits 0. The commands run unchanged up to the
 * write, so a dry run validates exactly like the real run.
 */
import { requestHeaders } from './headers.js';
import { buildUrl, type ApiClient, type RequestOptions } from './request.js';
import { maskApiKey } from '../wire.js';

/** A request that was not sent: what `--dry-run` prints (one JSON object). */
export interface DryRunPlan {
  method: string;
  /** the full URL, query string included */
  url: string;
  /** the headers the real request would carry; `x-api-key` shows only its prefix */
  headers: Record<string, string>;
  /** the JSON body that would be sent (passwords and large data redacted), or null */
  body: unknown;
  /** `log purge --dry-run`: how many entries the criteria match now */
  wouldDelete?: number;
}

/** Thrown instead of sending a write in a dry run; carries the plan. Not an error: main() prints it and exits 0. */
export class DryRunStop extends Error {
  constructor(readonly plan: DryRunPlan) {
    super(`dry run: ${plan.method} ${plan.url} not sent`);
    this.name = 'DryRunStop';
  }
}

/**
 * A request body made safe to print: any field named `password` (any case, any depth) →
 * `"[redacted]"`; a string field named `data` (resource data, base64: it may be a signing
 * key's private half, however short) → `"[base64 of N bytes omitted]"` with N the decoded
 * size. Everything else is kept exactly. Returns a copy.
 */
export function redactBody(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactBody);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (/^password$/i.test(k) && v !== undefined && v !== null) out[k] = '[redacted]';
    else if (/^data$/i.test(k) && typeof v === 'string') out[k] = `[base64 of ${Buffer.byteLength(v, 'base64')} bytes omitted]`;
    else out[k] = redactBody(v);
  }
  return out;
}

/**
 * The plan of one request, as ApiClient would send it: URL with query, exactly the headers
 * the real request carries (requestHeaders, the same builder) with x-api-key redacted to
 * its prefix, and the redacted body.
 */
export function describeRequest(client: ApiClient, method: string, path: string, o: RequestOptions = {}): DryRunPlan {
  const headers = requestHeaders(client.opts, o);
  if (headers['x-api-key']) headers['x-api-key'] = maskApiKey(headers['x-api-key']);
  // JSON round trip: what would go over the wire (undefined fields dropped), then redacted
  const body = o.body === undefined ? null : redactBody(JSON.parse(JSON.stringify(o.body)));
  return { method, url: buildUrl(client.opts.baseUrl, path, o.query), headers, body };
}

/**
 * Wraps `client` for a dry run: `request()` passes GETs through (lookups and counts a
 * verb needs still happen) and throws DryRunStop for every other method, sending
 * nothing. Every other member is the client's own.
 */
export function dryRunClient(client: ApiClient): ApiClient {
  const request: ApiClient['request'] = async (method, path, o) => {
    if (method.toUpperCase() === 'GET') return client.request(method, path, o);
    throw new DryRunStop(describeRequest(client, method.toUpperCase(), path, o));
  };
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'request') return request;
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
