/**
 * The service's contract of §1 (envelope, status ↔ code), §3 (401/403) and §9 (body
 * limit), over raw HTTP against the real service.
 */
import { describe, expect, it } from 'vitest';
import { addUserWithKey, http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

const { svc } = useService();

/** Asserts the error envelope of contract §1 and returns the message. */
function expectFailure(res: { status: number; body: any }, status: number, code: number): string {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ success: false, code });
  expect(typeof res.body.message).toBe('string');
  expect(res.body.message.length).toBeGreaterThan(0);
  expect(JSON.stringify(res.body)).not.toMatch(/\n\s+at |node_modules/); // no stack trace
  return res.body.message;
}

describe('envelope on every reply', () => {
  it('a success carries success/code/message = true/0/"OK" and JSON content type', async () => {
    const r = await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, code: 0, message: 'OK' });
    expect(String(r.headers['content-type'])).toMatch(/^application\/json/);
  });

  it('unknown routes are 404 code 5 with the envelope, with or without a key', async () => {
    expect(expectFailure(await http(svc, 'GET', '/v1/nothing-here'), 404, 5)).toContain('/v1/nothing-here');
    expectFailure(await http(svc, 'GET', '/v1/nothing-here', { key: svc.adminKey }), 404, 5);
    expectFailure(await http(svc, 'PATCH', '/v1/api-keys', { key: svc.adminKey, body: {} }), 404, 5);
    expectFailure(await http(svc, 'GET', '/', {}), 404, 5);
  });

  it('malformed JSON is 400 code 3 saying so', async () => {
    const m = expectFailure(await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, rawBody: '{"apiKey": {' }), 400, 3);
    expect(m).toBe('request body is not valid JSON');
  });

  it('an empty JSON body and a non-JSON content type are 400 code 3', async () => {
    expect(expectFailure(await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, rawBody: '' }), 400, 3)).toContain('empty');
    const m = expectFailure(
      await http(svc, 'POST', '/v1/api-keys', {
        key: svc.adminKey,
        rawBody: 'permissions=7',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      400,
      3,
    );
    expect(m).toContain('application/json');
  });

  it('a body over 10 MiB is 413 code 8 naming the limit', async () => {
    const big = JSON.stringify({ apiKey: { permissions: 1, description: 'x'.repeat(10 * 1024 * 1024 + 10) } });
    const m = expectFailure(await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, rawBody: big }), 413, 8);
    expect(m).toContain('10485760');
    // and nothing was created
    const list = await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey });
    expect(list.body.apiKeys.some((k: { permissions: number; description: string }) => k.description.startsWith('xxx'))).toBe(false);
  });

  it('a body just under the limit is not rejected for size (it fails validation instead)', async () => {
    const body = JSON.stringify({ apiKey: { permissions: 1, description: 'x'.repeat(9 * 1024 * 1024) } });
    const m = expectFailure(await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, rawBody: body }), 400, 3);
    expect(m).toContain('apiKey.description');
  });
});

describe('401 code 16 for missing, unknown, revoked or expired keys', () => {
  it.each([
    ['no header', undefined, 'missing x-api-key header'],
    ['an empty header', '', 'missing x-api-key header'],
    ['a well-formed unknown key', 'api_000000000000000000000000', 'unknown API key'],
    ['a malformed key', 'hello', 'unknown API key'],
  ])('%s', async (_what, key, message) => {
    const r = await http(svc, 'GET', '/v1/api-keys', key === undefined ? {} : { headers: { 'x-api-key': key } });
    expect(expectFailure(r, 401, 16)).toBe(message);
  });

  it('a revoked key and an expired key (never looked up before, so nothing cached)', async () => {
    const revoked = await addUserWithKey(svc, 'rev-user', 'Administrator', 7);
    const expired = await addUserWithKey(svc, 'exp-user', 'Administrator', 7);
    svc.db.prepare("UPDATE api_keys SET revoked = 1 WHERE owner_id = 'rev-user'").run();
    svc.db.prepare("UPDATE api_keys SET expire_date = ? WHERE owner_id = 'exp-user'").run(Date.now() - 1000);
    expect(expectFailure(await http(svc, 'GET', '/v1/log', { key: revoked }), 401, 16)).toBe('API key is revoked');
    expect(expectFailure(await http(svc, 'GET', '/v1/log', { key: expired }), 401, 16)).toBe('API key has expired');
  });
});

describe('403 code 7: role or permission bit missing', () => {
  it.each([
    ['GET', 0, 'Read (1)'],
    ['POST', 5, 'Write (2)'],
    ['PUT', 5, 'Write (2)'],
    ['DELETE', 3, 'Delete (4)'],
  ])('%s with permissions %i lacks %s', async (method, perm, bit) => {
    const key = await addUserWithKey(svc, `bits-${method}`, 'Administrator', perm);
    const path = method === 'DELETE' ? '/v1/api-keys/2147483647' : '/v1/api-keys';
    const body = method === 'POST' ? { apiKey: { permissions: 1 } } : method === 'PUT' ? { apiKey: { id: 1, name: 'x' } } : undefined;
    const m = expectFailure(await http(svc, method, path, { key, body }), 403, 7);
    expect(m).toContain(bit);
  });

  it.each(['LicenseManager', 'Sales', 'Customer'])('role %s may not call /v1/api-keys even with all bits', async (role) => {
    const key = await addUserWithKey(svc, `role-${role}`, role, 7, role === 'Customer' ? 'C-00000001' : undefined);
    const m = expectFailure(await http(svc, 'GET', '/v1/api-keys', { key }), 403, 7);
    expect(m).toContain(`role ${role} may not call GET /v1/api-keys`);
    expect(m).toContain('allowed roles: Administrator');
  });
});
