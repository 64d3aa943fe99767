import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { hashApiKey, keyPrefix } from '../auth.js';
import { listPage, listQuerySchema, type ListParams, type ListSource } from '../list.js';
import { ADMIN_ONLY, OK, callerOf, idSchema, parseTimestamp } from './common.js';

/** Fields of an API key in lists (contract §4); never the hash, never the key. */
export const apiKeySource: ListSource = {
  from: 'api_keys k',
  spec: {
    fields: [
      { name: 'id', column: 'k.id', type: 'int' },
      { name: 'name', column: 'k.name', type: 'string' },
      { name: 'ownerId', column: 'k.owner_id', type: 'string' },
      { name: 'permissions', column: 'k.permissions', type: 'int' },
      { name: 'description', column: 'k.description', type: 'string' },
      { name: 'createdAt', column: 'k.created_at', type: 'timestamp' },
      { name: 'expireDate', column: 'k.expire_date', type: 'timestamp' },
      { name: 'revoked', column: 'k.revoked', type: 'bool' },
      { name: 'keyPrefix', column: 'k.key_prefix', type: 'string' },
    ],
    defaultSort: [{ name: 'id', desc: false }],
  },
};

const apiKeyFields = {
  name: { type: 'string', maxLength: 256 },
  ownerId: { type: 'string', maxLength: 256 },
  permissions: { type: 'integer', minimum: 0, maximum: 7 },
  description: { type: 'string', maxLength: 4096 },
  expireDate: { type: 'string', maxLength: 64 },
} as const;

interface ApiKeyBody {
  id?: number;
  name?: string;
  ownerId?: string;
  permissions?: number;
  description?: string;
  expireDate?: string | null;
  revoked?: boolean;
}

/** `/v1/api-keys`: list, insert, update, delete (contract §4); Administrator only. */
export async function apiKeyRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const { db } = ctx;
  const config = { roles: ADMIN_ONLY };

  app.get<{ Querystring: ListParams }>('/v1/api-keys', {
    config,
    schema: { querystring: { type: 'object', properties: listQuerySchema } },
  }, async (req) => {
    const { records, total } = listPage(db, apiKeySource, req.query);
    return { ...OK, apiKeys: records, totalApiKeysCount: total };
  });

  const expireMs = (v: string | null | undefined) => (v ? parseTimestamp(v, 'apiKey.expireDate') : null);
  const userExists = db.prepare<[string], number>('SELECT 1 FROM users WHERE id = ?').pluck();

  app.post<{ Body: { apiKey: ApiKeyBody } }>('/v1/api-keys', {
    config,
    schema: {
      body: {
        type: 'object',
        required: ['apiKey'],
        properties: {
          apiKey: {
            type: 'object',
            required: ['permissions'],
            properties: { ...apiKeyFields, id: { type: 'integer' }, revoked: { type: 'boolean' } },
            additionalProperties: false,
          },
        },
      },
    },
  }, async (req) => {
    const caller = callerOf(req);
    const k = req.body.apiKey;
    const ownerId = k.ownerId || caller.ownerId;
    if (!userExists.get(ownerId)) throw badRequest(`apiKey.ownerId "${ownerId}" is not a known user`, 'apiKey.ownerId');
    const expire = expireMs(k.expireDate);
    const now = ctx.now().getTime();
    for (let attempt = 0; ; attempt++) {
      const key = ctx.generateKey();
      try {
        const r = db.prepare(
          `INSERT INTO api_keys (name, owner_id, permissions, description, created_at, expire_date, revoked, key_prefix, key_hash)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(k.name ?? '', ownerId, k.permissions, k.description ?? '', now, expire, k.revoked ? 1 : 0, keyPrefix(key), hashApiKey(key));
        const id = Number(r.lastInsertRowid);
        req.audit = { recordId: id };
        ctx.invalidateKeys();
        return { ...OK, apiKeyId: id, key };
      } catch (e) {
        // a hash collision of two fresh random keys: astronomically unlikely; retry once
        if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && attempt < 2) continue;
        throw e;
      }
    }
  });

  app.put<{ Body: { apiKey: ApiKeyBody & { id: number } } }>('/v1/api-keys', {
    config,
    schema: {
      body: {
        type: 'object',
        required: ['apiKey'],
        properties: {
          apiKey: {
            type: 'object',
            required: ['id'],
            // expireDate: null clears the expiry (contract §2: an unset timestamp is null)
            properties: { ...apiKeyFields, expireDate: { type: ['string', 'null'], maxLength: 64 }, id: idSchema, revoked: { type: 'boolean' } },
            additionalProperties: false,
          },
        },
      },
    },
  }, async (req) => {
    const k = req.body.apiKey;
    const sets: string[] = [];
    const params: unknown[] = [];
    const set = (col: string, v: unknown) => (sets.push(`${col} = ?`), params.push(v));
    if (k.name !== undefined) set('name', k.name);
    if (k.ownerId !== undefined) {
      if (!userExists.get(k.ownerId)) throw badRequest(`apiKey.ownerId "${k.ownerId}" is not a known user`, 'apiKey.ownerId');
      set('owner_id', k.ownerId);
    }
    if (k.permissions !== undefined) set('permissions', k.permissions);
    if (k.description !== undefined) set('description', k.description);
    if (k.expireDate !== undefined) set('expire_date', expireMs(k.expireDate));
    if (k.revoked !== undefined) set('revoked', k.revoked ? 1 : 0);
    const exists = db.prepare('SELECT 1 FROM api_keys WHERE id = ?').pluck().get(k.id);
    if (!exists) throw notFound(`no API key with id ${k.id}`);
    if (sets.length > 0) db.prepare(`UPDATE api_keys SET ${sets.join(', ')} WHERE id = ?`).run(...params, k.id);
    req.audit = { recordId: k.id, properties: { Changed: Object.keys(k).filter((f) => f !== 'id') } };
    ctx.invalidateKeys();
    return { ...OK };
  });

  app.delete<{ Params: { apiKeyId: number } }>('/v1/api-keys/:apiKeyId', {
    config,
    schema: { params: { type: 'object', properties: { apiKeyId: idSchema }, required: ['apiKeyId'] } },
  }, async (req) => {
    const id = req.params.apiKeyId;
    const r = db.prepare('DELETE FROM api_keys WHERE id = ?').run(id);
    if (r.changes === 0) throw notFound(`no API key with id ${id}`);
    req.audit = { recordId: id };
    ctx.invalidateKeys();
    return { ...OK };
  });
}
