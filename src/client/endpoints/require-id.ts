/** The id an insert reply must carry (contract §2: ids are positive int32), checked for every caller. */
import { INT32_MAX } from '../../wire.js';
import { ProtocolError } from '../errors.js';

/**
 * Checks that `reply[field]` is an id: a positive int32, or its canonical decimal string
 * ("2", as some services send) which is converted to a number in place. Returns the reply.
 * Throws ProtocolError (exit 1) for a missing or non-integer id (`{"success":true}`,
 * `"assemblyId":"nine"`, 2.5, "02"), so no empty or garbage id is printed with exit 0.
 */
export function requireId<T extends object>(reply: T, field: string, method: string, path: string): T {
  const raw = (reply as Record<string, unknown>)[field];
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > INT32_MAX) {
    const got = raw === undefined ? 'no' : `an invalid (${JSON.stringify(raw).slice(0, 40)})`;
    throw new ProtocolError(
      `the service replied to ${method} ${path} with ${got} "${field}": expected the new record's id, an integer 1..${INT32_MAX}`,
      method,
      path,
    );
  }
  (reply as Record<string, unknown>)[field] = n;
  return reply;
}
