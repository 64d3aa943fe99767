/**
 * `lic profile add|list|use|remove|show` with a temporary store, and the precedence of
 * flag > env > profile for the profile, the base URL and the API key.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, type RunOptions } from '../../helpers/cli.js';
import { closedPort } from '../../helpers/fake-server.js';
import { startTestService, type TestService } from '../../helpers/service.js';

let s1: TestService;
let s2: TestService;
beforeAll(async () => {
  [s1, s2] = await Promise.all([startTestService(), startTestService()]);
});
afterAll(async () => {
  await Promise.all([s1.close(), s2.close()]);
});

const storeFile = (dir: string) => join(dir, 'profiles.json');
/** The fallback notice of `profile add` where no keyring is reachable (the test context has none). */
const NOTICE =
  'lic: no keyring reachable (no keyring in this test context): the API key is in the profile file (mode 0600); `lic profile migrate --to keyring` moves it once there is a keyring (--insecure-storage: the file without this notice).';
const store = (dir: string) => JSON.parse(readFileSync(storeFile(dir), 'utf8'));
const mode = (dir: string) => statSync(storeFile(dir)).mode & 0o777;

async function add(dir: string, name: string, url: string, key: string, extra: string[] = [], o: RunOptions = {}) {
  const r = await runCli(['profile', 'add', name, '--base-url', url, '--api-key-stdin', ...extra], {
    configDir: dir,
    stdin: `${key}\n`,
    ...o,
  });
  expect(r.code, r.stderr).toBe(0);
  return r;
}

describe('profile add', () => {
  it('--api-key-stdin: stores URL and key (trimmed), first profile becomes the default, file mode 0600', async () => {
    const dir = tempDir();
    // stderr a terminal: the success note shows
    const r = await add(dir, 'one', `${s1.url}/`, s1.adminKey, [], { stderrTTY: true });
    expect(r.stdout).toBe('');
    // the test context has no keyring (as a machine without a session bus): the file, with one
    // notice, wrapped to the terminal's 120 columns with a hanging indent
    for (const line of r.stderr.split('\n')) expect(line.length).toBeLessThanOrEqual(120);
    expect(r.stderr.replace(/\n {2}/g, ' ')).toBe(`Added profile "one" (${s1.url}; key in the profile file), the default.\n${NOTICE}\n`);
    expect(store(dir)).toEqual({ profiles: { one: { baseUrl: s1.url, apiKey: s1.adminKey } }, defaultProfile: 'one' });
    expect(mode(dir)).toBe(0o600);
  });

  it('a second profile is not the default unless --default; re-adding says Updated; mode stays 0600', async () => {
    const dir = tempDir();
    await add(dir, 'one', s1.url, s1.adminKey);
    // in a pipe: the success note is left out, the notice (a warning) stays
    const two = await add(dir, 'two', s2.url, s2.adminKey);
    expect(two.stderr).toBe(`${NOTICE}\n`);
    expect(store(dir).defaultProfile).toBe('one');
    const again = await add(dir, 'two', s2.url, s2.adminKey, ['--default', '--insecure-storage'], { stderrTTY: true });
    expect(again.stderr).toBe(`Updated profile "two" (${s2.url}; key in the profile file), the default.\n`);
    expect(store(dir).defaultProfile).toBe('two');
    expect(mode(dir)).toBe(0o600);
  });

  it('on a TTY without --api-key-stdin: a hidden prompt asks for the key', async () => {
    const dir = tempDir();
    const r = await runCli(['profile', 'add', 'tty', '--base-url', s1.url], { configDir: dir, tty: true, secret: [` ${s1.adminKey} `] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.prompts).toEqual(['API key for tty:']);
    expect(store(dir).profiles.tty).toEqual({ baseUrl: s1.url, apiKey: s1.adminKey });
    expect(r.stdout + r.stderr).not.toContain(s1.adminKey);
  });

  it('off a TTY without --api-key-stdin: exit 2, nothing stored', async () => {
    const dir = tempDir();
    const r = await runCli(['profile', 'add', 'x', '--base-url', s1.url], { configDir: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('lic: stdin is not a terminal: pipe the key in with --api-key-stdin (keys are never taken as an option value)\n');
    expect(() => statSync(storeFile(dir))).toThrow();
  });

  it.each([
    ['', 'the API key is empty'],
    ['\n  \n', 'the API key is empty'],
    ['api_a api_b', 'the API key contains whitespace'],
    ['api_a\napi_b', 'the API key contains whitespace'],
  ])('stdin %j: exit 2 (%s), nothing stored, the key not echoed', async (stdin, msg) => {
    const dir = tempDir();
    const r = await runCli(['profile', 'add', 'x', '--base-url', s1.url, '--api-key-stdin'], { configDir: dir, stdin });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(msg);
    expect(r.stderr).not.toContain('api_a');
    expect(() => statSync(storeFile(dir))).toThrow();
  });

  it('an invalid --base-url: exit 2, nothing stored', async () => {
    const dir = tempDir();
    const r = await runCli(['profile', 'add', 'x', '--base-url', 'localhost:8765', '--api-key-stdin'], { configDir: dir, stdin: 'api_x' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("option '--base-url <url>' argument 'localhost:8765' is invalid");
    expect(() => statSync(storeFile(dir))).toThrow();
  });
});

describe('profile list, use, remove, show', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    await add(dir, 'one', s1.url, s1.adminKey);
    await add(dir, 'two', s2.url, s2.adminKey);
    await add(dir, 'odd', 'https://licensing.example.com', 'short');
  });

  it('list (piped): name, URL, masked key, default mark; never the full key', async () => {
    const r = await runCli(['profile', 'list'], { configDir: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `odd\thttps://licensing.example.com\t****\tfile\t`,
        `one\t${s1.url}\t${s1.adminKey.slice(0, 8)}…\tfile\t*`,
        `two\t${s2.url}\t${s2.adminKey.slice(0, 8)}…\tfile\t`,
      ].join('\n') + '\n',
    );
  });

  it('list -o json and on a TTY: masked too', async () => {
    const json = await runCli(['profile', 'list', '-o', 'json'], { configDir: dir });
    expect(JSON.parse(json.stdout).profiles).toEqual([
      { name: 'odd', baseUrl: 'https://licensing.example.com', apiKey: '****', keyStore: 'file', default: false },
      { name: 'one', baseUrl: s1.url, apiKey: `${s1.adminKey.slice(0, 8)}…`, keyStore: 'file', default: true },
      { name: 'two', baseUrl: s2.url, apiKey: `${s2.adminKey.slice(0, 8)}…`, keyStore: 'file', default: false },
    ]);
    const tty = await runCli(['profile', 'ls'], { configDir: dir, tty: true });
    for (const out of [json.stdout, tty.stdout, tty.stderr]) {
      expect(out).not.toContain(s1.adminKey);
      expect(out).not.toContain(s2.adminKey);
      expect(out).not.toContain('short');
    }
    expect(tty.stdout).toContain('API KEY');
  });

  it('use: changes the default; an unknown name is exit 2 listing the profiles', async () => {
    const r = await runCli(['profile', 'use', 'two'], { configDir: dir, stderrTTY: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('Default profile is now "two".\n');
    expect(store(dir).defaultProfile).toBe('two');
    const bad = await runCli(['profile', 'use', 'three'], { configDir: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('lic: no profile named "three"; profiles: odd, one, two\n');
    expect(store(dir).defaultProfile).toBe('two');
    await runCli(['profile', 'use', 'one'], { configDir: dir });
  });

  it('show: what commands would use now and where each comes from, key masked', async () => {
    const r = await runCli(['profile', 'show', '-o', 'json'], { configDir: dir });
    expect(JSON.parse(r.stdout)).toEqual({
      profile: 'one',
      baseUrl: s1.url,
      baseUrlFrom: 'profile one',
      apiKey: `${s1.adminKey.slice(0, 8)}…`,
      apiKeyFrom: 'profile one',
      apiKeyStore: 'file',
      apiKeyError: null,
      timeoutMs: 30000,
      timeoutFrom: 'default',
      retries: 2,
      retriesFrom: 'default',
      caFile: null,
      caFileFrom: null,
      insecureHttp: false,
      insecureHttpFrom: 'default',
      store: storeFile(dir),
    });
    // a key in the file and no keyring on this machine (the test context has none): a note, shown on a terminal, with advice that works here
    expect(r.stderr).toBe('');
    const onTty = await runCli(['profile', 'show', '-o', 'json'], { configDir: dir, stderrTTY: true });
    expect(onTty.stderr).toBe(
      `lic: the API key of profile "one" is in plain text in ${storeFile(dir)} (mode 0600): there is no keyring on this machine (no keyring in this test context); keep the file private to this account, or pass the key as LIC_API_KEY from your secret store.\n`,
    );
    // where a keyring answers: one warning, with the command that moves the key there
    const keyring = { get: async () => undefined, set: async () => undefined, delete: async () => false };
    const withKeyring = await runCli(['profile', 'show', '-o', 'json'], { configDir: dir, keyring });
    expect(withKeyring.stderr).toBe(
      `lic: the API key of profile "one" is in plain text in ${storeFile(dir)}, readable by every program you run; an Administrator key can delete everything: move it to the keyring with \`lic profile migrate --to keyring\` (\`lic doctor\` tells the key's role).\n`,
    );
    const piped = await runCli(['profile', 'show'], { configDir: dir, env: { LIC_API_KEY: s2.adminKey }, tty: false });
    expect(piped.stderr).toBe('');
    expect(piped.stdout).toBe(
      `profile\tone\nbase URL\t${s1.url} (from profile one)\nAPI key\t${s2.adminKey.slice(0, 8)}… (from LIC_API_KEY)\n` +
        'timeout\t30s per attempt (from default)\nretries\t2 (from default)\nCA file\t(none: the system CAs)\ninsecure http\trefused (from default)\n' +
        `store\t${storeFile(dir)}\n`,
    );
    expect(piped.stdout).not.toContain(s2.adminKey);
  });

  it('remove: forgets the profile; removing the default clears the default; unknown is exit 2', async () => {
    const d = tempDir();
    await add(d, 'a', s1.url, s1.adminKey);
    await add(d, 'b', s2.url, s2.adminKey);
    const r = await runCli(['profile', 'remove', 'a'], { configDir: d, stderrTTY: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Removed profile "a".');
    expect(store(d)).toEqual({ profiles: { b: { baseUrl: s2.url, apiKey: s2.adminKey } } });
    expect(mode(d)).toBe(0o600);
    const again = await runCli(['profile', 'rm', 'a'], { configDir: d });
    expect(again.code).toBe(2);
    expect(again.stderr).toBe('lic: no profile named "a"\n');
    // with no default, commands fall back to the built-in URL and have no key: exit 3
    const none = await runCli(['keys', 'list'], { configDir: d });
    expect(none.code).toBe(3);
    expect((await runCli(['keys', 'list', '--profile', 'b'], { configDir: d })).code).toBe(0);
  });
});

describe('a damaged store', () => {
  it.each([
    ['{"profiles":{"a":{"baseUrl":"http://x","apiKey":api_secretsecretsecretsecret12}}}', 'is not valid JSON'],
    ['api_secretsecretsecretsecret12', 'is not valid JSON'],
    ['{"profiles":[],"defaultProfile":"a"}', '"profiles" is not an object'],
    ['{"profiles":{"a":{"apiKey":"api_secretsecretsecretsecret12"}},"defaultProfile":"a"}', 'profile "a" has no baseUrl'],
  ])('%s: exit 1 naming the store, never quoting the key', async (content, msg) => {
    const dir = tempDir();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(storeFile(dir), content, { mode: 0o600 });
    for (const args of [
      ['profile', 'list'],
      ['keys', 'list'],
    ]) {
      const r = await runCli(args, { configDir: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(msg);
      expect(r.stderr).toContain(dir);
      expect(r.stderr).not.toContain('api_secret');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('precedence: flag > env > profile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    await add(dir, 'p1', s1.url, s1.adminKey);
    await add(dir, 'p2', s2.url, s2.adminKey);
    await add(dir, 'broken', s1.url, 'api_000000000000000000000000');
  });
  /** which service answered: the keys list holds that service's bootstrap prefix */
  async function whoAnswers(args: string[], env: Record<string, string> = {}): Promise<string> {
    const r = await runCli([...args, 'keys', 'list', '-o', 'json'], { configDir: dir, env });
    if (r.code !== 0) return `exit ${r.code}: ${r.stderr.trim()}`;
    const prefix = JSON.parse(r.stdout).apiKeys[0].keyPrefix;
    return prefix === s1.adminKey.slice(0, 8) ? 's1' : prefix === s2.adminKey.slice(0, 8) ? 's2' : 'other';
  }

  it('the default profile when nothing else is said', async () => {
    expect(await whoAnswers([])).toBe('s1');
  });

  it('profile: LIC_PROFILE beats the default; --profile beats LIC_PROFILE', async () => {
    expect(await whoAnswers([], { LIC_PROFILE: 'p2' })).toBe('s2');
    expect(await whoAnswers(['--profile', 'p1'], { LIC_PROFILE: 'p2' })).toBe('s1');
    expect(await whoAnswers(['--profile', 'p2'])).toBe('s2');
  });

  it('base URL: LIC_BASE_URL beats the profile; --base-url beats LIC_BASE_URL', async () => {
    const dead = `http://127.0.0.1:${await closedPort()}`;
    // profile p1's key against s2's URL: s2 does not know it
    expect(await whoAnswers([], { LIC_BASE_URL: s2.url })).toBe('exit 3: lic: unknown API key (HTTP 401, code 16, GET /v1/api-keys)');
    expect(await whoAnswers([], { LIC_BASE_URL: s2.url, LIC_API_KEY: s2.adminKey })).toBe('s2');
    expect(await whoAnswers(['--base-url', s1.url], { LIC_BASE_URL: dead })).toBe('s1');
    expect(await whoAnswers(['--base-url', s2.url, '--profile', 'p2'], { LIC_BASE_URL: dead })).toBe('s2');
  });

  it("API key: LIC_API_KEY beats the profile's key", async () => {
    expect(await whoAnswers(['--profile', 'broken'])).toMatch(/^exit 3: lic: unknown API key/);
    expect(await whoAnswers(['--profile', 'broken'], { LIC_API_KEY: s1.adminKey })).toBe('s1');
    expect(await whoAnswers([], { LIC_API_KEY: 'api_000000000000000000000000' })).toMatch(/^exit 3/);
  });

  it('URL and key both from env: works without any profile store', async () => {
    const r = await runCli(['keys', 'list'], { configDir: tempDir(), env: { LIC_BASE_URL: s2.url, LIC_API_KEY: s2.adminKey } });
    expect(r.code, r.stderr).toBe(0);
  });

  it('an unknown --profile or LIC_PROFILE is exit 2 naming the profiles, nothing sent', async () => {
    const a = await runCli(['--profile', 'nope', 'keys', 'list'], { configDir: dir });
    expect(a.code).toBe(2);
    expect(a.stderr).toBe('lic: no profile named "nope"; profiles: broken, p1, p2\n');
    const b = await runCli(['keys', 'list'], {
      configDir: dir,
      env: { LIC_PROFILE: 'nope', LIC_BASE_URL: s1.url, LIC_API_KEY: s1.adminKey },
    });
    expect(b.code).toBe(2);
    const empty = await runCli(['--profile', 'nope', 'keys', 'list'], { configDir: tempDir() });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe('lic: no profile named "nope"; add one with `lic profile add`\n');
  });

  it('profile show names each source', async () => {
    const show = async (args: string[], env: Record<string, string> = {}) =>
      JSON.parse((await runCli([...args, 'profile', 'show', '-o', 'json'], { configDir: dir, env })).stdout);
    expect(await show([], { LIC_PROFILE: 'p2' })).toMatchObject({
      profile: 'p2',
      baseUrl: s2.url,
      baseUrlFrom: 'profile p2',
      apiKeyFrom: 'profile p2',
    });
    expect(await show(['--base-url', 'http://flag.example'], { LIC_BASE_URL: 'http://env.example' })).toMatchObject({
      baseUrl: 'http://flag.example',
      baseUrlFrom: '--base-url',
    });
    expect(await show([], { LIC_BASE_URL: 'http://env.example' })).toMatchObject({
      baseUrl: 'http://env.example',
      baseUrlFrom: 'LIC_BASE_URL',
    });
    const none = JSON.parse((await runCli(['profile', 'show', '-o', 'json'], { configDir: tempDir() })).stdout);
    expect(none).toMatchObject({
      profile: null,
      baseUrl: 'http://127.0.0.1:8765',
      baseUrlFrom: 'built-in default',
      apiKey: '-',
      apiKeyFrom: 'none',
    });
  });
});
