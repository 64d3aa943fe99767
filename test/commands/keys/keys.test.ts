/**
 * `lic keys create|list|update|delete` in-process against the real service (contract §3,
 * §4): the created key works with exactly the rights of its bits and its owner's role,
 * revocation and expiry bite at once, and the full key never leaks.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli, tempDir, type RunOptions } from '../../helpers/cli.js';
import { addUserWithKey, http } from '../../helpers/service.js';
import { useService } from '../../helpers/fixtures.js';

/** every output of every run here, to check no full key except a freshly created one's ever shows */
const transcript: { args: string[]; stdout: string; stderr: string }[] = [];
const secrets = new Set<string>();

const { svc } = useService();
beforeAll(async () => {
  secrets.add(svc.adminKey);
});

async function lic(args: string[], o: RunOptions & { key?: string } = {}) {
  const r = await runCli(args, { ...o, env: { ...envFor(svc, o.key ?? svc.adminKey), ...o.env } });
  transcript.push({ args, stdout: r.stdout, stderr: r.stderr });
  return r;
}

/** Creates a key through the CLI and returns its id and secret. */
async function create(flags: string[], o: RunOptions & { key?: string } = {}): Promise<{ id: number; key: string }> {
  const r = await lic(['keys', 'create', ...flags, '-o', 'json'], o);
  expect(r.code, r.stderr).toBe(0);
  const body = JSON.parse(r.stdout);
  secrets.add(body.key);
  return { id: body.apiKeyId, key: body.key };
}

async function listed(id: number) {
  const r = await http(svc, 'GET', `/v1/api-keys?filter=${encodeURIComponent(`Id = ${id}`)}`, { key: svc.adminKey });
  return r.body.apiKeys[0];
}

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

  it('keys update --expires never clears the expiry (expireDate: null on the wire, any case); the key works again', async () => {
    const k = await create(['--perm', '7', '--expires', '2020-01-01', '--force']);
    expect((await lic(['keys', 'list'], { key: k.key })).code).toBe(3);
    const r = await lic(['keys', 'update', String(k.id), '--expires', 'NEVER']);
    expect(r.code, r.stderr).toBe(0);
    expect(svc.db.prepare('SELECT expire_date FROM api_keys WHERE id = ?').pluck().get(k.id)).toBeNull();
    expect((await lic(['keys', 'list'], { key: k.key })).code).toBe(0);
  });

  it('an unknown key is exit 3 naming the cause', async () => {
    const r = await lic(['keys', 'list'], { key: 'api_000000000000000000000000' });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('lic: unknown API key (HTTP 401, code 16, GET /v1/api-keys)\n');
  });
});

describe('keys list', () => {
  it('piped: tab-separated, no header, the prefix but never the key', async () => {
    const { id, key } = await create(['--perm', '5', '--name', 'listed', '--description', 'two\twords']);
    const r = await lic(['keys', 'list', '--take', '1000']);
    expect(r.code).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith(`${id}\t`))!;
    const k = await listed(id);
    expect(line).toBe(`${id}\tlisted\tadmin\t5 r-d\t${key.slice(0, 8)}\t${k.createdAt}\t\tactive\ttwo words`);
    expect(r.stdout.split('\n')[0]).toMatch(/^1\tbootstrap\tadmin\t7 rwd\t/);
    expect(r.stdout).not.toContain('ID\tNAME');
    for (const s of secrets) expect(r.stdout).not.toContain(s);
  });

  it('-o json: the body unchanged (compared with a raw call); never the key', async () => {
    const r = await lic(['keys', 'list', '-o', 'json']);
    const raw = await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey });
    expect(JSON.parse(r.stdout)).toEqual(raw.body);
    expect(r.stdout).toBe(`${JSON.stringify(raw.body)}\n`);
    for (const s of secrets) expect(r.stdout).not.toContain(s);
  });

  it('on a TTY: a table with a header, never the key', async () => {
    const r = await lic(['keys', 'list'], { tty: true, env: { NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^\s*ID\s+NAME\s+OWNER\s+PERM\s+PREFIX/);
    expect(r.stdout).toContain('bootstrap');
    for (const s of secrets) expect(r.stdout).not.toContain(s);
  });

  it('--take and --skip page in id order', async () => {
    const all = (await http(svc, 'GET', '/v1/api-keys?take=1000', { key: svc.adminKey })).body.apiKeys.map((k: { id: number }) =>
      String(k.id),
    );
    const r = await lic(['keys', 'list', '--take', '2', '--skip', '1']);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(all.slice(1, 3));
  });
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
});

describe('keys delete: confirmation', () => {
  let configDir: string;
  beforeAll(async () => {
    configDir = tempDir();
    const r = await runCli(['profile', 'add', 'ci', '--base-url', svc.url, '--api-key-stdin'], { configDir, stdin: svc.adminKey });
    expect(r.code, r.stderr).toBe(0);
  });

  it('off a TTY without --yes: exit 2, nothing deleted', async () => {
    const { id } = await create(['--perm', '1']);
    const r = await runCli(['keys', 'delete', String(id)], { configDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`lic: refusing to delete API key ${id} without confirmation: not a terminal, so pass --yes\n`);
    expect(await listed(id)).toBeDefined();
  });

  it('on a TTY: the prompt names the profile, the host and the key; yes deletes', async () => {
    const { id } = await create(['--perm', '1']);
    const r = await runCli(['keys', 'delete', String(id)], { configDir, tty: true, confirm: [true] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.prompts).toEqual([`delete API key ${id} on ${new URL(svc.url).host} (profile ci)?`]);
    expect(await listed(id)).toBeUndefined();
  });

  it('on a TTY, answering no: exit 1, nothing deleted', async () => {
    const { id } = await create(['--perm', '1']);
    const r = await runCli(['keys', 'rm', String(id)], { configDir, tty: true, confirm: [false] });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('lic: cancelled: nothing was changed\n');
    expect(r.prompts).toHaveLength(1);
    expect(await listed(id)).toBeDefined();
  });

  it('Ctrl-C at the prompt: exit 130, nothing deleted', async () => {
    const { id } = await create(['--perm', '1']);
    const ctrlC = Object.assign(new Error('User force closed the prompt with SIGINT'), { name: 'ExitPromptError' });
    const r = await runCli(['keys', 'delete', String(id)], { configDir, tty: true, confirm: [ctrlC] });
    expect(r.code).toBe(130);
    expect(r.stderr).toBe('lic: interrupted\n');
    expect(await listed(id)).toBeDefined();
  });

  it('--yes on a TTY does not ask; a second delete of the same id is exit 4', async () => {
    const { id } = await create(['--perm', '1']);
    const r = await runCli(['keys', 'delete', String(id), '-y'], { configDir, tty: true });
    expect(r.code).toBe(0);
    expect(r.prompts).toEqual([]);
    const again = await runCli(['keys', 'delete', String(id), '--yes'], { configDir });
    expect(again.code).toBe(4);
    expect(again.stderr).toBe(`lic: no API key with id ${id} (HTTP 404, code 5, DELETE /v1/api-keys/${id})\n`);
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
    for (const t of transcript) {
      for (const s of secrets) {
        expect(t.stderr, `stderr of ${t.args.join(' ')}`).not.toContain(s);
        if (t.stdout.includes(s)) expect(t.args.slice(0, 2), `stdout of ${t.args.join(' ')}`).toEqual(['keys', 'create']);
      }
    }
  });
});
