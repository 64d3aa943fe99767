/**
 * The one place that decides which headers a request carries: the real request
 * (`request.ts`), `lic doctor`'s probe and a dry run's plan (`dry-run.ts`) all build them
 * here, so `--dry-run` prints exactly what would be sent. Loads no undici: `lic api -H`
 * checks names against RESERVED_HEADERS without paying for the HTTP stack.
 */

/**
 * Headers a caller may not set (`lic api -H` refuses them with exit 2; `requestHeaders`
 * drops them from the caller's headers), lower-case names: x-api-key (the key comes from the profile or
 * LIC_API_KEY, never from argv, where it would land in shell history and `ps`); host (the
 * base URL's); content-length and transfer-encoding (the HTTP stack frames the body: a
 * wrong one desynchronises the connection); connection (the pool owns keep-alive).
 */
const RESERVED_HEADERS: ReadonlySet<string> = new Set(['x-api-key', 'host', 'content-length', 'transfer-encoding', 'connection']);

/**
 * Why a caller may not set header `name` (any case), as the tail of `-H <name>: …`; undefined
 * when it may.
 */
export function reservedHeaderReason(name: string): string | undefined {
  const n = name.toLowerCase();
  if (!RESERVED_HEADERS.has(n)) return undefined;
  return `this header is set by lic itself and can't be replaced${n === 'x-api-key' ? ' (the API key comes from the profile or LIC_API_KEY, never from the command line)' : ''}`;
}

/**
 * The headers of one request, lower-case names: `user-agent` (the client's, `lic/<version>`),
 * `accept: application/json`, `content-type: application/json` when `o.body` is given, then
 * the caller's `o.headers` (`lic api -H`: names lower-cased; they may replace those three;
 * RESERVED_HEADERS are dropped), then `x-api-key` when the client has a key. undici adds host, connection and content-length itself.
 */
export function requestHeaders(
  client: { userAgent: string; apiKey?: string },
  o: { body?: unknown; headers?: Record<string, string> },
): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': client.userAgent, accept: 'application/json' };
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  for (const [k, v] of Object.entries(o.headers ?? {})) if (!RESERVED_HEADERS.has(k.toLowerCase())) headers[k.toLowerCase()] = v;
  if (client.apiKey) headers['x-api-key'] = client.apiKey;
  return headers;
}
