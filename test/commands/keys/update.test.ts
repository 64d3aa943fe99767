/**
 * `lic keys update` in-process against the real service: only the flags given are sent,
 * what it prints, --expires never clearing the expiry, an unknown id, and its --dry-run.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useDryRun } from '../../helpers/dry-run.js';
import { http } from '../../helpers/service.js';
import { useKeysCli } from './_shared.js';

const { svc, lic, create, listed } = useKeysCli({ checkAfterAll: true });
const { proxy, dryRun } = useDryRun(svc);
let keyId: number;
beforeAll(async () => {
  const made = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { permissions: 1, name: 'victim' } } });
  keyId = made.body.apiKeyId;
});

describe('keys update', () => {
  it('sends only the flags given; -o json prints the envelope', async () => {
    const { id } = await create(['--perm', '1', '--name', 'n0', '--description', 'd0', '--expires', '2031-01-01']);
    const before = await listed(id);
    const r = await lic(['keys', 'update', String(id), '--perm', 'rwd', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"success":true,"code":0,"message":"OK"}\n');
    expect(await listed(id)).toEqual({ ...before, permissions: 7 });
    await lic(['keys', 'update', String(id), '--name', 'n1', '--description', '']);
    expect(await listed(id)).toEqual({ ...before, permissions: 7, name: 'n1', description: '' });
    await lic(['keys', 'update', String(id), '--expires', '2032-02-02']);
    expect((await listed(id)).expireDate).toBe('2032-02-02T00:00:00.000Z');
  });

  it('without -o json: stdout empty, one line on stderr (a terminal; in a pipe none); rm (the delete alias) -o json: the envelope on stdout, nothing on stderr', async () => {
    const { id } = await create(['--perm', '1']);
    const u = await lic(['keys', 'update', String(id), '--name', 'n2'], { stderrTTY: true });
    expect([u.code, u.stdout, u.stderr]).toEqual([0, '', `Updated API key ${id}.\n`]);
    const piped = await lic(['keys', 'update', String(id), '--name', 'n3']);
    expect([piped.code, piped.stdout, piped.stderr]).toEqual([0, '', '']);
    const d = await lic(['keys', 'rm', String(id), '--yes', '-o', 'json']);
    expect([d.code, d.stdout, d.stderr]).toEqual([0, '{"success":true,"code":0,"message":"OK"}\n', '']);
    expect(await listed(id)).toBeUndefined();
  });

  it('an unknown id is exit 4', async () => {
    const r = await lic(['keys', 'update', '999999', '--name', 'x']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('lic: no API key with id 999999 (HTTP 404, code 5, PUT /v1/api-keys)\n');
  });

  it('keys update --expires never clears the expiry (expireDate: null on the wire, any case); the key works again', async () => {
    const k = await create(['--perm', '7', '--expires', '2020-01-01', '--force']);
    expect((await lic(['keys', 'list'], { key: k.key })).code).toBe(3);
    const r = await lic(['keys', 'update', String(k.id), '--expires', 'NEVER']);
    expect(r.code, r.stderr).toBe(0);
    expect(svc.db.prepare('SELECT expire_date FROM api_keys WHERE id = ?').pluck().get(k.id)).toBeNull();
    expect((await lic(['keys', 'list'], { key: k.key })).code).toBe(0);
  });
});

describe('--dry-run prints the request and sends no write', () => {
  it('keys update: the PUT body of only the flags given', async () => {
    const { plan } = await dryRun(['keys', 'update', String(keyId), '--revoke', '--dry-run']);
    expect(plan).toMatchObject({ method: 'PUT', url: `${proxy.url}/v1/api-keys`, body: { apiKey: { id: keyId, revoked: true } } });
  });
});
