import type { FastifyInstance } from 'fastify';
import { audited } from '../audit.js';
import type { ServiceContext } from '../context.js';
import type { Caller } from '../context.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import { hashApiKey, keyPrefix, permissionNames } from '../auth.js';
import { compileListRequest, listPage, listQuerySchema, type ListParams, type ListSource } from '../list.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiKeyInsertBody, ApiKeySchema, ApiKeyUpdateBody } from '../../schema/api-key.js';
import { listFields } from '../fields.js';
import { envelopeProperties, envelopeSchema, listResponse, selectable } from '../openapi.js';
import { ADMIN_ONLY, OK, callerOf, idSchema, parseTimestamp } from './common.js';

/** Fields of an API key in lists (contract §4), from its schema; never the hash, never the key. */
export const apiKeySource: ListSource = {
  from: 'api_keys k',
  spec: { fields: listFields(ApiKeySchema, 'k'), defaultSort: [{ name: 'id', desc: false }] },
};

/**
 * No escalation: a key may give another key (or itself) only permission bits it holds
 * itself. Throws 403 naming the bits it lacks.
 */
function checkGrant(caller: Caller, permissions: number | undefined): void {
  if (permissions === undefined) return;
  const extra = permissions & ~caller.permissions;
  if (extra) {
    throw forbidden(
      `apiKey.permissions ${permissions} would grant ${permissionNames(extra)}, which the calling API key (permissions ${caller.permissions}) does not hold; a key can only grant bits it holds`,
    );
  }
}

/** `/v1/api-keys`: list, insert, update, delete (contract §4); Administrator only. */
export async function apiKeyRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const { db } = ctx;
  // bodies typed from their schemas (src/schema/) by the type provider: no hand-written body type
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const config = { roles: ADMIN_ONLY };

  app.get<{ Querystring: ListParams }>(
    '/v1/api-keys',
    {
      config,
      schema: {
        querystring: { type: 'object', properties: listQuerySchema },
        response: {
          200: listResponse('apiKeys', 'totalApiKeysCount', selectable(ApiKeySchema)),
        },
      },
    },
    async (req) => {
      const { records, total } = listPage(db, apiKeySource, compileListRequest(apiKeySource.spec, req.query));
      return { ...OK, apiKeys: records, totalApiKeysCount: total };
    },
  );

  const expireMs = (v: string | null | undefined) => (v ? parseTimestamp(v, 'apiKey.expireDate') : null);
  const userExists = db.prepare<[string], number>('SELECT 1 FROM users WHERE id = ?').pluck();

  typed.post(
    '/v1/api-keys',
    {
      config,
      schema: {
        body: ApiKeyInsertBody,
        response: {
          200: {
            type: 'object',
            properties: {
              ...envelopeProperties,
              apiKeyId: { type: 'integer', minimum: 1 },
              key: { type: 'string', description: 'the API key, `api_` + 24 of [a-z0-9]: returned this once, never again' },
            },
          },
        },
      },
    },
    async (req) =>
      audited(ctx, req, () => {
        const caller = callerOf(req);
        const k = req.body.apiKey;
        checkGrant(caller, k.permissions);
        const ownerId = k.ownerId || caller.ownerId;
        if (!userExists.get(ownerId)) throw badRequest(`apiKey.ownerId "${ownerId}" is not a known user`, 'apiKey.ownerId');
        const expire = expireMs(k.expireDate);
        const now = ctx.now().getTime();
        for (let attempt = 0; ; attempt++) {
          const key = ctx.generateKey();
          try {
            const r = db
              .prepare(
                `INSERT INTO api_keys (name, owner_id, permissions, description, created_at, expire_date, revoked, key_prefix, key_hash)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
              )
              .run(k.name ?? '', ownerId, k.permissions, k.description ?? '', now, expire, 0, keyPrefix(key), hashApiKey(key));
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
      }),
  );

  typed.put(
    '/v1/api-keys',
    {
      config,
      schema: {
        body: ApiKeyUpdateBody,
        response: { 200: envelopeSchema },
      },
    },
    async (req) =>
      audited(ctx, req, () => {
        const k = req.body.apiKey;
        checkGrant(callerOf(req), k.permissions);
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
      }),
  );

  app.delete<{ Params: { apiKeyId: number } }>(
    '/v1/api-keys/:apiKeyId',
    {
      config,
      schema: { params: { type: 'object', properties: { apiKeyId: idSchema }, required: ['apiKeyId'] }, response: { 200: envelopeSchema } },
    },
    async (req) =>
      audited(ctx, req, () => {
        const id = req.params.apiKeyId;
        const r = db.prepare('DELETE FROM api_keys WHERE id = ?').run(id);
        if (r.changes === 0) throw notFound(`no API key with id ${id}`);
        req.audit = { recordId: id };
        ctx.invalidateKeys();
        return { ...OK };
      }),
  );
}
