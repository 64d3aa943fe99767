import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Permission, type Role } from '../wire.js';
import type { Caller, ServiceContext } from './context.js';
import { createAuthGuard, type AuthFailLimit } from './auth-guard.js';
import { forbidden, tooManyFailedAuthentications, unauthenticated } from './errors.js';

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
  key_hash: string;
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

/** The permission bits of `mask` by name (contract §3), e.g. 6 → `Write (2), Delete (4)`. */
export const permissionNames = (mask: number): string =>
  [1, 2, 4]
    .filter((b) => mask & b)
    .map((b) => BIT_NAMES[b])
    .join(', ');
const CACHE_TTL_MS = 5_000;

/**
 * Builds the onRequest hook that authenticates `x-api-key` and enforces the route's
 * role list and the method's permission bit (contract §3). Keys are found by their
 * public prefix and their SHA-256 hashes compared in constant time. Lookups are cached
 * for a few seconds by key hash; `invalidate()` (called on every api_keys/users write)
 * makes revocation take effect at once. Failed authentications go through the guard
 * (auth-guard.ts): logged aggregated per address, and an address that keeps failing is
 * refused with 429 for a while (`authFailLimit`, default 5 per 60 s; limit 0 = off).
 */
export function createAuth(ctx: Omit<ServiceContext, 'invalidateKeys' | 'write'>, authFailLimit?: AuthFailLimit) {
  const cache = new Map<string, { row: KeyRow | undefined; until: number }>();
  const byPrefix = ctx.db.prepare<[string], KeyRow>(
    `SELECT k.id, k.owner_id, k.permissions, k.expire_date, k.revoked, u.role, u.customer_code, k.key_hash
       FROM api_keys k JOIN users u ON u.id = k.owner_id WHERE k.key_prefix = ?`,
  );
  const guard = createAuthGuard(ctx.db, ctx.now, authFailLimit);

  function find(key: string): KeyRow | undefined {
    const hash = hashApiKey(key);
    const t = Date.now();
    const hit = cache.get(hash);
    if (hit && hit.until > t) return hit.row;
    const want = Buffer.from(hash, 'hex');
    let row: KeyRow | undefined;
    // every key with this prefix is compared, each in constant time: the time taken says nothing about the hash
    for (const r of byPrefix.all(keyPrefix(key))) {
      const have = Buffer.from(r.key_hash, 'hex');
      if (have.length === want.length && timingSafeEqual(have, want)) row = r;
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(hash, { row, until: t + CACHE_TTL_MS });
    return row;
  }

  function fail(req: FastifyRequest, reply: FastifyReply, reason: string): never {
    const blockedFor = guard.failed(req.ip, { method: req.method, path: req.url.split('?')[0]!, reason });
    if (blockedFor > 0) {
      reply.header('retry-after', String(blockedFor));
      throw tooManyFailedAuthentications(blockedFor);
    }
    throw unauthenticated(reason);
  }

  async function onRequest(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const roles = req.routeOptions.config?.roles;
    if (!roles) return;
    // a blocked address is refused whatever it sends, a good key included
    const wait = guard.blocked(req.ip);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw tooManyFailedAuthentications(wait);
    }
    const header = req.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key) fail(req, reply, 'missing x-api-key header');
    const row = KEY_RE.test(key) ? find(key) : undefined;
    if (!row) fail(req, reply, 'unknown API key');
    if (row.revoked) fail(req, reply, 'API key is revoked');
    if (row.expire_date != null && row.expire_date <= ctx.now().getTime()) fail(req, reply, 'API key has expired');
    const caller: Caller = {
      keyId: row.id,
      ownerId: row.owner_id,
      role: row.role,
      permissions: row.permissions,
      expireDate: row.expire_date,
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
