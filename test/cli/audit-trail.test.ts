// Cross-cutting: the audit trail every write verb (POST, PUT, DELETE) and every failed authentication leaves, read back from the log (contract §6); each verb's own output is in test/commands/<noun>/<verb>.test.ts.
/**
 * The audit trail through the CLI against the real service on a clock the test moves: one
 * Information entry per successful write naming the key and its owner, none for a failed
 * write, a Warning per failed authentication, never a secret.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { envFor, runCli } from '../helpers/cli.js';
import { http, type TestService } from '../helpers/service.js';
import { T0, H, clockedService, entries, lic } from '../commands/log/_shared.js';

describe('the audit trail (contract §6)', () => {
  let svc: TestService;
  let clock: { t: number };
  beforeEach(async () => {
    ({ svc, clock } = await clockedService());
  });
  afterEach(() => svc.close());

  it('one Information entry per successful POST, PUT and DELETE, naming key id and owner, never the secret', async () => {
    const made = JSON.parse((await lic(svc, ['keys', 'create', '--perm', '3', '-o', 'json'])).stdout);
    clock.t += 1000;
    await lic(svc, ['keys', 'update', String(made.apiKeyId), '--name', 'renamed', '--revoke']);
    clock.t += 1000;
    await lic(svc, ['keys', 'delete', String(made.apiKeyId), '--yes']);
    const log = await entries(svc);
    expect(log.map((e) => e.message)).toEqual([
      `DELETE /v1/api-keys/${made.apiKeyId} by API key 1 of user admin, record ${made.apiKeyId}`,
      `PUT /v1/api-keys by API key 1 of user admin, record ${made.apiKeyId}`,
      `POST /v1/api-keys by API key 1 of user admin, record ${made.apiKeyId}`,
    ]);
    expect(log.every((e) => e.level === 'Information' && e.exception === '')).toBe(true);
    expect(log[2]!.messageTemplate).toBe('{Method} {Path} by API key {ApiKeyId} of user {OwnerId}, record {RecordId}');
    expect(JSON.parse(log[2]!.properties)).toEqual({
      Method: 'POST',
      Path: '/v1/api-keys',
      ApiKeyId: 1,
      OwnerId: 'admin',
      RecordId: made.apiKeyId,
    });
    expect(JSON.parse(log[1]!.properties)).toEqual({
      Method: 'PUT',
      Path: '/v1/api-keys',
      ApiKeyId: 1,
      OwnerId: 'admin',
      RecordId: made.apiKeyId,
      Changed: ['name', 'revoked'],
    });
    const all = JSON.stringify(log);
    expect(all).not.toContain(made.key);
    expect(all).not.toContain(svc.adminKey);
  });

  it('a write by another key names that key and its owner', async () => {
    const { addUserWithKey } = await import('../helpers/service.js');
    const key = await addUserWithKey(svc, 'ops', 'Administrator', 7);
    const r = await runCli(['keys', 'create', '--perm', '1', '-o', 'json'], { env: envFor(svc, key) });
    const made = JSON.parse(r.stdout);
    const [e] = await entries(svc);
    expect(e!.message).toBe(`POST /v1/api-keys by API key 2 of user ops, record ${made.apiKeyId}`);
    expect(JSON.parse(e!.properties)).toMatchObject({ ApiKeyId: 2, OwnerId: 'ops' });
  });

  it('failed writes (400, 403, 404) leave no Information entry', async () => {
    const { addUserWithKey } = await import('../helpers/service.js');
    const reader = await addUserWithKey(svc, 'reader', 'Administrator', 1);
    expect((await lic(svc, ['keys', 'create', '--perm', '1', '--owner', 'ghost'])).code).toBe(1);
    expect((await lic(svc, ['keys', 'update', '999', '--name', 'x'])).code).toBe(4);
    expect((await lic(svc, ['keys', 'delete', '999', '--yes'])).code).toBe(4);
    expect((await runCli(['keys', 'create', '--perm', '1'], { env: envFor(svc, reader) })).code).toBe(3);
    expect((await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, rawBody: '{' })).status).toBe(400);
    expect(await entries(svc)).toEqual([]);
  });

  it.each([
    ['no key', undefined, 'missing x-api-key header'],
    ['an unknown key', 'api_000000000000000000000000', 'unknown API key'],
  ])('a failed authentication (%s) writes one Warning naming the reason, never the key', async (_w, key, reason) => {
    clock.t = T0 + 5000;
    const r = await http(svc, 'DELETE', '/v1/api-keys/7', key ? { key } : {});
    expect(r.status).toBe(401);
    const log = await entries(svc);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      level: 'Warning',
      message: `Authentication failed for DELETE /v1/api-keys/7: ${reason}`,
      messageTemplate: 'Authentication failed for {Method} {Path}: {Reason}',
      timeStamp: '2025-01-18T10:00:05.000Z',
    });
    expect(JSON.parse(log[0]!.properties)).toEqual({
      Method: 'DELETE',
      Path: '/v1/api-keys/7',
      Reason: reason,
      RemoteAddress: '127.0.0.1',
    });
    if (key) expect(JSON.stringify(log)).not.toContain(key);
  });

  it('revoked and expired keys are logged as Warnings too', async () => {
    const made = JSON.parse(
      (await lic(svc, ['keys', 'create', '--perm', '7', '--expires', '2025-01-18T11:00:00Z', '--force', '-o', 'json'])).stdout,
    );
    clock.t = T0 + 2 * H;
    expect((await runCli(['log', 'list'], { env: envFor(svc, made.key) })).code).toBe(3);
    const warnings = await entries(svc, `&filter=${encodeURIComponent('Level = "Warning"')}`);
    expect(warnings.map((e) => e.message)).toEqual(['Authentication failed for GET /v1/log: API key has expired']);
    expect(JSON.stringify(warnings)).not.toContain(made.key);
  });
});
