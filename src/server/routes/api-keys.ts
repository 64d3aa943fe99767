import type { FastifyInstance } from 'fastify';
import { audited } from '../audit.js';
import type { ServiceContext } from '../context.js';
import type { Caller } from '../context.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import { hashApiKey, keyPrefix, permissionNames } from '../auth.js';
import type { ListSource } from '../list.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiKeyInsertBody, ApiKeySchema, ApiKeyUpdateBody } from '../../schema/api-key.js';
import { listFields } from '../fields.js';
import { envelopeProperties, envelopeSchema } from '../openapi.js';
import { ColumnChanges, deleteRoute, listRoute } from './crud.js';
import { ADMIN_ONLY, OK, callerOf, parseTimestamp } from './common.js';

/** Fields of an API key in lists (contract §4), from its schema; never the hash, never the key. */
export const apiKeySource: ListSource = {
  from: 'api_keys k',
  spec: { fields: listFields(ApiKeySchema, 'k'), defaultSort: [{ name: 'id', desc: false }] },
};

/** What a key can do, as far as the grant rule is concerned: its permission bits, and until when (ms; null = no expiry). */
interface Holding {
  permissions: number;
  expireDate: number | null;
}

/**
 * The grant rule: a key can give another key, or itself, only what it holds itself. A
 * write to an API key gives when it sets `permissions` with a bit the key lacked, creates a key, moves a key to
 * another owner (its bits then act with that user's role), revives it (`revoked: false`
 * on a revoked key) or lets it live longer (`expireDate` later than it was, or null on a
 * key that had one). After such a write the key (`after`) must hold no permission bit the
 * calling key lacks, and must expire no later than the calling key (never, only when the
 * calling key never expires). Taking away (fewer bits, revoking, an earlier expiry) and
 * renaming need nothing beyond the Write bit. `cause` names the field and value
 * (`apiKey.revoked false`), `act` what the write does (`revive key 12`). Throws 403
 * (code 7) saying what is lacking; the rule is contract §3's.
 */
function checkGrant(caller: Caller, cause: string, act: string, after: Holding): void {
  const extra = after.permissions & ~caller.permissions;
  const bits = after.permissions ? permissionNames(after.permissions) : 'no permission bits';
  if (extra) {
    throw forbidden(
      `${cause} would ${act} with ${bits}; the calling API key (permissions ${caller.permissions}) does not hold ${permissionNames(extra)}, and a key can only grant what it holds`,
    );
  }
  const limit = caller.expireDate;
  if (limit !== null && (after.expireDate === null || after.expireDate > limit)) {
    const until = after.expireDate === null ? 'without expiry' : `until ${new Date(after.expireDate).toISOString()}`;
    throw forbidden(
      `${cause} would ${act} with ${bits} ${until}; the calling API key expires at ${new Date(limit).toISOString()}, and a key can only grant what it holds (an expireDate no later than that)`,
    );
  }
}

/** `/v1/api-keys`: list, insert, update, delete (contract §4); Administrator only. */
export async function apiKeyRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const { db } = ctx;
  // bodies typed from their schemas (src/schema/) by the type provider: no hand-written body type
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const config = { roles: ADMIN_ONLY };

  listRoute(app, ctx, {
    path: '/v1/api-keys',
    roles: ADMIN_ONLY,
    arrayField: 'apiKeys',
    totalField: 'totalApiKeysCount',
    schema: ApiKeySchema,
    source: apiKeySource,
  });

  const expireMs = (v: string | null | undefined) => (v ? parseTimestamp(v, 'apiKey.expireDate') : null);
  /** the role of a user, undefined when there is no such user */
  const userRole = db.prepare<[string], string>('SELECT role FROM users WHERE id = ?').pluck();
  const keyById = db.prepare<[number], { owner_id: string; permissions: number; expire_date: number | null; revoked: number }>(
    'SELECT owner_id, permissions, expire_date, revoked FROM api_keys WHERE id = ?',
  );

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
        const expire = expireMs(k.expireDate);
        checkGrant(caller, `apiKey.permissions ${k.permissions}`, 'create a key', { permissions: k.permissions, expireDate: expire });
        const ownerId = k.ownerId || caller.ownerId;
        if (!userRole.get(ownerId)) throw badRequest(`apiKey.ownerId "${ownerId}" is not a known user`, 'apiKey.ownerId');
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
        const caller = callerOf(req);
        const newRole = k.ownerId === undefined ? undefined : userRole.get(k.ownerId);
        if (k.ownerId !== undefined && !newRole) {
          throw badRequest(`apiKey.ownerId "${k.ownerId}" is not a known user`, 'apiKey.ownerId');
        }
        const was = keyById.get(k.id);
        if (!was) throw notFound(`no API key with id ${k.id}`);
        const expire = k.expireDate === undefined ? was.expire_date : expireMs(k.expireDate);
        const after: Holding = { permissions: k.permissions ?? was.permissions, expireDate: expire };
        // every way this write can make the key able to do more: each is a grant (checkGrant)
        const key = k.id === caller.keyId ? `key ${k.id} (the calling key)` : `key ${k.id}`;
        // a bit the key did not hold is a grant; fewer bits are taking away, which needs only the Write bit (contract §3)
        if (k.permissions !== undefined && (k.permissions & ~was.permissions) !== 0) {
          checkGrant(caller, `apiKey.permissions ${k.permissions}`, `give ${key}`, after);
        }
        if (k.ownerId !== undefined && k.ownerId !== was.owner_id) {
          checkGrant(caller, `apiKey.ownerId "${k.ownerId}"`, `move ${key} to user ${k.ownerId} (${newRole})`, after);
        }
        if (k.revoked === false && was.revoked) checkGrant(caller, 'apiKey.revoked false', `revive ${key}`, after);
        if (k.expireDate !== undefined && was.expire_date !== null && (expire === null || expire > was.expire_date)) {
          checkGrant(caller, `apiKey.expireDate ${JSON.stringify(k.expireDate)}`, `extend ${key}`, after);
        }
        const changes = new ColumnChanges();
        changes.setAll(k, { name: 'name', ownerId: 'owner_id', permissions: 'permissions', description: 'description' });
        if (k.expireDate !== undefined) changes.set('expireDate', 'expire_date', expire);
        if (k.revoked !== undefined) changes.set('revoked', 'revoked', k.revoked ? 1 : 0);
        changes.write(db, 'api_keys', k.id);
        req.audit = { recordId: k.id, properties: { Changed: Object.keys(k).filter((f) => f !== 'id') } };
        ctx.invalidateKeys();
        return { ...OK };
      }),
  );

  deleteRoute(app, ctx, {
    path: '/v1/api-keys',
    param: 'apiKeyId',
    roles: ADMIN_ONLY,
    table: 'api_keys',
    what: 'API key',
    after: () => ctx.invalidateKeys(),
  });
}
