import { createHash, randomInt } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Permission, type Role } from '../wire.js';
import type { Caller, ServiceContext } from './context.js';
import { forbidden, unauthenticated } from './errors.js';
import { writeLog } from './log-writer.js';

const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const KEY_RE = /^api_[a-z0-9]{24}$/;

/** A new API key, `api_` + 24 chars of [a-z0-9] drawn with crypto.randomInt (contract §3, orig `api_{token:24}`). */
export function generateApiKey(): string {
  let s = 'api_';
  for (let i = 0; i < 24; i++) s += KEY_ALPHABET[randomInt(KEY_ALPHABET.length)];
  return s;
}

/** SHA-256 hex of a key: the only form in which the service stores it (contract §3). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The public 8-character prefix of a key shown in lists (contract §4), e.g. `api_u3o7`. */
export const keyPrefix = (key: string) => key.slice(0, 8);

interface KeyRow {
  id: number;
  owner_id: string;
  permissions: number;
  expire_date: number | null;
  revoked: number;
  role: Role;
  customer_code: string | null;
}

/** HTTP method → the permission bit it needs (contract §3). */
export function permissionFor(method: string): number {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return Permission.Read;
    case 'DELETE':
      return Permission.Delete;
    default:
      return Permission.Write;
  }
}

const BIT_NAMES: Record<number, string> = { 1: 'Read (1)', 2: 'Write (2)', 4: 'Delete (4)' };
const CACHE_TTL_MS = 5_000;

/**
 * Builds the onRequest hook that authenticates `x-api-key` and enforces the route's
 * role list and the method's permission bit (contract §3). Lookups are cached for a few
 * seconds by key hash; `invalidate()` (called on every api_keys/users write) makes
 * revocation take effect at once. Failed authentications write a Warning (contract §6).
 */
export function createAuth(ctx: Omit<ServiceContext, 'invalidateKeys'>) {
  const cache = new Map<string, { row: KeyRow | undefined; until: number }>();
  const lookup = ctx.db.prepare<[string], KeyRow>(
    `SELECT k.id, k.owner_id, k.permissions, k.expire_date, k.revoked, u.role, u.customer_code
       FROM api_keys k JOIN users u ON u.id = k.owner_id WHERE k.key_hash = ?`,
  );

  function find(key: string): KeyRow | undefined {
    const hash = hashApiKey(key);
    const t = Date.now();
    const hit = cache.get(hash);
    if (hit && hit.until > t) return hit.row;
    const row = lookup.get(hash);
    if (cache.size > 10_000) cache.clear();
    cache.set(hash, { row, until: t + CACHE_TTL_MS });
    return row;
  }

  function fail(req: FastifyRequest, reason: string): never {
    writeLog(ctx.db, ctx.now(), 'Warning', 'Authentication failed for {Method} {Path}: {Reason}', {
      Method: req.method,
      Path: req.url.split('?')[0],
      Reason: reason,
      RemoteAddress: req.ip,
    });
    throw unauthenticated(reason);
  }

  async function onRequest(req: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const roles = req.routeOptions.config?.roles;
    if (!roles) return;
    const header = req.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key) fail(req, 'missing x-api-key header');
    const row = KEY_RE.test(key) ? find(key) : undefined;
    if (!row) fail(req, 'unknown API key');
    if (row.revoked) fail(req, 'API key is revoked');
    if (row.expire_date != null && row.expire_date <= ctx.now().getTime()) fail(req, 'API key has expired');
    const caller: Caller = {
      keyId: row.id,
      ownerId: row.owner_id,
      role: row.role,
      permissions: row.permissions,
      customerCode: row.customer_code,
    };
    req.caller = caller;
    if (!roles.includes(caller.role)) {
      throw forbidden(`role ${caller.role} may not call ${req.method} ${req.routeOptions.url}; allowed roles: ${roles.join(', ')}`);
    }
    const bit = permissionFor(req.method);
    if ((caller.permissions & bit) === 0) {
      throw forbidden(`API key lacks the ${BIT_NAMES[bit]} permission needed for ${req.method}`);
    }
  }

  return { onRequest, invalidate: () => cache.clear() };
}
