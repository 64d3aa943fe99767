/**
 * Typed errors of the HTTP layer (docs/architecture.md). None of them ever carries the API key:
 * they keep only method, path (no query values that could hold secrets are added by us)
 * and what the service said.
 */

/** The service answered with a non-2xx status or `success: false` (contract §1). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** envelope `code` (gRPC status number), or -1 when the body had none */
    readonly code: number,
    message: string,
    readonly method: string,
    readonly path: string,
    readonly details?: { field: string; reason: string }[],
    /** seconds the service asked us to wait (`Retry-After` of a 429/503), when it sent one */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * What kind of network failure: `refused` (nothing reached the service: safe to retry any
 * method), `dns`, `timeout`, `reset`, `closed` (the body ended before its Content-Length),
 * `tls` (certificate not trusted: not retried), `proxy` (the forward proxy refused to open a
 * CONNECT tunnel: a setting to fix, so never retried), `other`.
 */
export type NetworkErrorKind = 'refused' | 'dns' | 'timeout' | 'reset' | 'closed' | 'tls' | 'proxy' | 'other';

/** No connection, reset, DNS failure, TLS failure or timeout. */
export class NetworkError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly path: string,
    readonly kind: NetworkErrorKind = 'other',
  ) {
    super(message);
    this.name = 'NetworkError';
  }
}

/** A 2xx reply that is not the JSON we expect (contract §1, CLI tolerance), or a reply over the size cap. */
export class ProtocolError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/**
 * The caller gave up on a request (its RequestOptions `signal` aborted, or the client was
 * closed with the request in flight): never retried, never announced. Nothing prints it;
 * whoever aborted the request is already ending the command another way.
 */
export class RequestAbortedError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
  ) {
    super(`${method} ${path} was abandoned`);
    this.name = 'RequestAbortedError';
  }
}

/** No API key available locally, so no request was sent. */
export class AuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthError';
  }
}
