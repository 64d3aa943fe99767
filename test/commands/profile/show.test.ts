/**
 * `lic profile show` with a temporary store: what commands would use now and where each
 * setting comes from (flag, env, profile, default), the key masked, the plain-text key notice.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { precedenceProfiles, storeFile, threeProfiles, useTwoServices } from './_shared.js';

const { s1, s2 } = useTwoServices();
let dir: string;
beforeAll(async () => {
  dir = tempDir();
  await threeProfiles(dir, s1, s2);
});

describe('profile show', () => {
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
});

describe('precedence: flag > env > profile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    await precedenceProfiles(dir, s1, s2);
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
