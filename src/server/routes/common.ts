import type { FastifyRequest } from 'fastify';
import { parseRfc3339 } from '../../time.js';
import type { Role } from '../../wire.js';
import type { Caller } from '../context.js';
import { badRequest } from '../errors.js';

export const OK = { success: true, code: 0, message: 'OK' } as const;

/** JSON schema of an int32 id, 1..2147483647 (contract §2). */
export { idSchema } from '../../schema/json-schema.js';

/** The authenticated caller; routes with a role list always have one. */
export function callerOf(req: FastifyRequest): Caller {
  if (!req.caller) throw new Error('route reached without authentication');
  return req.caller;
}

export const ADMIN_ONLY: readonly Role[] = ['Administrator'];

/**
 * Parses a `startDate`/`endDate`-style value: RFC 3339 with zone, or a plain date
 * `YYYY-MM-DD` (midnight UTC) (contract §2). Returns ms since epoch; 400 naming `field` otherwise.
 */
export function parseTimestamp(value: string, field: string): number {
  const ms = parseRfc3339(value);
  if (ms === undefined && parseRfc3339(value, { anyYear: true }) !== undefined) {
    throw badRequest(`${field} must be a time in years 0001-9999 once its offset is applied (UTC), got "${value}"`, field);
  }
  if (ms === undefined) {
    throw badRequest(`${field} must be an RFC 3339 timestamp (2025-01-18T14:04:02Z) or a date (2025-01-18), got "${value}"`, field);
  }
  return ms;
}
