/**
 * API keys in a real Secret Service (GNOME Keyring on a private D-Bus session bus,
 * test/helpers/secret-service.ts), driven through the built CLI: `profile add` into the
 * keyring and `keys list` with it, `lic serve`'s profile "local", `profile migrate` both ways,
 * `profile remove`; a locked keyring and one with no login keyring refuse (exit 3, nothing
 * written); a bus without a Secret Service and no bus at all fall back to the file with one
 * notice. Skips, saying what to install, without dbus-run-session and GNOME Keyring
 * (.ci/keyring.sh installs them).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { missingSecretServicePrograms, startSecretService, type SecretService } from '../helpers/secret-service.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { spawnLic, startLic } from '../helpers/spawn.js';

const missing = missingSecretServicePrograms;
// .ci/keyring.sh sets this: there the tests must run, not skip
if (missing.length && process.env.LIC_REQUIRE_KEYRING_TESTS === '1')
  throw new Error(`LIC_REQUIRE_KEYRING_TESTS=1 but ${missing.join(', ')} not installed`);
if (missing.length)
  console.warn(
    `keyring tests skipped: ${missing.join(', ')} not installed (apt-get install dbus gnome-keyring libsecret-tools; .ci/keyring.sh does it)`,
  );

const storeText = (dir: string) => readFileSync(join(dir, 'profiles.json'), 'utf8');
const store = (dir: string) => JSON.parse(storeText(dir)) as { profiles: Record<string, Record<string, unknown>>; defaultProfile?: string };
/** The keyring account of profile `name` in the store in `dir` (src/config/keyring.ts keyringAccount). */
const account = (name: string, dir: string) => `${name}@${dir}`;

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

/** `lic profile add NAME` with the key on stdin, against the test service. */
const add = (name: string, key: string, env: Record<string, string>, extra: string[] = []) =>
  spawnLic(['profile', 'add', name, '--base-url', svc.url, '--api-key-stdin', ...extra], { env, stdin: `${key}\n` });

describe.skipIf(missing.length > 0)('an unlocked keyring (GNOME Keyring on a session bus)', () => {
  let ss: SecretService;
  beforeAll(async () => {
    ss = await startSecretService('unlocked');
  });
  afterAll(() => ss?.close());

  it('profile add: the key goes to the keyring, profiles.json holds no key, keys list works with the profile', async () => {
    const dir = tempDir();
    const env = { ...ss.env, LIC_CONFIG_DIR: dir };
    // -v: the success note, which a pipe otherwise leaves out
    const r = await add('prod', svc.adminKey, env, ['-v']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`Added profile "prod" (${svc.url}; key in the keyring), the default.\n`);
    expect(store(dir)).toEqual({ profiles: { prod: { baseUrl: svc.url, keyStore: 'keyring' } }, defaultProfile: 'prod' });
    expect(storeText(dir)).not.toContain('api_');
    expect(ss.lookup(account('prod', dir))).toBe(svc.adminKey);
    const list = await spawnLic(['keys', 'list', '-o', 'json'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).apiKeys.length).toBeGreaterThan(0);
    const show = await spawnLic(['profile', 'show'], { env });
    expect(show.stdout).toContain(`API key\t${svc.adminKey.slice(0, 8)}… (from profile prod; in the keyring)`);
    expect(show.stderr).toBe('');
    const pl = await spawnLic(['profile', 'list', '-o', 'json'], { env });
    expect(JSON.parse(pl.stdout).profiles).toEqual([{ name: 'prod', baseUrl: svc.url, apiKey: null, keyStore: 'keyring', default: true }]);
  });

  it('two stores never share a keyring entry: the same profile name in another LIC_CONFIG_DIR has its own key', async () => {
    const [a, b] = [tempDir(), tempDir()];
    expect((await add('same', svc.adminKey, { ...ss.env, LIC_CONFIG_DIR: a })).code).toBe(0);
    expect((await add('same', 'api_otherotherotherotherother', { ...ss.env, LIC_CONFIG_DIR: b })).code).toBe(0);
    expect(ss.lookup(account('same', a))).toBe(svc.adminKey);
    expect(ss.lookup(account('same', b))).toBe('api_otherotherotherotherother');
    expect((await spawnLic(['keys', 'list'], { env: { ...ss.env, LIC_CONFIG_DIR: a } })).code).toBe(0);
  });

  it('--insecure-storage: the file, no notice, nothing in the keyring; replacing a keyring profile so deletes its entry', async () => {
    const dir = tempDir();
    const env = { ...ss.env, LIC_CONFIG_DIR: dir };
    expect((await add('ci', svc.adminKey, env)).code).toBe(0);
    expect(ss.lookup(account('ci', dir))).toBe(svc.adminKey);
    const r = await add('ci', svc.adminKey, env, ['--insecure-storage', '-v']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`Updated profile "ci" (${svc.url}; key in the profile file), the default.\n`);
    expect(store(dir).profiles.ci).toEqual({ baseUrl: svc.url, apiKey: svc.adminKey });
    expect(ss.lookup(account('ci', dir))).toBeUndefined();
  });

  it('profile migrate: --dry-run changes nothing; the move empties the file of keys and every profile still works; again: nothing; --to file: back', async () => {
    const dir = tempDir();
    const env = { ...ss.env, LIC_CONFIG_DIR: dir };
    // keys in the file, as before the keyring (or saved with --insecure-storage)
    for (const name of ['a', 'b']) expect((await add(name, svc.adminKey, env, ['--insecure-storage'])).code).toBe(0);
    const before = storeText(dir);
    const dry = await spawnLic(['profile', 'migrate', '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('a\tfile\tkeyring\twould move\nb\tfile\tkeyring\twould move\n');
    expect(dry.stderr).toBe('Dry run: 2 key(s) would move into the keyring; nothing was changed.\n');
    expect(storeText(dir)).toBe(before);
    expect(ss.accounts().filter((a) => a.endsWith(`@${dir}`))).toEqual([]);

    const moved = await spawnLic(['profile', 'migrate', '--to', 'keyring'], { env });
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toBe('a\tfile\tkeyring\tmoved\nb\tfile\tkeyring\tmoved\n');
    expect(storeText(dir)).not.toContain('api_');
    expect(store(dir).profiles).toEqual({ a: { baseUrl: svc.url, keyStore: 'keyring' }, b: { baseUrl: svc.url, keyStore: 'keyring' } });
    for (const name of ['a', 'b']) {
      expect(ss.lookup(account(name, dir))).toBe(svc.adminKey);
      expect((await spawnLic(['keys', 'list', '--profile', name], { env })).code).toBe(0);
    }

    const again = await spawnLic(['profile', 'migrate', '-o', 'json', '-v'], { env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).profiles.map((r: { result: string }) => r.result)).toEqual(['already', 'already']);
    expect(again.stderr).toBe('Nothing to move: every key is already in the keyring.\n');

    const back = await spawnLic(['profile', 'migrate', '--to', 'file', 'b'], { env });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toBe('b\tkeyring\tfile\tmoved\n');
    expect(store(dir).profiles.b).toEqual({ baseUrl: svc.url, apiKey: svc.adminKey });
    expect(ss.lookup(account('b', dir))).toBeUndefined();
    expect((await spawnLic(['keys', 'list', '--profile', 'b'], { env })).code).toBe(0);
  });

  it('profile migrate NAME that does not exist: exit 2 listing the profiles, nothing changed', async () => {
    const dir = tempDir();
    const env = { ...ss.env, LIC_CONFIG_DIR: dir };
    expect((await add('x', svc.adminKey, env, ['--insecure-storage'])).code).toBe(0);
    const r = await spawnLic(['profile', 'migrate', 'nope'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('lic: no profile named "nope"; profiles: x\n');
    const bad = await spawnLic(['profile', 'migrate', '--to', 'disk'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("argument 'disk' is invalid. Allowed choices are keyring, file.");
    expect(store(dir).profiles.x).toEqual({ baseUrl: svc.url, apiKey: svc.adminKey });
  });

  it('profile remove: the keyring entry goes with the profile', async () => {
    const dir = tempDir();
    const env = { ...ss.env, LIC_CONFIG_DIR: dir };
    expect((await add('gone', svc.adminKey, env)).code).toBe(0);
    expect(ss.lookup(account('gone', dir))).toBe(svc.adminKey);
    const r = await spawnLic(['profile', 'remove', 'gone'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(ss.lookup(account('gone', dir))).toBeUndefined();
  });

  it('a keyring profile whose entry was deleted behind lic: exit 3 saying so, LIC_API_KEY still works', async () => {
    const dir = tempDir();
    const env = { ...ss.env, LIC_CONFIG_DIR: dir };
    expect((await add('lost', svc.adminKey, env)).code).toBe(0);
    await spawnLic(['profile', 'migrate', '--to', 'file', 'lost'], { env });
    // hand-edit back to "keyring" with no entry: what a keyring reset leaves
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      join(dir, 'profiles.json'),
      JSON.stringify({ profiles: { lost: { baseUrl: svc.url, keyStore: 'keyring' } }, defaultProfile: 'lost' }),
    );
    const r = await spawnLic(['keys', 'list'], { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `lic: profile "lost" keeps its API key in the keyring, but the keyring has no entry for it (service "lic", account "${account('lost', dir)}"): add the profile again with \`lic profile add lost\`\n`,
    );
    expect((await spawnLic(['keys', 'list'], { env: { ...env, LIC_API_KEY: svc.adminKey } })).code).toBe(0);
  });

  it('lic serve saves profile "local" with its key in the keyring; keys list --profile local works', async () => {
    const dir = tempDir();
    const env = { ...ss.env, LIC_CONFIG_DIR: dir, LIC_DATA_DIR: tempDir() };
    const p = startLic(['serve', '--port', '0', '--db', join(tempDir(), 'lic.db')], { env });
    try {
      const url = (await p.waitForStdout(/^(http:\/\/\S+)\n/))[1]!;
      expect(p.stderr).toContain('lic serve: saved the Administrator key as profile "local" (the default), in the keyring');
      expect(p.stderr).not.toContain('no keyring reachable');
      expect(store(dir)).toEqual({ profiles: { local: { baseUrl: url, keyStore: 'keyring' } }, defaultProfile: 'local' });
      expect(ss.lookup(account('local', dir))).toMatch(/^api_[a-z0-9]{24}$/);
      const r = await spawnLic(['keys', 'list', '--profile', 'local'], { env });
      expect(r.code, r.stderr).toBe(0);
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });

  it('a locked keyring: profile add is exit 3 naming it and writes nothing; a keyring profile is exit 3; LIC_API_KEY never asks the keyring', async () => {
    // its own session: locking must not disturb the tests above
    const locked = await startSecretService('unlocked');
    try {
      const dir = tempDir();
      const env = { ...locked.env, LIC_CONFIG_DIR: dir };
      expect((await add('kept', svc.adminKey, env)).code).toBe(0);
      locked.lock();
      const r = await add('new', svc.adminKey, env);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(
        /^lic: the keyring refused to store the API key: Secret Service: .*; unlock it \(or create a default keyring\) and try again\n$/,
      );
      expect(r.stderr).not.toContain('no keyring reachable');
      expect(store(dir).profiles).toEqual({ kept: { baseUrl: svc.url, keyStore: 'keyring' } });
      const read = await spawnLic(['keys', 'list'], { env });
      expect(read.code).toBe(3);
      expect(read.stderr).toMatch(/^lic: profile "kept" keeps its API key in the keyring, and the keyring refused to give the API key: /);
      expect(read.stdout).toBe('');
      const doctor = await spawnLic(['doctor', '-o', 'json'], { env });
      expect(doctor.code).toBe(1);
      expect(JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === 'API key')).toMatchObject({
        ok: false,
        fix: expect.stringContaining('unlock the keyring'),
      });
      const viaEnv = await spawnLic(['keys', 'list'], { env: { ...env, LIC_API_KEY: svc.adminKey } });
      expect(viaEnv.code, viaEnv.stderr).toBe(0);
      const migrate = await spawnLic(['profile', 'migrate', '--to', 'file'], { env });
      expect(migrate.code).toBe(3);
      expect(store(dir).profiles).toEqual({ kept: { baseUrl: svc.url, keyStore: 'keyring' } });
    } finally {
      await locked.close();
    }
  });
});

describe.skipIf(missing.length > 0)('no usable keyring', () => {
  it('a session bus with GNOME Keyring but no login keyring: a refusal (exit 3), not a fallback; nothing written', async () => {
    const ss = await startSecretService('absent');
    try {
      const dir = tempDir();
      const r = await add('p', svc.adminKey, { ...ss.env, LIC_CONFIG_DIR: dir });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/^lic: the keyring refused to store the API key: /);
      expect(existsSync(join(dir, 'profiles.json'))).toBe(false);

      // a key in the file (--insecure-storage): migrate --dry-run asks the keyring to store a probe, and says what the real run meets
      expect((await add('f', svc.adminKey, { ...ss.env, LIC_CONFIG_DIR: dir }, ['--insecure-storage'])).code).toBe(0);
      const before = storeText(dir);
      const dry = await spawnLic(['profile', 'migrate', '--dry-run'], { env: { ...ss.env, LIC_CONFIG_DIR: dir } });
      expect(dry.code).toBe(3);
      expect(dry.stdout).toBe('');
      expect(dry.stderr).toMatch(
        /^lic: the keyring refused to store the API key: .*; unlock it \(or create a default keyring\) and try again\n$/,
      );
      const real = await spawnLic(['profile', 'migrate'], { env: { ...ss.env, LIC_CONFIG_DIR: dir } });
      expect(real.code).toBe(3);
      expect(real.stderr).toBe(dry.stderr);
      expect(storeText(dir)).toBe(before);
    } finally {
      await ss.close();
    }
  });

  it('a session bus on which nothing provides the Secret Service: the file, with one notice saying why', async () => {
    const ss = await startSecretService('none');
    try {
      const dir = tempDir();
      const env = { ...ss.env, LIC_CONFIG_DIR: dir };
      // in a pipe: no success note, but the notice (a warning) stays
      const r = await add('p', svc.adminKey, env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(
        'lic: no keyring reachable (DBus error: The name org.freedesktop.secrets was not provided by any .service files): the API key is in the profile file (mode 0600); `lic profile migrate --to keyring` moves it once there is a keyring (--insecure-storage: the file without this notice).\n',
      );
      expect(store(dir).profiles.p).toEqual({ baseUrl: svc.url, apiKey: svc.adminKey });
      expect((await spawnLic(['keys', 'list'], { env })).code).toBe(0);
      // moving needs a keyring: exit 3, the file as it was; the dry run says so too
      const m = await spawnLic(['profile', 'migrate'], { env });
      expect(m.code).toBe(3);
      expect(store(dir).profiles.p).toEqual({ baseUrl: svc.url, apiKey: svc.adminKey });
      const dry = await spawnLic(['profile', 'migrate', '--dry-run'], { env });
      expect(dry.code).toBe(3);
      expect(dry.stderr).toBe(m.stderr);
      // where the key has to be in the file, doctor notes it and passes (exit 0), without suggesting a move that can't work
      const doctor = await spawnLic(['doctor', '-o', 'json'], { env });
      expect(doctor.code, doctor.stdout).toBe(0);
      const storage = JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === 'key storage');
      expect(storage).toMatchObject({ ok: true, level: 'note', detail: expect.stringContaining('no keyring on this machine') });
      expect(storage.fix).not.toContain('migrate');
    } finally {
      await ss.close();
    }
  });
});

describe('no session bus at all (DBUS_SESSION_BUS_ADDRESS unset)', () => {
  it('profile add falls back to the file with one notice; a keyring profile is exit 3 naming why, and LIC_API_KEY works', async () => {
    const dir = tempDir();
    const env = { LIC_CONFIG_DIR: dir };
    const r = await add('p', svc.adminKey, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      'lic: no keyring reachable (no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set): the API key is in the profile file (mode 0600); `lic profile migrate --to keyring` moves it once there is a keyring (--insecure-storage: the file without this notice).\n',
    );
    expect((await spawnLic(['keys', 'list'], { env })).code).toBe(0);
    // a store whose key went to a keyring elsewhere (a desktop session), used where there is no bus
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      join(dir, 'profiles.json'),
      JSON.stringify({ profiles: { p: { baseUrl: svc.url, keyStore: 'keyring' } }, defaultProfile: 'p' }),
    );
    const k = await spawnLic(['keys', 'list'], { env });
    expect(k.code).toBe(3);
    expect(k.stderr).toBe(
      'lic: profile "p" keeps its API key in the keyring, and no keyring is reachable here: no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set; set LIC_API_KEY, or run lic where the keyring is (`lic profile migrate --to file` moves keys into the profile file)\n',
    );
    expect((await spawnLic(['keys', 'list'], { env: { ...env, LIC_API_KEY: svc.adminKey } })).code).toBe(0);
  });
});
