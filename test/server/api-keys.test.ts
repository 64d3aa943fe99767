/** `/v1/api-keys` over raw HTTP: contract §3 and §4. */
import { describe, expect, it } from 'vitest';
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

describe('no escalation (issue 8 §3): a key grants only bits it holds', () => {
  it('an Administrator key with permissions 2 (Write) cannot create a key with 7, nor raise a key (its own included) past 2', async () => {
    const { addUserWithKey } = await import('../helpers/service.js');
    const writer = await addUserWithKey(svc, 'admin2', 'Administrator', 2);
    const ownId = svc.db.prepare('SELECT id FROM api_keys WHERE key_prefix = ?').pluck().get(writer.slice(0, 8)) as number;
    const r = await post({ name: 'too-much', permissions: 7 }, writer);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe(7);
    expect(r.body.message).toBe(
      'apiKey.permissions 7 would grant Read (1), Delete (4), which the calling API key (permissions 2) does not hold; a key can only grant bits it holds',
    );
    const raise = await put({ id: ownId, permissions: 7 }, writer);
    expect(raise.status).toBe(403);
    expect(svc.db.prepare('SELECT permissions FROM api_keys WHERE id = ?').pluck().get(ownId)).toBe(2);
    // what it holds, it may grant
    expect((await post({ name: 'writer-too', permissions: 2 }, writer)).status).toBe(200);
    expect((await put({ id: ownId, name: 'renamed' }, writer)).status).toBe(200);
  });
});

describe('unset timestamps are null on the wire (contract §2)', () => {
  it('a key without expiry has "expireDate": null, never ""', async () => {
    const r = await post({ name: 'forever', permissions: 1 });
    const raw = await http(svc, 'GET', `/v1/api-keys?filter=${encodeURIComponent(`Id = ${r.body.apiKeyId}`)}`, { key: svc.adminKey });
    expect(raw.body.apiKeys[0].expireDate).toBeNull();
  });
});
