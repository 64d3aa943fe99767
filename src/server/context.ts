import type { Db } from './db.js';
import type { Role } from '../wire.js';

/** Who is calling: resolved from the `x-api-key` header by auth.ts. */
export interface Caller {
  keyId: number;
  ownerId: string;
  role: Role;
  permissions: number;
  /** when the calling key expires (ms since the epoch), null when it never does: a key can't grant past it */
  expireDate: number | null;
  /** customer code of a Customer user (contract §3), else null */
  customerCode: string | null;
}

/** Everything a route needs from the outside world; injected so tests are deterministic. */
export interface ServiceContext {
  db: Db;
  /** the clock */
  now: () => Date;
  /** a new API key: `api_` + 24 chars of [a-z0-9] from a CSPRNG (contract §3) */
  generateKey: () => string;
  /** forget cached key lookups; call after any change to api_keys or users */
  invalidateKeys: () => void;
  /**
   * runs a write's synchronous database work in one transaction, waiting (asynchronously, a
   * bounded time) while another process holds the write lock, then 503 (busy.ts); `request`
   * names it (`POST /v1/resources`)
   */
  write: <T>(request: string, work: () => T) => Promise<T>;
  /** a resource password → the form stored at rest (sealed with the key outside the database; secrets.ts) */
  sealSecret: (plain: string) => string;
  /** ms a log read with a costly filter may take before it is stopped with a 400 (log/budget.ts); default LOG_READ_BUDGET_MS */
  logReadBudgetMs?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
    /** set by a write handler: what the audit entry of this request should record */
    audit?: { recordId?: number | string; properties?: Record<string, unknown>; note?: string };
  }
  interface FastifyContextConfig {
    /** roles allowed to call the route (contract §3); absent = public */
    roles?: readonly Role[];
  }
}
