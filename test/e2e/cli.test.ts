/**
 * The real executable (bin/lic.js → dist/) spawned against the real service: exit codes,
 * data on stdout only, no stack traces, TTY vs pipe (util-linux `script` for a pty).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertLog } from '../cli/list/harness.js';
import { tempDir } from '../helpers/cli.js';
import { closedPort } from '../helpers/fake-server.js';
import { http } from '../helpers/service.js';
import { spawnLic, hasScript, spawnLicTty } from '../helpers/spawn.js';
import { useService } from '../helpers/fixtures.js';

if (!hasScript) console.warn('test/e2e/cli.test.ts: util-linux `script` not found; skipping the TTY tests');

const ANSI = /\u001b\[[0-9;]*m/;
let env: Record<string, string>;
const { svc } = useService();
beforeAll(async () => {
  env = { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey, LIC_CONFIG_DIR: tempDir() };
});

describe('piped: exit codes, stdout carries data only', () => {
  it('0: keys list → tab-separated rows on stdout, nothing on stderr', async () => {
    const r = await spawnLic(['keys', 'list'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^1\tbootstrap\tadmin\t7 rwd\tapi_[a-z0-9]{4}\t/);
    expect(r.stdout).not.toMatch(ANSI);
    expect(r.stderr).toBe('');
  });

  it('0: -o json is one line equal to the raw body', async () => {
    const r = await spawnLic(['keys', 'list', '-o', 'json'], { env });
    const raw = await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey });
    expect(r.stdout).toBe(`${JSON.stringify(raw.body)}\n`);
  });

  it('0: keys create → id and key on stdout, the warning on stderr', async () => {
    const r = await spawnLic(['keys', 'create', '--perm', 'rw'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^id\t\d+\nkey\tapi_[a-z0-9]{24}\n$/);
    expect(r.stderr).toBe('Store this API key now: it will not be shown again.\n');
  });

  it('1: a 400 from the service', async () => {
    const r = await spawnLic(['keys', 'create', '--perm', '1', '--owner', 'ghost'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('lic: apiKey.ownerId "ghost" is not a known user (HTTP 400, code 3, POST /v1/api-keys)\n');
  });

  it('2: usage, nothing on stdout', async () => {
    const r = await spawnLic(['keys', 'create', '--perm', 'rwx'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("option '--perm <perm>' argument 'rwx' is invalid");
  });

  it('2: a destructive verb off a terminal without --yes', async () => {
    const r = await spawnLic(['log', 'purge', '--all'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not a terminal, so pass --yes');
  });

  it('3: no key configured (empty profile store)', async () => {
    const r = await spawnLic(['log', 'list'], { env: { LIC_CONFIG_DIR: tempDir(), LIC_BASE_URL: svc.url } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('no API key');
  });

  it('3: 401 with a wrong key', async () => {
    const r = await spawnLic(['log', 'list'], { env: { ...env, LIC_API_KEY: 'api_000000000000000000000000' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('lic: unknown API key (HTTP 401, code 16, GET /v1/log)\n');
  });

  it('4: unknown id', async () => {
    const r = await spawnLic(['keys', 'delete', '9999', '--yes'], { env });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
  });

  it('5: connection refused, no stack trace; LIC_DEBUG=1 shows one', async () => {
    const dead = { ...env, LIC_BASE_URL: `http://127.0.0.1:${await closedPort()}` };
    const r = await spawnLic(['keys', 'create', '--perm', '1', '--retries', '0'], { env: dead });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^lic: cannot connect to http:\/\/127\.0\.0\.1:\d+: connection refused/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const d = await spawnLic(['keys', 'create', '--perm', '1', '--retries', '0'], { env: { ...dead, LIC_DEBUG: '1' } });
    expect(d.code).toBe(5);
    expect(d.stderr).toMatch(/\n\s+at /);
  });

  it('profile add reads the key from real stdin; the store is mode 0600', async () => {
    const dir = tempDir();
    const r = await spawnLic(['profile', 'add', 'ci', '--base-url', svc.url, '--api-key-stdin'], {
      env: { LIC_CONFIG_DIR: dir },
      stdin: `${svc.adminKey}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    // spawned without DBUS_SESSION_BUS_ADDRESS: the real keyring binding finds no session bus, so the file, with one notice
    expect(r.stderr.split('\n').filter((l) => l.startsWith('lic: no keyring reachable (no D-Bus session bus'))).toHaveLength(1);
    const file = join(dir, 'profiles.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.ci.apiKey).toBe(svc.adminKey);
    const list = await spawnLic(['profile', 'list'], { env: { LIC_CONFIG_DIR: dir } });
    expect(list.stdout).toBe(`ci\t${svc.url}\t${svc.adminKey.slice(0, 8)}…\tfile\t*\n`);
    const used = await spawnLic(['keys', 'list'], { env: { LIC_CONFIG_DIR: dir } });
    expect(used.code).toBe(0);
  });

  it('lic with no command: help on stderr, exit 2', async () => {
    const r = await spawnLic([], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Usage: lic');
  });
});

describe.skipIf(!hasScript)('on a terminal (pty via `script`)', () => {
  it('keys list: a colored table', async () => {
    const r = await spawnLicTty(['keys', 'list'], { env });
    expect(r.code).toBe(0);
    expect(r.output).toMatch(/^\u001b\[1mID\u001b\[22m {2}/);
    expect(r.output).toContain('\u001b[1mID\u001b[22m');
    expect(r.output).toContain('bootstrap');
  });

  it('NO_COLOR and --no-color: the table without color', async () => {
    for (const [args, extra] of [
      [['keys', 'list'], { NO_COLOR: '1' }],
      [['--no-color', 'keys', 'list'], {}],
    ] as const) {
      const r = await spawnLicTty([...args], { env: { ...env, ...extra } });
      expect(r.code).toBe(0);
      expect(r.output).toMatch(/^ID {2}NAME {2,}/);
      expect(r.output).not.toMatch(ANSI);
    }
  });

  it('-o json: pretty-printed', async () => {
    const r = await spawnLicTty(['keys', 'list', '-o', 'json'], { env });
    expect(r.output).toMatch(/^\{\r?\n {2}"success": true,/);
  });

  // with --api-key-stdin too: a key typed on stdin would show as it is typed
  it.each([[[]], [['--api-key-stdin']]])('profile add %j on a terminal: a hidden prompt; the key is not echoed', async (flags) => {
    const dir = tempDir();
    const r = await spawnLicTty(['profile', 'add', 'typed', '--base-url', svc.url, ...flags], {
      env: { LIC_CONFIG_DIR: dir },
      input: `${svc.adminKey}\r`,
    });
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('API key for typed:');
    expect(r.output).not.toContain(svc.adminKey);
    expect(JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8')).profiles.typed.apiKey).toBe(svc.adminKey);
  });
});

// purging mutates the whole log: its own service, so no other test's entries (or order) matter
describe.skipIf(!hasScript)('on a terminal: log purge', () => {
  const { svc } = useService();

  it('log purge asks, naming profile and host; "n" → exit 1 and nothing deleted; "y" → purged', async () => {
    const dir = tempDir();
    insertLog(svc.db, 3);
    await spawnLic(['profile', 'add', 'tty', '--base-url', svc.url, '--api-key-stdin'], {
      env: { LIC_CONFIG_DIR: dir },
      stdin: svc.adminKey,
    });
    const before = (await http(svc, 'GET', '/v1/log', { key: svc.adminKey })).body.totalLogEntriesCount;
    expect(before).toBeGreaterThanOrEqual(3);
    const no = await spawnLicTty(['log', 'purge', '--all'], { env: { LIC_CONFIG_DIR: dir }, input: 'n\r' });
    expect(no.code).toBe(1);
    expect(no.output).toMatch(/delete ALL .*log entries on 127\.0\.0\.1:\d+ \(profile tty\)\?/);
    expect(no.output).toContain('cancelled: nothing was changed');
    expect((await http(svc, 'GET', '/v1/log', { key: svc.adminKey })).body.totalLogEntriesCount).toBe(before);
    const yes = await spawnLicTty(['log', 'purge', '--all'], { env: { LIC_CONFIG_DIR: dir }, input: 'y\r' });
    expect(yes.code).toBe(0);
    expect(yes.output).toMatch(/deletedLogCount\S*\s+\d+/);
    const after = (await http(svc, 'GET', '/v1/log', { key: svc.adminKey })).body.logEntries;
    expect(after.map((e: { message: string }) => e.message)).toEqual([
      expect.stringMatching(/^DELETE \/v1\/log by API key 1 of user admin: purged \d+ log entries$/),
    ]);
  });
});
