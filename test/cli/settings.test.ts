// Cross-cutting: where every command takes its profile, base URL and API key from (flag > env > profile) and what any command does with a damaged profile store; each profile verb's own behaviour is in test/commands/profile/<verb>.test.ts.
/**
 * The precedence of flag > env > profile for the profile, the base URL and the API key,
 * seen through `keys list` against two services; a damaged store refused by any command.
 */
import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { closedPort } from '../helpers/fake-server.js';
import { precedenceProfiles, storeFile, useTwoServices } from '../commands/profile/_shared.js';

const { s1, s2 } = useTwoServices();

describe('a damaged store', () => {
  it.each([
    ['{"profiles":{"a":{"baseUrl":"http://x","apiKey":api_secretsecretsecretsecret12}}}', 'is not valid JSON'],
    ['api_secretsecretsecretsecret12', 'is not valid JSON'],
    ['{"profiles":[],"defaultProfile":"a"}', '"profiles" is not an object'],
    ['{"profiles":{"a":{"apiKey":"api_secretsecretsecretsecret12"}},"defaultProfile":"a"}', 'profile "a" has no baseUrl'],
  ])('%s: exit 1 naming the store, never quoting the key', async (content, msg) => {
    const dir = tempDir();
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
    await precedenceProfiles(dir, s1, s2);
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
});
