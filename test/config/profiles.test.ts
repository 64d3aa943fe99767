import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProfileStore, ProfileStoreError, readProfiles, storePath } from '../../src/config/profiles.js';
import { tempDir } from '../helpers/cli.js';

// commands read the store without conf (readProfiles); profile verbs write it through conf
describe('profile store: the fast reader and conf agree', () => {
  it('reads the very file conf writes, in a given dir and in the default dir', async () => {
    const dir = tempDir();
    const store = await ProfileStore.open(dir);
    expect(storePath(dir)).toBe(store.path);
    store.set('a', { baseUrl: 'http://127.0.0.1:1', apiKey: 'api_aaaaaaaaaaaaaaaaaaaaaaaa' });
    store.set('b', { baseUrl: 'http://127.0.0.1:2' }, true);
    const view = readProfiles(dir);
    expect(view.defaultName()).toBe('b');
    expect(view.get('a')).toEqual({ baseUrl: 'http://127.0.0.1:1', apiKey: 'api_aaaaaaaaaaaaaaaaaaaaaaaa' });
    expect(view.list().map((p) => [p.name, p.isDefault])).toEqual([
      ['a', false],
      ['b', true],
    ]);
    expect(view.get('toString')).toBeUndefined();

    const home = tempDir();
    const prev = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = join(home, '.config');
    try {
      expect(storePath()).toBe((await ProfileStore.open()).path);
    } finally {
      // assigning undefined would set the string "undefined": unset what was unset
      for (const [k, v] of Object.entries(prev)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('a missing file is an empty store; a corrupt one is an error that shows none of its content', () => {
    const dir = tempDir();
    expect(readProfiles(dir).list()).toEqual([]);
    writeFileSync(join(dir, 'profiles.json'), '{"profiles": {"x": {"baseUrl": "u", "apiKey": "api_secretsecretsecretsecre');
    expect(() => readProfiles(dir)).toThrow(ProfileStoreError);
    expect(() => readProfiles(dir)).toThrow(/not valid JSON/);
    try {
      readProfiles(dir);
    } catch (e) {
      expect((e as Error).message).not.toContain('secret');
    }
  });
});
