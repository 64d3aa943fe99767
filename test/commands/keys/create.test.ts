/**
 * `lic keys create` in-process against the real service (contract §3, §4): what it prints
 * and sends, the created key working with exactly the rights of its bits and its owner's
 * role, revocation and expiry biting at once, its --dry-run, and the full key never leaking
 * (over every run of this file).
 */
import { describe, expect, it } from 'vitest';
import { useDryRun } from '../../helpers/dry-run.js';
import { addUserWithKey, http } from '../../helpers/service.js';
import { expectNoLeak, useKeysCli } from './_shared.js';

const { svc, transcript, secrets, lic, create, listed } = useKeysCli();
const { proxy, dryRun, prefix } = useDryRun(svc);

describe('keys create', () => {
  it('prints id and key (tab-separated when piped) and warns on stderr that it is shown once', async () => {
    const r = await lic(['keys', 'create', '--perm', '7']);
    expect(r.code).toBe(0);
    const m = /^id\t(\d+)\nkey\t(api_[a-z0-9]{24})\n$/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    secrets.add(m![2]!);
    expect(r.stderr).toBe('Store this API key now: it will not be shown again.\n');
    expect((await listed(Number(m![1]))).keyPrefix).toBe(m![2]!.slice(0, 8));
  });

  it('-o json prints the service body unchanged: envelope, apiKeyId, key', async () => {
    const r = await lic(['keys', 'create', '--perm', 'r', '-o', 'json']);
    const body = JSON.parse(r.stdout);
    secrets.add(body.key);
    expect(Object.keys(body)).toEqual(['success', 'code', 'message', 'apiKeyId', 'key']);
    expect(r.stdout).toBe(`${JSON.stringify(body)}\n`);
  });

  it('--name, --description, --expires (relative to the CLI clock) and --owner reach the service', async () => {
    await addUserWithKey(svc, 'sales1', 'Sales', 0);
    const now = () => new Date('2030-01-01T00:00:00.000Z');
    const { id } = await create(
      ['--perm', 'read,write', '--name', 'ci', '--description', 'for CI', '--expires', '90d', '--owner', 'sales1'],
      { now },
    );
    expect(await listed(id)).toMatchObject({
      name: 'ci',
      description: 'for CI',
      permissions: 3,
      ownerId: 'sales1',
      expireDate: '2030-04-01T00:00:00.000Z',
      revoked: false,
    });
    const { id: id2 } = await create(['--perm', '1', '--expires', '2031-06-30']);
    expect((await listed(id2)).expireDate).toBe('2031-06-30T00:00:00.000Z');
  });

  it("an unknown --owner is the service's 400: exit 1 naming the field", async () => {
    const before = (await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey })).body.totalApiKeysCount;
    const r = await lic(['keys', 'create', '--perm', '1', '--owner', 'ghost']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('lic: apiKey.ownerId "ghost" is not a known user (HTTP 400, code 3, POST /v1/api-keys)\n');
    expect(r.stdout).toBe('');
    expect((await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey })).body.totalApiKeysCount).toBe(before);
  });
});

describe('a created key has exactly the rights of its bits and its owner', () => {
  it('perm 1 (Read): GET works, POST is 403 → exit 3', async () => {
    const { key } = await create(['--perm', '1']);
    expect((await lic(['keys', 'list'], { key })).code).toBe(0);
    const r = await lic(['keys', 'create', '--perm', '1'], { key });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('lic: API key lacks the Write (2) permission needed for POST (HTTP 403, code 7, POST /v1/api-keys)\n');
    expect((await lic(['keys', 'delete', '1', '--yes'], { key })).code).toBe(3);
    expect((await lic(['log', 'purge', '--all', '--yes'], { key })).code).toBe(3);
  });

  it('perm 2 (Write): POST and PUT work, GET is 403 → exit 3', async () => {
    const { key } = await create(['--perm', 'w']);
    // a key grants only bits it holds: Write may make a Write key, not a Read one
    expect((await lic(['keys', 'create', '--perm', '1'], { key })).code).toBe(3);
    const made = await create(['--perm', '2'], { key });
    expect((await lic(['keys', 'update', String(made.id), '--name', 'by-writer'], { key })).code).toBe(0);
    expect((await listed(made.id)).name).toBe('by-writer');
    const r = await lic(['keys', 'list'], { key });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('API key lacks the Read (1) permission needed for GET');
    expect((await lic(['log', 'list'], { key })).code).toBe(3);
    expect((await lic(['keys', 'delete', String(made.id), '--yes'], { key })).code).toBe(3);
  });

  it('perm 4 (Delete): DELETE works, GET and POST are 403', async () => {
    const { key } = await create(['--perm', 'delete']);
    const victim = await create(['--perm', '1']);
    const r = await lic(['keys', 'delete', String(victim.id), '--yes'], { key, stderrTTY: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`Deleted API key ${victim.id}.\n`);
    expect(await listed(victim.id)).toBeUndefined();
    expect((await lic(['keys', 'list'], { key })).code).toBe(3);
    expect((await lic(['keys', 'create', '--perm', '1'], { key })).code).toBe(3);
  });

  it('perm 0: nothing at all', async () => {
    const { key } = await create(['--perm', '0']);
    for (const args of [
      ['keys', 'list'],
      ['log', 'list'],
      ['keys', 'create', '--perm', '1'],
      ['keys', 'delete', '1', '--yes'],
    ]) {
      expect((await lic(args, { key })).code).toBe(3);
    }
  });

  it.each([
    ['LicenseManager', 0],
    ['Sales', 0],
    ['Customer', 3],
  ])('a key owned by a %s user is 403 on /v1/api-keys even with perm 7', async (role, logListExit) => {
    const user = `u-${role}`;
    await addUserWithKey(svc, user, role, 0, role === 'Customer' ? 'C-12345678' : undefined);
    const { key } = await create(['--perm', '7', '--owner', user]);
    for (const args of [
      ['keys', 'list'],
      ['keys', 'create', '--perm', '1'],
      ['keys', 'update', '1', '--name', 'x'],
      ['keys', 'delete', '1', '--yes'],
    ]) {
      const r = await lic(args, { key });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`role ${role} may not call`);
    }
    // the log is readable by LicenseManager and Sales, not by Customer
    expect((await lic(['log', 'list'], { key })).code).toBe(logListExit);
    expect((await lic(['log', 'purge', '--all', '--yes'], { key })).code).toBe(3);
    // nothing changed: the bootstrap key is still there, named as before
    expect((await listed(1)).name).toBe('bootstrap');
  });

  it('revoked → 401 (exit 3) on the very next call; unrevoked → works again', async () => {
    const { id, key } = await create(['--perm', '7']);
    expect((await lic(['keys', 'list'], { key })).code).toBe(0);
    const rev = await lic(['keys', 'update', String(id), '--revoke'], { stderrTTY: true });
    expect(rev.code).toBe(0);
    expect(rev.stderr).toBe(`Updated API key ${id}.\n`);
    const r = await lic(['keys', 'list'], { key });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('lic: API key is revoked (HTTP 401, code 16, GET /v1/api-keys)\n');
    expect((await listed(id)).revoked).toBe(true);
    expect((await lic(['keys', 'update', String(id), '--unrevoke'])).code).toBe(0);
    expect((await lic(['keys', 'list'], { key })).code).toBe(0);
  });

  it('expired → 401 (exit 3), both at creation and by update (a past --expires needs --force)', async () => {
    const past = await create(['--perm', '7', '--expires', '2020-01-01', '--force']);
    const r = await lic(['keys', 'list'], { key: past.key });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('lic: API key has expired (HTTP 401, code 16, GET /v1/api-keys)\n');
    const later = await create(['--perm', '7', '--expires', '30d']);
    expect((await lic(['keys', 'list'], { key: later.key })).code).toBe(0);
    expect((await lic(['keys', 'update', String(later.id), '--expires', '2020-01-01T00:00:00Z', '--force'])).code).toBe(0);
    expect((await lic(['keys', 'list'], { key: later.key })).code).toBe(3);
  });

  it('--expires in the past without --force is a usage error naming the flag and --force; nothing is sent', async () => {
    const before = (await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey })).body.totalApiKeysCount;
    const now = () => new Date('2030-01-01T00:00:00Z');
    const c = await lic(['keys', 'create', '--perm', '7', '--expires', '2029-12-31'], { now });
    expect(c.code).toBe(2);
    expect(c.stderr).toBe(
      'lic: --expires 2029-12-31T00:00:00.000Z is in the past; the key would be expired at once (add --force to set it anyway)\n',
    );
    expect((await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey })).body.totalApiKeysCount).toBe(before);
    const { id } = await create(['--perm', '1', '--expires', '30d']);
    const was = (await listed(id)).expireDate;
    const u = await lic(['keys', 'update', String(id), '--expires', '2020-06-01', '--name', 'renamed']);
    expect(u.code).toBe(2);
    expect(u.stderr).toContain('--expires 2020-06-01T00:00:00.000Z is in the past');
    expect(await listed(id)).toMatchObject({ expireDate: was, name: '' });
    // the present moment itself is not in the future either
    expect((await lic(['keys', 'create', '--perm', '1', '--expires', '2030-01-01T00:00:00Z'], { now })).code).toBe(2);
  });

  it('an unknown key is exit 3 naming the cause', async () => {
    const r = await lic(['keys', 'list'], { key: 'api_000000000000000000000000' });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('lic: unknown API key (HTTP 401, code 16, GET /v1/api-keys)\n');
  });
});

describe('--dry-run prints the request and sends no write', () => {
  it('keys create: method, url, headers (key redacted to its prefix), body', async () => {
    const { plan, sent } = await dryRun(['keys', 'create', '--perm', 'rw', '--name', 'ci', '--dry-run']);
    expect(plan).toEqual({
      method: 'POST',
      url: `${proxy.url}/v1/api-keys`,
      headers: {
        'user-agent': expect.stringMatching(/^lic\//),
        accept: 'application/json',
        'content-type': 'application/json',
        'x-api-key': prefix(),
      },
      body: { apiKey: { permissions: 3, name: 'ci' } },
    });
    expect(sent).toEqual([]);
  });
});

describe('the full key never leaks', () => {
  it('not in the log (table or json: messages, templates, properties)', async () => {
    // make sure each kind of write happened at least once
    const { id } = await create(['--perm', '1']);
    await lic(['keys', 'update', String(id), '--revoke']);
    await lic(['keys', 'delete', String(id), '--yes']);
    await lic(['keys', 'list'], { key: 'api_zzzzzzzzzzzzzzzzzzzzzzzz' });
    const json = await lic(['log', 'list', '--take', '1000', '-o', 'json']);
    const table = await lic(['log', 'list', '--take', '1000']);
    const tty = await lic(['log', 'list', '--take', '1000'], { tty: true });
    const raw = await http(svc, 'GET', '/v1/log?take=1000', { key: svc.adminKey });
    expect(raw.body.logEntries.length).toBeGreaterThan(10);
    for (const s of secrets) {
      for (const out of [json.stdout, table.stdout, tty.stdout, JSON.stringify(raw.body)]) expect(out).not.toContain(s);
    }
    // nor the failed attempt's key
    expect(JSON.stringify(raw.body)).not.toContain('api_zzzzzzzzzzzzzzzzzzzzzzzz');
    // the raw database holds hashes only
    const stored = JSON.stringify(svc.db.prepare('SELECT * FROM api_keys').all());
    for (const s of secrets) expect(stored).not.toContain(s);
  });

  it('not in --verbose traces or error messages of any command', async () => {
    const runs = [
      await lic(['keys', 'list', '-v']),
      await lic(['log', 'list', '-v']),
      await lic(['keys', 'update', '999999', '--name', 'x', '-v']),
      await lic(['keys', 'delete', '999999', '--yes', '-v']),
      await lic(['keys', 'create', '--perm', '1', '--owner', 'ghost', '-v']),
      await lic(['keys', 'list', '-v'], { key: 'api_yyyyyyyyyyyyyyyyyyyyyyyy' }),
    ];
    for (const r of runs) {
      expect(r.stderr).toContain('(x-api-key: [redacted])');
      expect(r.stderr + r.stdout).not.toContain(svc.adminKey);
      expect(r.stderr).not.toContain('api_yyyyyyyyyyyyyyyyyyyyyyyy');
    }
    const made = await lic(['keys', 'create', '--perm', '1', '-v']);
    const key = /key\t(\S+)/.exec(made.stdout)![1]!;
    secrets.add(key);
    expect(made.stderr).not.toContain(key);
  });

  it('over the whole transcript of this file: a full key only ever in the stdout of the create that made it', () => {
    expect(transcript.length).toBeGreaterThan(50);
    expectNoLeak(transcript, secrets);
  });
});
