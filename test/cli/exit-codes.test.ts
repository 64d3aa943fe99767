// Cross-cutting: the documented exit codes, one per kind of failure, over many verbs; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * The documented exit codes (README "Exit codes"; src/cli/errors.ts): 0 ok, 1 API or
 * runtime error, 2 usage, 3 401/403 or no key, 4 not found, 5 network/timeout; one line
 * on stderr, no stack trace unless LIC_DEBUG=1.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli, tempDir } from '../helpers/cli.js';
import { closedPort, startFake } from '../helpers/fake-server.js';
import { addUserWithKey } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

const STACK = /\n\s+at .+:\d+:\d+/;
let readOnly: string;
const { svc } = useService();
beforeAll(async () => {
  readOnly = await addUserWithKey(svc, 'ro', 'Administrator', 1);
});

describe('each exit code from the real service', () => {
  it('0: success', async () => {
    const r = await runCli(['keys', 'list'], { env: envFor(svc, svc.adminKey) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('1: a 400 from the service', async () => {
    const r = await runCli(['keys', 'create', '--perm', '1', '--owner', 'nobody'], { env: envFor(svc, svc.adminKey) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('lic: apiKey.ownerId "nobody" is not a known user (HTTP 400, code 3, POST /v1/api-keys)\n');
  });

  it('2: usage', async () => {
    expect((await runCli(['keys', 'create', '--perm', 'x'], { env: envFor(svc, svc.adminKey) })).code).toBe(2);
  });

  it('3: 401 (unknown key) and 403 (missing bit)', async () => {
    const a = await runCli(['keys', 'list'], { env: envFor(svc, 'api_000000000000000000000000') });
    expect(a.code).toBe(3);
    expect(a.stderr).toBe('lic: unknown API key (HTTP 401, code 16, GET /v1/api-keys)\n');
    const b = await runCli(['keys', 'delete', '1', '--yes'], { env: envFor(svc, readOnly) });
    expect(b.code).toBe(3);
    expect(b.stderr).toBe('lic: API key lacks the Delete (4) permission needed for DELETE (HTTP 403, code 7, DELETE /v1/api-keys/1)\n');
  });

  it('3: no key configured anywhere, and nothing sent', async () => {
    const port = await closedPort();
    const r = await runCli(['keys', 'list'], { env: { LIC_BASE_URL: `http://127.0.0.1:${port}` } });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('lic: no API key: start `lic serve` (it saves profile "local"), run `lic profile add`, or set LIC_API_KEY\n');
  });

  it('3: no key is found out before a confirmation is asked, not after a "yes"', async () => {
    const port = await closedPort();
    const r = await runCli(['keys', 'delete', '1'], { tty: true, env: { LIC_BASE_URL: `http://127.0.0.1:${port}` } });
    expect(r.code).toBe(3);
    expect(r.prompts).toEqual([]);
  });

  it('3: an API key with whitespace is named as such, not reported as a network error', async () => {
    const port = await closedPort();
    const r = await runCli(['keys', 'list'], { env: { LIC_BASE_URL: `http://127.0.0.1:${port}`, LIC_API_KEY: 'api_abc def' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('lic: the API key from LIC_API_KEY contains whitespace or control characters\n');
  });

  it('3: a profile without a key names the profile', async () => {
    const configDir = tempDir();
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    writeFileSync(join(configDir, 'profiles.json'), JSON.stringify({ profiles: { bare: { baseUrl: svc.url } }, defaultProfile: 'bare' }), {
      mode: 0o600,
    });
    const r = await runCli(['keys', 'list'], { configDir });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`lic: profile "bare" has no API key; run \`lic profile add bare --base-url ${svc.url}\`\n`);
  });

  it('4: an unknown id', async () => {
    const r = await runCli(['keys', 'delete', '777', '--yes'], { env: envFor(svc, svc.adminKey) });
    expect(r.code).toBe(4);
  });

  it('5: connection refused', async () => {
    const port = await closedPort();
    const r = await runCli(['log', 'list'], { env: { LIC_BASE_URL: `http://127.0.0.1:${port}`, LIC_API_KEY: svc.adminKey } });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('connection refused');
  });

  it('5: timeout', async () => {
    const fake = await startFake(() => undefined);
    try {
      const r = await runCli(['keys', 'create', '--perm', '1'], {
        env: { LIC_BASE_URL: fake.url, LIC_API_KEY: svc.adminKey, LIC_TIMEOUT_MS: '100' },
      });
      expect(r.code).toBe(5);
      expect(r.stderr).toBe(`lic: timed out after 100ms waiting for ${fake.url} (--timeout)\n`);
    } finally {
      await fake.close();
    }
  });
});

describe('stack traces', () => {
  it.each([
    [['keys', 'delete', '777', '--yes']],
    [['keys', 'list', '--take', '5000']],
    [['keys', 'create', '--perm', '1', '--owner', 'nobody']],
  ])('none on stderr for %j', async (args) => {
    const r = await runCli(args, { env: envFor(svc, svc.adminKey) });
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(2);
  });

  it('none for a network error; LIC_DEBUG=1 adds one after the message', async () => {
    const port = await closedPort();
    const env = { LIC_BASE_URL: `http://127.0.0.1:${port}`, LIC_API_KEY: svc.adminKey };
    // -q: the retry notices carry jittered waits, which differ between the two runs
    const plain = await runCli(['keys', 'create', '--perm', '1', '-q'], { env });
    expect(plain.code).toBe(5);
    expect(plain.stderr).not.toMatch(STACK);
    const debug = await runCli(['keys', 'create', '--perm', '1', '-q'], { env: { ...env, LIC_DEBUG: '1' } });
    expect(debug.code).toBe(5);
    expect(debug.stderr.startsWith(plain.stderr)).toBe(true);
    expect(debug.stderr).toMatch(/NetworkError: cannot connect/);
    expect(debug.stderr).toMatch(STACK);
    expect(debug.stderr).not.toContain(svc.adminKey);
  });

  it('LIC_DEBUG=1 on an API error shows the ApiError stack', async () => {
    const r = await runCli(['keys', 'delete', '777', '--yes'], { env: { ...envFor(svc, svc.adminKey), LIC_DEBUG: '1' } });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^lic: no API key with id 777 .*\nApiError: no API key with id 777\n\s+at /);
  });
});

describe('help and missing subcommands', () => {
  it('--help and --version: exit 0 on stdout', async () => {
    const h = await runCli(['--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('Usage: lic [options] [command]');
    const v = await runCli(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
  });

  it.each([[[]], [['keys']], [['log']], [['profile']]])('lic %j without a verb: help on stderr, exit 2', async (args) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Usage: lic');
  });
});

describe('LIC_BASE_URL is checked like --base-url', () => {
  it.each([
    ['not a url', 'expected an http(s) URL'],
    ['ftp://x', 'expected an http:// or https:// URL'],
    ['http://user:secret@127.0.0.1:1', 'the URL must not carry credentials'],
  ])('%j: exit 2 naming the variable, value not echoed', async (url, why) => {
    const r = await runCli(['keys', 'list'], { env: { LIC_BASE_URL: url, LIC_API_KEY: svc.adminKey } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lic: LIC_BASE_URL is invalid: /);
    expect(r.stderr).toContain(why);
    expect(r.stderr).not.toContain('secret');
  });

  it('a trailing slash is fine', async () => {
    const r = await runCli(['keys', 'list'], { env: { LIC_BASE_URL: `${svc.url}/`, LIC_API_KEY: svc.adminKey } });
    expect(r.code, r.stderr).toBe(0);
  });
});
