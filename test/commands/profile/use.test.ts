/**
 * `lic profile use` with a temporary store: it changes the default; an unknown name is a
 * usage error listing the profiles.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { store, threeProfiles, useTwoServices } from './_shared.js';

const { s1, s2 } = useTwoServices();
let dir: string;
beforeAll(async () => {
  dir = tempDir();
  await threeProfiles(dir, s1, s2);
});

describe('profile use', () => {
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
});
