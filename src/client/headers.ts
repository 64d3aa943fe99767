/** Request-header rules shared by the client and `lic api -H`, without loading undici. */

/** Headers the client owns; `lic api -H` may not set them, and the client ignores them in RequestOptions.headers. */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set(['x-api-key', 'host', 'content-length', 'transfer-encoding', 'connection']);
