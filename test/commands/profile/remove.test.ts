/**
 * `lic profile remove` (alias rm) with a temporary store: the profile and, for the
 * default, the default go; an unknown name is a usage error.
 */
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { add, mode, store, useTwoServices } from './_shared.js';

const { s1, s2 } = useTwoServices();

describe('profile remove', () => {
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
