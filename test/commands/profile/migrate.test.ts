/**
 * `lic profile migrate` in-process with a temporary store pointing at the real service:
 * where no keyring is reachable (the test context's default) it refuses and changes
 * nothing; with a keyring (the context's keyring seam, an in-memory one here) a dry run
 * changes nothing, the move leaves profiles.json without keys while commands still
 * authenticate, a second run moves nothing, and `--to file` is the way back. The same
 * against a real Secret Service (spawned lic, GNOME Keyring) is in test/config/keyring.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Keyring } from '../../../src/config/keyring.js';
import { runCli, tempDir } from '../../helpers/cli.js';
import { useService } from '../../helpers/fixtures.js';
import { add, mode, store, storeFile } from './_shared.js';

const { svc } = useService();

/** A keyring that keeps its entries in `entries` (account → secret). */
function memoryKeyring(): Keyring & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    get: async (account) => entries.get(account),
    set: async (account, secret) => void entries.set(account, secret),
    delete: async (account) => entries.delete(account),
  };
}

describe('profile migrate', () => {
  it('no keyring reachable: exit 3 naming why and that nothing was changed, dry run or not; the store is as it was', async () => {
    const dir = tempDir();
    await add(dir, 'ci', svc.url, svc.adminKey);
    const before = readFileSync(storeFile(dir), 'utf8');
    for (const args of [['--dry-run'], [], ['--to', 'keyring', 'ci']]) {
      const r = await runCli(['profile', 'migrate', ...args], { configDir: dir, stderrTTY: true });
      expect(r.code, args.join(' ')).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        'lic: no keyring reachable: no keyring in this test context; nothing was changed: run it where the keyring is (a desktop session)\n',
      );
    }
    expect(readFileSync(storeFile(dir), 'utf8')).toBe(before);
    expect(mode(dir)).toBe(0o600);
  });

  it('--to file with every key already in the file: one row per profile, "already", and a note saying nothing moved', async () => {
    const dir = tempDir();
    await add(dir, 'a', svc.url, svc.adminKey);
    await add(dir, 'b', svc.url, svc.adminKey);
    const before = readFileSync(storeFile(dir), 'utf8');
    const r = await runCli(['profile', 'migrate', '--to', 'file', '-o', 'json'], { configDir: dir, stderrTTY: true });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      profiles: [
        { profile: 'a', from: 'file', to: 'file', result: 'already' },
        { profile: 'b', from: 'file', to: 'file', result: 'already' },
      ],
    });
    expect(r.stderr).toBe(`Nothing to move: every key is already in the profile file ${storeFile(dir)}.\n`);
    expect(r.stdout + r.stderr).not.toContain(svc.adminKey);
    expect(readFileSync(storeFile(dir), 'utf8')).toBe(before);
  });

  it('an unknown profile or store: exit 2 naming what is allowed, nothing changed', async () => {
    const dir = tempDir();
    await add(dir, 'ci', svc.url, svc.adminKey);
    const before = readFileSync(storeFile(dir), 'utf8');
    const keyring = memoryKeyring();
    const nope = await runCli(['profile', 'migrate', 'ci', 'nope'], { configDir: dir, keyring });
    expect([nope.code, nope.stdout, nope.stderr]).toEqual([2, '', 'lic: no profile named "nope"; profiles: ci\n']);
    const disk = await runCli(['profile', 'migrate', '--to', 'disk'], { configDir: dir, keyring });
    expect(disk.code).toBe(2);
    expect(disk.stderr).toBe("lic: option '--to <store>' argument 'disk' is invalid. Allowed choices are keyring, file.\n");
    expect(readFileSync(storeFile(dir), 'utf8')).toBe(before);
    expect(keyring.entries.size).toBe(0);
  });

  it('with a keyring: --dry-run changes nothing; the move empties the file of keys and keys list still works; again: nothing; --to file NAME: back', async () => {
    const dir = tempDir();
    await add(dir, 'ci', svc.url, svc.adminKey);
    const keyring = memoryKeyring();
    const dry = await runCli(['profile', 'migrate', '--dry-run'], { configDir: dir, keyring });
    expect([dry.code, dry.stdout, dry.stderr]).toEqual([
      0,
      'ci\tfile\tkeyring\twould move\n',
      'Dry run: 1 key(s) would move into the keyring; nothing was changed.\n',
    ]);
    expect(store(dir).profiles.ci.apiKey).toBe(svc.adminKey);
    expect(keyring.entries.size).toBe(0);

    const moved = await runCli(['profile', 'migrate', '--to', 'keyring'], { configDir: dir, keyring, stderrTTY: true });
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toBe('ci\tfile\tkeyring\tmoved\n');
    expect(moved.stderr).toBe('Moved 1 key(s) into the keyring.\n');
    expect(readFileSync(storeFile(dir), 'utf8')).not.toContain(svc.adminKey);
    expect(mode(dir)).toBe(0o600);
    expect([...keyring.entries.values()]).toEqual([svc.adminKey]);
    const listed = await runCli(['keys', 'list', '-o', 'json'], { configDir: dir, keyring });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).apiKeys[0].name).toBe('bootstrap');

    const again = await runCli(['profile', 'migrate', '-o', 'json'], { configDir: dir, keyring });
    expect(JSON.parse(again.stdout)).toEqual({ profiles: [{ profile: 'ci', from: 'keyring', to: 'keyring', result: 'already' }] });

    const back = await runCli(['profile', 'migrate', '--to', 'file', 'ci'], { configDir: dir, keyring });
    expect([back.code, back.stdout]).toEqual([0, 'ci\tkeyring\tfile\tmoved\n']);
    expect(store(dir).profiles.ci.apiKey).toBe(svc.adminKey);
    expect(keyring.entries.size).toBe(0);
    expect((await runCli(['keys', 'list'], { configDir: dir })).code).toBe(0);
  });
});
