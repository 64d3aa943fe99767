/**
 * `lic profile add` with a temporary store: the key from stdin or a hidden prompt, the
 * default, the file mode 0600, bad names and URLs.
 */
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { NOTICE, add, mode, store, storeFile, useTwoServices } from './_shared.js';

const { s1, s2 } = useTwoServices();

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
