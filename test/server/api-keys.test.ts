/** `/v1/api-keys` over raw HTTP: contract §3 and §4. */
import { beforeAll, describe, expect, it } from 'vitest';
import { http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

let t = Date.parse('2025-01-18T12:00:00.000Z');
const { svc } = useService({ now: () => new Date(t) });

const post = (apiKey: unknown, key = svc.adminKey) => http(svc, 'POST', '/v1/api-keys', { key, body: { apiKey } });
const put = (apiKey: unknown, key = svc.adminKey) => http(svc, 'PUT', '/v1/api-keys', { key, body: { apiKey } });
async function getKey(id: number) {
  const r = await http(svc, 'GET', `/v1/api-keys?filter=${encodeURIComponent(`Id = ${id}`)}`, { key: svc.adminKey });
  expect(r.status).toBe(200);
  return r.body.apiKeys[0];
}

describe('insert', () => {
  it('returns apiKeyId and the full key once, in the api_ + 24 [a-z0-9] format', async () => {
    const r = await post({ name: 'ci', permissions: 3, description: 'for CI' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, code: 0, message: 'OK' });
    expect(Number.isInteger(r.body.apiKeyId)).toBe(true);
    expect(r.body.key).toMatch(/^api_[a-z0-9]{24}$/);
    expect(Object.keys(r.body).sort()).toEqual(['apiKeyId', 'code', 'key', 'message', 'success']);
  });

  it('the list fields are exactly those of contract §4: no hash, no key, keyPrefix present', async () => {
    const r = await post({ name: 'fields', permissions: 5, description: 'd', expireDate: '2026-01-01T00:00:00Z' });
    const k = await getKey(r.body.apiKeyId);
    expect(Object.keys(k).sort()).toEqual([
      'createdAt',
      'description',
      'expireDate',
      'id',
      'keyPrefix',
      'name',
      'ownerId',
      'permissions',
      'revoked',
    ]);
    expect(k).toEqual({
      id: r.body.apiKeyId,
      name: 'fields',
      ownerId: 'admin',
      permissions: 5,
      description: 'd',
      createdAt: '2025-01-18T12:00:00.000Z',
      expireDate: '2026-01-01T00:00:00.000Z',
      revoked: false,
      keyPrefix: r.body.key.slice(0, 8),
    });
    const all = await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey });
    expect(JSON.stringify(all.body)).not.toContain(r.body.key);
    expect(JSON.stringify(all.body)).not.toMatch(/hash/i);
    expect(all.body.totalApiKeysCount).toBe(all.body.apiKeys.length);
  });

  it('ownerId defaults to the caller; an unknown ownerId is a 400 naming it', async () => {
    const r = await post({ permissions: 1 });
    expect((await getKey(r.body.apiKeyId)).ownerId).toBe('admin');
    const bad = await post({ permissions: 1, ownerId: 'ghost' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, code: 3, message: 'apiKey.ownerId "ghost" is not a known user' });
  });

  it.each([
    [{ permissions: '7' }, 'apiKey.permissions must be integer'],
    [{ permissions: 8 }, 'apiKey.permissions must be <= 7'],
    [{ permissions: -1 }, 'apiKey.permissions must be >= 0'],
    [{ permissions: 1.5 }, 'apiKey.permissions must be integer'],
    [{ permissions: true }, 'apiKey.permissions must be integer'],
    [{ permissions: 15 }, 'apiKey.permissions must be <= 7'],
    [{ name: 'no perms' }, 'apiKey.permissions is required'],
    [{ permissions: 1, name: 5 }, 'apiKey.name must be string'],
    [{ permissions: 1, secret: 'x' }, 'apiKey.secret is not a known field'],
    [{ permissions: 1, expireDate: 'tomorrow' }, 'apiKey.expireDate must be an RFC 3339 timestamp'],
    [{ permissions: 1, expireDate: '2025-02-30' }, 'apiKey.expireDate must be an RFC 3339 timestamp'],
    [{ permissions: 1, name: 'x'.repeat(257) }, 'apiKey.name must NOT have more than 256 characters'],
  ])('%j is 400 code 3: %s', async (apiKey, message) => {
    const before = (await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey })).body.totalApiKeysCount;
    const r = await post(apiKey);
    expect(r.status).toBe(400);
    expect(r.body.success).toBe(false);
    expect(r.body.code).toBe(3);
    expect(r.body.message).toContain(message);
    expect((await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey })).body.totalApiKeysCount).toBe(before);
  });

  it('a body without the apiKey wrapper is 400 naming it', async () => {
    const r = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { permissions: 7 } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('apiKey is required');
  });
});

describe('update', () => {
  it('changes only the fields present', async () => {
    const { body } = await post({ name: 'orig', permissions: 1, description: 'keep me', expireDate: '2030-01-01' });
    const id = body.apiKeyId;
    const before = await getKey(id);
    expect((await put({ id, permissions: 6 })).body).toEqual({ success: true, code: 0, message: 'OK' });
    expect(await getKey(id)).toEqual({ ...before, permissions: 6 });
    await put({ id, description: '' });
    expect(await getKey(id)).toEqual({ ...before, permissions: 6, description: '' });
    await put({ id, revoked: true, name: 'renamed' });
    expect(await getKey(id)).toEqual({ ...before, permissions: 6, description: '', revoked: true, name: 'renamed' });
    await put({ id });
    expect(await getKey(id)).toEqual({ ...before, permissions: 6, description: '', revoked: true, name: 'renamed' });
  });

  it.each([
    [{ id: 999_999, name: 'x' }, 404, 5, 'no API key with id 999999'],
    [{ id: '1', name: 'x' }, 400, 3, 'apiKey.id must be integer'],
    [{ id: 0, name: 'x' }, 400, 3, 'apiKey.id must be >= 1'],
    [{ id: 2147483648, name: 'x' }, 400, 3, 'apiKey.id must be <= 2147483647'],
    [{ name: 'x' }, 400, 3, 'apiKey.id is required'],
    [{ id: 1, permissions: '7' }, 400, 3, 'apiKey.permissions must be integer'],
    [{ id: 1, permissions: 8 }, 400, 3, 'apiKey.permissions must be <= 7'],
    [{ id: 1, revoked: 'yes' }, 400, 3, 'apiKey.revoked must be boolean'],
    [{ id: 1, ownerId: 'ghost' }, 400, 3, 'apiKey.ownerId "ghost" is not a known user'],
  ])('%j → %i code %i', async (apiKey, status, code, message) => {
    const r = await put(apiKey);
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ success: false, code });
    expect(r.body.message).toContain(message);
    // the bootstrap key is untouched
    expect((await getKey(1)).permissions).toBe(7);
  });
});

describe('delete', () => {
  it('deletes once, then 404 code 5', async () => {
    const { body } = await post({ permissions: 1 });
    const r = await http(svc, 'DELETE', `/v1/api-keys/${body.apiKeyId}`, { key: svc.adminKey });
    expect(r.body).toEqual({ success: true, code: 0, message: 'OK' });
    expect(await getKey(body.apiKeyId)).toBeUndefined();
    const again = await http(svc, 'DELETE', `/v1/api-keys/${body.apiKeyId}`, { key: svc.adminKey });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ success: false, code: 5, message: `no API key with id ${body.apiKeyId}` });
  });

  it.each([
    ['0', 'apiKeyId must be >= 1'],
    ['-1', 'apiKeyId must be >= 1'],
    ['2147483648', 'apiKeyId must be <= 2147483647'],
    ['99999999999999999999', 'apiKeyId must be <= 2147483647'],
    ['1.5', 'apiKeyId must be integer'],
    ['abc', 'apiKeyId must be integer'],
  ])('id %s in the path is 400 code 3, not 404', async (id, message) => {
    const r = await http(svc, 'DELETE', `/v1/api-keys/${id}`, { key: svc.adminKey });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 3 });
    expect(r.body.message).toContain(message);
  });
});

describe('a key works at once with exactly its rights; revocation and expiry are immediate', () => {
  it('revoking via PUT is 401 on the very next call (no cache delay); unrevoking restores it', async () => {
    const { body } = await post({ permissions: 1 });
    expect((await http(svc, 'GET', '/v1/api-keys', { key: body.key })).status).toBe(200);
    await put({ id: body.apiKeyId, revoked: true });
    const r = await http(svc, 'GET', '/v1/api-keys', { key: body.key });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ success: false, code: 16, message: 'API key is revoked' });
    await put({ id: body.apiKeyId, revoked: false });
    expect((await http(svc, 'GET', '/v1/api-keys', { key: body.key })).status).toBe(200);
  });

  it('a key whose expireDate passes gets 401 (service clock)', async () => {
    const { body } = await post({ permissions: 1, expireDate: '2025-01-18T13:00:00Z' });
    expect((await http(svc, 'GET', '/v1/api-keys', { key: body.key })).status).toBe(200);
    const saved = t;
    t = Date.parse('2025-01-18T13:00:00Z');
    try {
      const r = await http(svc, 'GET', '/v1/api-keys', { key: body.key });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ success: false, code: 16, message: 'API key has expired' });
    } finally {
      t = saved;
    }
  });

  it('setting expireDate in the past via PUT is 401 at once', async () => {
    const { body } = await post({ permissions: 1 });
    expect((await http(svc, 'GET', '/v1/api-keys', { key: body.key })).status).toBe(200);
    await put({ id: body.apiKeyId, expireDate: '2020-01-01' });
    expect((await http(svc, 'GET', '/v1/api-keys', { key: body.key })).status).toBe(401);
  });

  it('PUT expireDate: null clears the expiry (contract §2: unset is null): the expired key works again', async () => {
    const { body } = await post({ permissions: 1, expireDate: '2020-01-01' });
    expect((await http(svc, 'GET', '/v1/api-keys', { key: body.key })).status).toBe(401);
    const r = await put({ id: body.apiKeyId, expireDate: null });
    expect(r.status).toBe(200);
    expect(svc.db.prepare('SELECT expire_date FROM api_keys WHERE id = ?').pluck().get(body.apiKeyId)).toBeNull();
    expect((await http(svc, 'GET', '/v1/api-keys', { key: body.key })).status).toBe(200);
  });

  it('a deleted key is 401 at once', async () => {
    const { body } = await post({ permissions: 7 });
    expect((await http(svc, 'GET', '/v1/api-keys', { key: body.key })).status).toBe(200);
    await http(svc, 'DELETE', `/v1/api-keys/${body.apiKeyId}`, { key: svc.adminKey });
    expect((await http(svc, 'GET', '/v1/api-keys', { key: body.key })).body).toEqual({
      success: false,
      code: 16,
      message: 'unknown API key',
    });
  });

  it('lowering permissions takes effect at once', async () => {
    const { body } = await post({ permissions: 3 });
    expect((await post({ permissions: 1 }, body.key)).status).toBe(200);
    await put({ id: body.apiKeyId, permissions: 1 });
    expect((await post({ permissions: 1 }, body.key)).status).toBe(403);
  });
});

describe('list paging (contract §5)', () => {
  it('take/skip page in id order and the total ignores paging; take 1001 / -1 are 400 naming the limit', async () => {
    const all = (await http(svc, 'GET', '/v1/api-keys?take=1000', { key: svc.adminKey })).body;
    const ids = all.apiKeys.map((k: { id: number }) => k.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    const page = (await http(svc, 'GET', '/v1/api-keys?take=2&skip=1', { key: svc.adminKey })).body;
    expect(page.apiKeys.map((k: { id: number }) => k.id)).toEqual(ids.slice(1, 3));
    expect(page.totalApiKeysCount).toBe(all.totalApiKeysCount);
    for (const take of ['1001', '-1']) {
      const r = await http(svc, 'GET', `/v1/api-keys?take=${take}`, { key: svc.adminKey });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(3);
      expect(r.body.message).toContain('take');
      expect(r.body.message).toContain('1000');
    }
  });
});

describe('the grant rule: a key gives only what it holds (permissions, owner, revival, expiry)', () => {
  /** Adds a user with `role` and a key with `permissions` (and optionally an expiry / revoked); returns key and id. */
  async function keyOf(user: string, role: string, permissions: number, o: { expireMs?: number; revoked?: boolean } = {}) {
    const { addUserWithKey } = await import('../helpers/service.js');
    const key = await addUserWithKey(svc, user, role, permissions);
    const id = svc.db.prepare('SELECT id FROM api_keys WHERE key_prefix = ?').pluck().get(key.slice(0, 8)) as number;
    svc.db.prepare('UPDATE api_keys SET expire_date = ?, revoked = ? WHERE id = ?').run(o.expireMs ?? null, o.revoked ? 1 : 0, id);
    return { key, id };
  }
  const row = (id: number) =>
    svc.db.prepare('SELECT owner_id AS ownerId, permissions, expire_date AS expireDate, revoked FROM api_keys WHERE id = ?').get(id);
  const canListKeys = async (key: string) => (await http(svc, 'GET', '/v1/api-keys?take=0', { key })).status;
  let writer: { key: string; id: number };
  beforeAll(async () => {
    // an Administrator key with the Write bit only
    writer = await keyOf('admin2', 'Administrator', 2);
  });

  it('permissions: an insert or update with a bit the calling key lacks is 403, its own key included', async () => {
    const r = await post({ name: 'too-much', permissions: 7 }, writer.key);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      success: false,
      code: 7,
      message:
        'apiKey.permissions 7 would create a key with Read (1), Write (2), Delete (4); the calling API key (permissions 2) does not hold Read (1), Delete (4), and a key can only grant what it holds',
    });
    const raise = await put({ id: writer.id, permissions: 7 }, writer.key);
    expect(raise.status).toBe(403);
    expect(raise.body.message).toContain(`would give key ${writer.id} (the calling key) with Read (1), Write (2), Delete (4)`);
    expect(row(writer.id)).toMatchObject({ permissions: 2 });
    // what it holds, it may grant
    expect((await post({ name: 'writer-too', permissions: 2 }, writer.key)).status).toBe(200);
    expect((await put({ id: writer.id, name: 'renamed' }, writer.key)).status).toBe(200);
  });

  it('ownerId: moving a LicenseManager key with bits the caller lacks to an Administrator is 403; the key stays out of /v1/api-keys', async () => {
    const lm = await keyOf('lm1', 'LicenseManager', 7);
    expect(await canListKeys(lm.key)).toBe(403);
    const r = await put({ id: lm.id, ownerId: 'admin' }, writer.key);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      success: false,
      code: 7,
      message: `apiKey.ownerId "admin" would move key ${lm.id} to user admin (Administrator) with Read (1), Write (2), Delete (4); the calling API key (permissions 2) does not hold Read (1), Delete (4), and a key can only grant what it holds`,
    });
    expect(row(lm.id)).toMatchObject({ ownerId: 'lm1', permissions: 7 });
    expect(await canListKeys(lm.key)).toBe(403);
    // nor with the bits in the same request
    expect((await put({ id: lm.id, ownerId: 'admin', permissions: 7 }, writer.key)).status).toBe(403);
    // a key whose bits the caller holds may move; so may any key to its present owner (nothing changes)
    const lmWrite = await keyOf('lm1', 'LicenseManager', 2);
    expect((await put({ id: lmWrite.id, ownerId: 'admin' }, writer.key)).status).toBe(200);
    expect(row(lmWrite.id)).toMatchObject({ ownerId: 'admin' });
    expect((await put({ id: lm.id, ownerId: 'lm1', name: 'same owner' }, writer.key)).status).toBe(200);
    // the full Administrator key holds everything: it may move the key, which then lists keys
    expect((await put({ id: lm.id, ownerId: 'admin' })).status).toBe(200);
    expect(await canListKeys(lm.key)).toBe(200);
  });

  it('revoked: reviving a key with bits the caller lacks is 403 and the key stays 401; revoking needs only Write', async () => {
    const strong = await keyOf('admin3', 'Administrator', 7);
    expect((await put({ id: strong.id, revoked: true }, writer.key)).status).toBe(200);
    expect(await canListKeys(strong.key)).toBe(401);
    const r = await put({ id: strong.id, revoked: false }, writer.key);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe(7);
    expect(r.body.message).toBe(
      `apiKey.revoked false would revive key ${strong.id} with Read (1), Write (2), Delete (4); the calling API key (permissions 2) does not hold Read (1), Delete (4), and a key can only grant what it holds`,
    );
    expect(row(strong.id)).toMatchObject({ revoked: 1 });
    expect(await canListKeys(strong.key)).toBe(401);
    // revoked: false on a key that is not revoked gives nothing
    const weak = await keyOf('admin3', 'Administrator', 2, { revoked: true });
    expect((await put({ id: writer.id, revoked: false }, writer.key)).status).toBe(200);
    // reviving a key whose bits the caller holds is fine
    expect((await put({ id: weak.id, revoked: false }, writer.key)).status).toBe(200);
    expect((await http(svc, 'POST', '/v1/api-keys', { key: weak.key, body: { apiKey: { permissions: 0 } } })).status).toBe(200);
    // the full Administrator key revives the strong one
    expect((await put({ id: strong.id, revoked: false })).status).toBe(200);
    expect(await canListKeys(strong.key)).toBe(200);
  });

  it('expireDate: removing or extending the expiry of a key with bits the caller lacks is 403; shortening is not', async () => {
    const expired = await keyOf('admin4', 'Administrator', 7, { expireMs: t - 60_000 });
    expect(await canListKeys(expired.key)).toBe(401);
    for (const expireDate of [null, '2099-01-01T00:00:00Z']) {
      const r = await put({ id: expired.id, expireDate }, writer.key);
      expect(r.status).toBe(403);
      expect(r.body.message).toBe(
        `apiKey.expireDate ${JSON.stringify(expireDate)} would extend key ${expired.id} with Read (1), Write (2), Delete (4); the calling API key (permissions 2) does not hold Read (1), Delete (4), and a key can only grant what it holds`,
      );
      expect(await canListKeys(expired.key)).toBe(401);
    }
    expect(row(expired.id)).toMatchObject({ expireDate: t - 60_000 });
    // shortening the life of a live key is taking away: allowed
    const live = await keyOf('admin4', 'Administrator', 7, { expireMs: t + 3_600_000 });
    expect((await put({ id: live.id, expireDate: '2025-01-18T12:30:00Z' }, writer.key)).status).toBe(200);
    // a key without expiry given one: shortening too
    const forever = await keyOf('admin4', 'Administrator', 7);
    expect((await put({ id: forever.id, expireDate: '2030-01-01' }, writer.key)).status).toBe(200);
    // a key whose bits the caller holds may be extended; then it works again
    const expiredWriter = await keyOf('admin4', 'Administrator', 2, { expireMs: t - 60_000 });
    expect((await put({ id: expiredWriter.id, expireDate: null }, writer.key)).status).toBe(200);
    expect((await http(svc, 'POST', '/v1/api-keys', { key: expiredWriter.key, body: { apiKey: { permissions: 0 } } })).status).toBe(200);
  });

  it('a key that expires cannot give a key a longer life, its own included', async () => {
    const until = t + 3_600_000;
    const temp = await keyOf('admin5', 'Administrator', 7, { expireMs: until });
    const untilIso = new Date(until).toISOString();
    const r = await post({ name: 'forever', permissions: 1 }, temp.key);
    expect(r.status).toBe(403);
    expect(r.body.message).toBe(
      `apiKey.permissions 1 would create a key with Read (1) without expiry; the calling API key expires at ${untilIso}, and a key can only grant what it holds (an expireDate no later than that)`,
    );
    expect((await post({ name: 'later', permissions: 1, expireDate: '2025-01-18T14:00:00Z' }, temp.key)).status).toBe(403);
    expect((await post({ name: 'within', permissions: 7, expireDate: untilIso }, temp.key)).status).toBe(200);
    const self = await put({ id: temp.id, expireDate: null }, temp.key);
    expect(self.status).toBe(403);
    expect(self.body.message).toContain(
      `apiKey.expireDate null would extend key ${temp.id} (the calling key) with Read (1), Write (2), Delete (4) without expiry`,
    );
    expect(row(temp.id)).toMatchObject({ expireDate: until });
    // reviving or moving a key that would outlive the caller: the same
    const revokedForever = await keyOf('admin5', 'Administrator', 1, { revoked: true });
    expect((await put({ id: revokedForever.id, revoked: false }, temp.key)).status).toBe(403);
    const lmForever = await keyOf('lm2', 'LicenseManager', 1);
    expect((await put({ id: lmForever.id, ownerId: 'admin' }, temp.key)).status).toBe(403);
    // taking away is fine: revoking, shortening
    expect((await put({ id: lmForever.id, revoked: true }, temp.key)).status).toBe(200);
    expect((await put({ id: revokedForever.id, expireDate: '2025-01-18T12:10:00Z' }, temp.key)).status).toBe(200);
  });

  it('fewer bits are taking away: they need only the Write bit, whatever the caller holds or when it expires', async () => {
    const temp = await keyOf('admin6', 'Administrator', 7, { expireMs: t + 3_600_000 });
    const forever = await keyOf('admin6', 'Administrator', 7);
    // a caller with 7 that expires, a permanent key holding 7 cut to 1 (was: 403 "would give … Read (1) without expiry")
    const r = await put({ id: forever.id, permissions: 1 }, temp.key);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(row(forever.id)).toMatchObject({ permissions: 1, expireDate: null });
    // a caller with Write only cuts a key of 7 to Read (1), a bit it lacks itself but the key held
    const other = await keyOf('admin6', 'Administrator', 7);
    expect((await put({ id: other.id, permissions: 1 }, writer.key)).status).toBe(200);
    expect(row(other.id)).toMatchObject({ permissions: 1 });
    // but giving a bit back is a grant again
    const back = await put({ id: other.id, permissions: 3 }, writer.key);
    expect(back.status).toBe(403);
    expect(back.body.message).toContain(`apiKey.permissions 3 would give key ${other.id} with Read (1), Write (2)`);
    expect(row(other.id)).toMatchObject({ permissions: 1 });
    // fewer bits for a key that also moves or revives: the other grant still applies
    const lm = await keyOf('lm3', 'LicenseManager', 7);
    expect((await put({ id: lm.id, permissions: 5, ownerId: 'admin' }, writer.key)).status).toBe(403);
  });
});

describe('expireDate outside years 0001-9999 once its offset is applied (contract §2)', () => {
  it('is a 400 naming the field, on insert and update; 9999-12-31T23:59:59Z itself is fine', async () => {
    for (const expireDate of ['9999-12-31T23:59:59-23:59', '0001-01-01T00:00:00+00:01']) {
      const r = await post({ name: 'far', permissions: 1, expireDate });
      expect(r.status, expireDate).toBe(400);
      expect(r.body).toMatchObject({
        success: false,
        code: 3,
        message: `apiKey.expireDate must be a time in years 0001-9999 once its offset is applied (UTC), got "${expireDate}"`,
      });
    }
    const ok = await post({ name: 'last', permissions: 1, expireDate: '9999-12-31T23:59:59Z' });
    expect(ok.status).toBe(200);
    expect((await getKey(ok.body.apiKeyId)).expireDate).toBe('9999-12-31T23:59:59.000Z');
    const up = await put({ id: ok.body.apiKeyId, expireDate: '9999-12-31T23:59:59-23:59' });
    expect(up.status).toBe(400);
    expect((await getKey(ok.body.apiKeyId)).expireDate).toBe('9999-12-31T23:59:59.000Z');
  });
});

describe('unset timestamps are null on the wire (contract §2)', () => {
  it('a key without expiry has "expireDate": null, never ""', async () => {
    const r = await post({ name: 'forever', permissions: 1 });
    const raw = await http(svc, 'GET', `/v1/api-keys?filter=${encodeURIComponent(`Id = ${r.body.apiKeyId}`)}`, { key: svc.adminKey });
    expect(raw.body.apiKeys[0].expireDate).toBeNull();
  });
});
