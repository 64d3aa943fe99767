/**
 * `lic keys rotate` in-process against the real service (contract §3, §4): the new key
 * copies owner, permissions and description, the old one expires after the grace (or is
 * revoked at once), a dry run sends no write, a refused second step is reported with the
 * command that finishes it, and the new secret never reaches stderr or a --verbose trace.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { oldKeyChange, registerKeysRotate, rotatedName, type KeysRotateOptions } from '../../../src/commands/keys/rotate.js';
import type { CommandDeps } from '../../../src/cli/deps.js';
import { envFor, runCli, tempDir, type RunOptions } from '../../helpers/cli.js';
import { startRecordingProxy } from '../../helpers/recording-proxy.js';
import { addUserWithKey, http } from '../../helpers/service.js';
import { useService } from '../../helpers/fixtures.js';

const NOW = new Date('2030-01-01T12:00:00.000Z');
const now = () => NOW;

const { svc } = useService({ now });

const lic = (args: string[], o: RunOptions & { url?: string } = {}) =>
  runCli(args, { now, ...o, env: { ...envFor({ url: o.url ?? svc.url }, svc.adminKey), ...o.env } });

async function listed(id: number) {
  const r = await http(svc, 'GET', `/v1/api-keys?filter=${encodeURIComponent(`Id = ${id}`)}`, { key: svc.adminKey });
  return r.body.apiKeys[0];
}

/** A key to rotate, made over HTTP: owner sales1 (Sales), permissions rw, a description and an expiry a year ahead. */
async function oldKey(name = 'ci'): Promise<{ id: number; key: string }> {
  // the new keys of earlier tests' rotations go, so each test's rotation gets the plain `ci-2030-01-01` (not `-2`, `-3`)
  svc.db.prepare("DELETE FROM api_keys WHERE name LIKE 'ci-2030-01-01%'").run();
  await addUserWithKey(svc, 'sales1', 'Sales', 0);
  const r = await http(svc, 'POST', '/v1/api-keys', {
    key: svc.adminKey,
    body: { apiKey: { name, ownerId: 'sales1', permissions: 3, description: 'CI pipeline', expireDate: '2031-01-01T00:00:00.000Z' } },
  });
  expect(r.status).toBe(200);
  return { id: r.body.apiKeyId, key: r.body.key };
}

describe('keys rotate', () => {
  it("makes a key with the old one's owner, permissions and description, prints it once, and expires the old one after the grace", async () => {
    const old = await oldKey('ci-2029-06-01');
    // stderr a terminal: the success note about the old key is shown there
    const r = await lic(['keys', 'rotate', String(old.id), '--grace', '3d'], { stderrTTY: true });
    expect(r.code, r.stderr).toBe(0);
    const m =
      /^newKeyId\t(\d+)\nnewKeyName\tci-2030-01-01\nkey\t(api_[a-z0-9]{24})\noldKeyId\t(\d+)\noldKeyExpireDate\t(.+)\noldKeyRevoked\tno\n$/.exec(
        r.stdout,
      );
    expect(m, r.stdout).not.toBeNull();
    const [, newId, secret, oldId, expiry] = m!;
    expect(Number(oldId)).toBe(old.id);
    expect(expiry).toBe('2030-01-04T12:00:00.000Z');
    expect(await listed(Number(newId))).toMatchObject({
      name: 'ci-2030-01-01',
      ownerId: 'sales1',
      permissions: 3,
      description: 'CI pipeline',
      expireDate: null,
      revoked: false,
    });
    expect(await listed(old.id)).toMatchObject({ expireDate: '2030-01-04T12:00:00.000Z', revoked: false });
    // the new key works with its owner's role (Sales may read resources)
    expect((await http(svc, 'GET', '/v1/resources?take=0', { key: secret })).status).toBe(200);
    expect(r.stderr).toContain('Store this API key now');
    expect(r.stderr).toContain(`API key ${old.id} expires at 2030-01-04T12:00:00.000Z`);
    expect(r.stderr).not.toContain(secret!);
  });

  it('--grace 0 revokes the old key at once; -o json gives the new id and secret and the old expiry', async () => {
    const old = await oldKey();
    const r = await lic(['keys', 'rotate', String(old.id), '--grace', '0', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body).toEqual({
      newKey: { id: expect.any(Number), name: 'ci-2030-01-01', key: expect.stringMatching(/^api_[a-z0-9]{24}$/) },
      oldKey: { id: old.id, expireDate: '2030-01-01T12:00:00.000Z', revoked: true, updated: true },
    });
    expect((await http(svc, 'GET', '/v1/resources?take=0', { key: old.key })).status).toBe(401);
    expect((await http(svc, 'GET', '/v1/resources?take=0', { key: body.newKey.key })).status).toBe(200);
  });

  it('never extends the old key: an expiry sooner than the grace is kept', async () => {
    const old = await oldKey();
    const r = await lic(['keys', 'rotate', String(old.id), '--grace', '366d', '-o', 'json'], { stderrTTY: true });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).oldKey).toEqual({ id: old.id, expireDate: '2031-01-01T00:00:00.000Z', revoked: false, updated: false });
    expect((await listed(old.id)).expireDate).toBe('2031-01-01T00:00:00.000Z');
    expect(r.stderr).toContain('left unchanged');
  });

  it('--key-file writes the secret there (mode 0600, replacing the old file), never to stdout or stderr', async () => {
    const old = await oldKey();
    const file = join(tempDir(), 'ci.key');
    const first = await lic(['keys', 'rotate', String(old.id), '--key-file', file, '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    const body = JSON.parse(first.stdout);
    expect(body.newKey).toEqual({ id: expect.any(Number), name: 'ci-2030-01-01', keyFile: file });
    const secret = readFileSync(file, 'utf8').trim();
    expect(secret).toMatch(/^api_[a-z0-9]{24}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await listed(body.newKey.id)).keyPrefix).toBe(secret.slice(0, 8));
    expect(first.stdout + first.stderr).not.toContain(secret);
    // rotating again replaces the file with the next key
    const second = await lic(['keys', 'rotate', String(body.newKey.id), '--key-file', file]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(new RegExp(`^keyFile\\t${file}$`, 'm'));
    expect(readFileSync(file, 'utf8').trim()).not.toBe(secret);
  });

  it('--dry-run prints the POST and the PUT and sends no write', async () => {
    const old = await oldKey();
    const proxy = await startRecordingProxy(svc.url);
    try {
      const before = (await http(svc, 'GET', '/v1/api-keys?take=0', { key: svc.adminKey })).body.totalApiKeysCount;
      const r = await lic(['keys', 'rotate', String(old.id), '--grace', '12h', '--dry-run'], { url: proxy.url });
      expect(r.code, r.stderr).toBe(0);
      const plans = r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(plans.map((p) => [p.method, new URL(p.url).pathname])).toEqual([
        ['POST', '/v1/api-keys'],
        ['PUT', '/v1/api-keys'],
      ]);
      expect(plans[0].body).toEqual({ apiKey: { name: 'ci-2030-01-01', ownerId: 'sales1', permissions: 3, description: 'CI pipeline' } });
      expect(plans[1].body).toEqual({ apiKey: { id: old.id, expireDate: '2030-01-02T00:00:00.000Z' } });
      expect(r.stdout).not.toContain(svc.adminKey);
      expect(proxy.seen.every((s) => s.startsWith('GET '))).toBe(true);
      expect((await http(svc, 'GET', '/v1/api-keys?take=0', { key: svc.adminKey })).body.totalApiKeysCount).toBe(before);
    } finally {
      await proxy.close();
    }
  });

  it('a refused PUT: the new key is printed, stderr says the old key is unchanged and how to finish; exit 1; no secret in stderr or the --verbose trace', async () => {
    const old = await oldKey();
    const proxy = await startRecordingProxy(svc.url, {
      fail: (req) =>
        req.startsWith('PUT ') ? { status: 500, body: { success: false, code: 13, message: 'database is locked' } } : undefined,
    });
    try {
      const r = await lic(['--verbose', 'keys', 'rotate', String(old.id), '--grace', '7d', '-o', 'json'], { url: proxy.url });
      expect(r.code).toBe(1);
      const body = JSON.parse(r.stdout);
      expect(body.oldKey).toEqual({ id: old.id, expireDate: '2031-01-01T00:00:00.000Z', revoked: false, updated: false });
      expect(r.stderr).toContain(
        `rotation incomplete: API key ${body.newKey.id} (ci-2030-01-01) was created and works; API key ${old.id} is unchanged: expires at 2031-01-01T00:00:00.000Z.`,
      );
      expect(r.stderr).toContain(`finish with: lic keys update ${old.id} --expires 2030-01-08T12:00:00.000Z`);
      expect(r.stderr).toMatch(/^lic: database is locked \(HTTP 500, code 13, PUT \/v1\/api-keys\)$/m);
      expect(r.stderr).toContain('> POST'); // the trace is on
      expect(r.stderr).not.toContain(body.newKey.key);
      expect(r.stderr).not.toContain(svc.adminKey);
      // the state stderr described is the real one
      expect(await listed(old.id)).toMatchObject({ expireDate: '2031-01-01T00:00:00.000Z', revoked: false });
      expect((await http(svc, 'GET', '/v1/resources?take=0', { key: body.newKey.key })).status).toBe(200);
      // and the command it gave finishes the job
      const fin = await lic(['keys', 'update', String(old.id), '--expires', '2030-01-08T12:00:00.000Z']);
      expect(fin.code, fin.stderr).toBe(0);
      expect((await listed(old.id)).expireDate).toBe('2030-01-08T12:00:00.000Z');
    } finally {
      await proxy.close();
    }
  });

  it('rotating the key lic itself runs with says so on stderr', async () => {
    const self = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { name: 'ops', permissions: 7 } } });
    const r = await lic(['keys', 'rotate', String(self.body.apiKeyId), '--grace', '1h'], { env: { LIC_API_KEY: self.body.key } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`API key ${self.body.apiKeyId} looks like the key lic itself uses (LIC_API_KEY)`);
    expect(r.stderr).not.toContain(self.body.key);
  });

  it('a missing key is exit 4 and creates nothing', async () => {
    const before = (await http(svc, 'GET', '/v1/api-keys?take=0', { key: svc.adminKey })).body.totalApiKeysCount;
    const r = await lic(['keys', 'rotate', '99999']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('lic: no API key with id 99999\n');
    expect((await http(svc, 'GET', '/v1/api-keys?take=0', { key: svc.adminKey })).body.totalApiKeysCount).toBe(before);
  });

  it.each([
    [['--grace', '5x'], "option '--grace <duration>' argument '5x' is invalid"],
    [['--grace', '-1d'], "option '--grace <duration>' argument '-1d' is invalid"],
    [['--grace', '400d'], 'up to 366d'],
    [['--expires', 'soon'], "option '--expires <time>' argument 'soon' is invalid"],
    [['--key-file', '/nonexistent-dir/ci.key'], "--key-file /nonexistent-dir/ci.key: its directory can't be written (no such file)"],
  ])('bad input %j is exit 2 naming the flag, and nothing is created', async (flags, message) => {
    const old = await oldKey();
    const before = (await http(svc, 'GET', '/v1/api-keys?take=0', { key: svc.adminKey })).body.totalApiKeysCount;
    const r = await lic(['keys', 'rotate', String(old.id), ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
    expect((await http(svc, 'GET', '/v1/api-keys?take=0', { key: svc.adminKey })).body.totalApiKeysCount).toBe(before);
  });
});

describe('keys rotate options (the register seam, no network)', () => {
  const parse = async (args: string[]): Promise<KeysRotateOptions> => {
    const program = new Command().exitOverride();
    let got: KeysRotateOptions | undefined;
    const deps = { ctx: { now } as CommandDeps['ctx'], runtimeOf: () => ({}) as ReturnType<CommandDeps['runtimeOf']> };
    registerKeysRotate(program, deps, async (o) => void (got = o));
    await program.parseAsync(['rotate', ...args], { from: 'user' });
    return got!;
  };
  it.each([
    [['5'], { id: 5, grace: 7 * 86_400_000, keyFile: undefined, expires: undefined }],
    [['5', '--grace', '0'], { id: 5, grace: 0, keyFile: undefined, expires: undefined }],
    [['5', '--grace', '90s'], { id: 5, grace: 90_000, keyFile: undefined, expires: undefined }],
    [['5', '--grace', '2w', '--key-file', 'k'], { id: 5, grace: 14 * 86_400_000, keyFile: 'k', expires: undefined }],
    [['5', '--expires', '30d'], { id: 5, grace: 7 * 86_400_000, keyFile: undefined, expires: '2030-01-31T12:00:00.000Z' }],
  ])('%j → %j', async (args, expected) => {
    expect(await parse(args)).toEqual(expected);
  });
});

describe('rotatedName, oldKeyChange', () => {
  it('replaces an earlier date suffix instead of stacking them; names an unnamed key after its id', () => {
    expect(rotatedName({ id: 3, name: 'deploy' }, NOW)).toBe('deploy-2030-01-01');
    expect(rotatedName({ id: 3, name: 'deploy-2029-10-02' }, NOW)).toBe('deploy-2030-01-01');
    expect(rotatedName({ id: 3, name: '' }, NOW)).toBe('key-3-2030-01-01');
  });
  it('takes the first free -N when another key has the name (a second rotation the same day), and replaces -DATE-N too', () => {
    const taken = new Set(['deploy-2030-01-01', 'deploy-2030-01-01-2']);
    expect(rotatedName({ id: 3, name: 'deploy' }, NOW, taken)).toBe('deploy-2030-01-01-3');
    expect(rotatedName({ id: 3, name: 'deploy-2030-01-01-2' }, NOW, taken)).toBe('deploy-2030-01-01-3');
    expect(rotatedName({ id: 3, name: 'deploy-2029-12-31-4' }, NOW)).toBe('deploy-2030-01-01');
  });
  it('sets the expiry to now + grace only when that is sooner; grace 0 also revokes', () => {
    const base = { id: 1, revoked: false };
    expect(oldKeyChange({ ...base, expireDate: null }, NOW, 3_600_000)).toEqual({ id: 1, expireDate: '2030-01-01T13:00:00.000Z' });
    expect(oldKeyChange({ ...base, expireDate: '2030-01-01T12:30:00.000Z' }, NOW, 3_600_000)).toEqual({ id: 1 });
    expect(oldKeyChange({ ...base, expireDate: null }, NOW, 0)).toEqual({ id: 1, expireDate: '2030-01-01T12:00:00.000Z', revoked: true });
  });
});
