/**
 * Typed errors of the HTTP layer (STYLE §5). None of them ever carries the API key:
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
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** No connection, reset, DNS failure or timeout. */
export class NetworkError extends Error {
  constructor(message: string, readonly method: string, readonly path: string) {
    super(message);
    this.name = 'NetworkError';
  }
}

/** A 2xx reply that is not the JSON we expect (contract §1, CLI tolerance). */
export class ProtocolError extends Error {
  constructor(message: string, readonly method: string, readonly path: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** No API key available locally, so no request was sent. */
export class AuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthError';
  }
}
