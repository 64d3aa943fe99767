import { Code } from '../wire.js';

/**
 * An error a route handler throws for the service to answer with the envelope of contract §1:
 * HTTP `status`, gRPC `code`, one-sentence `message` naming the field or value at fault.
 * The client reads that envelope back as its own `ApiError` (src/client/errors.ts), which adds
 * the request's method and path; the layers share no error class (docs/architecture.md).
 */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly details?: { field: string; reason: string }[],
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

/** 400 INVALID_ARGUMENT naming the field. */
export const badRequest = (message: string, field?: string) =>
  new ServiceError(400, Code.INVALID_ARGUMENT, message, field ? [{ field, reason: message }] : undefined);
/** 401 UNAUTHENTICATED. */
export const unauthenticated = (message: string) => new ServiceError(401, Code.UNAUTHENTICATED, message);
/** 403 PERMISSION_DENIED. */
export const forbidden = (message: string) => new ServiceError(403, Code.PERMISSION_DENIED, message);
/** 404 NOT_FOUND. */
export const notFound = (message: string) => new ServiceError(404, Code.NOT_FOUND, message);
/** 409 ALREADY_EXISTS, naming the field (or record) already taken in its details when given (contract §1). */
export const conflict = (message: string, field?: string) =>
  new ServiceError(409, Code.ALREADY_EXISTS, message, field ? [{ field, reason: message }] : undefined);
/**
 * 429 RESOURCE_EXHAUSTED for an address blocked by the failed-authentication guard
 * (contract §1 "too many requests"; the caller sets `Retry-After` to `seconds`).
 */
export const tooManyFailedAuthentications = (seconds: number) =>
  new ServiceError(429, Code.RESOURCE_EXHAUSTED, `too many failed authentications from this address; retry after ${seconds} s`);
