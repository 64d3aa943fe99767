// Cross-cutting: the modes of every directory and secret file lic makes; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * Directories lic makes are its owner's alone (0700), whatever the umask — the profile
 * store's (API keys), the service's data directory (the database and its key file), the
 * code cache — and so are the files in them that hold secrets (0600). Run through the real
 * bin/lic with umask 000, the worst a user's shell can have, on fresh XDG directories.
 */
import { statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnLic, startLic } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

let umask = 0;
beforeAll(() => {
  // the spawned lic inherits it
  umask = process.umask(0);
});
afterAll(() => void process.umask(umask));

const mode = (path: string) => statSync(path).mode & 0o777;
/** The mode of `leaf` and of every directory between `root` (exclusive) and it, as `{ 'a/b': '700' }`. */
function modes(root: string, leaf: string): Record<string, string> {
  const out: Record<string, string> = {};
  let rel = '';
  for (const part of relative(root, leaf).split('/')) {
    rel = rel ? `${rel}/${part}` : part;
    out[rel] = mode(join(root, rel)).toString(8);
  }
  return out;
}

describe('under umask 000', () => {
  it('the profile store: its directories 0700 (the XDG default and LIC_CONFIG_DIR alike), profiles.json 0600', async () => {
    const root = tempDir('lic-umask-');
    const env = { XDG_CONFIG_HOME: join(root, 'xdg-config'), HOME: join(root, 'home') };
    const add = await spawnLic(['profile', 'add', 'p', '--base-url', 'http://127.0.0.1:1', '--api-key-stdin'], {
      env,
      stdin: 'api_000000000000000000000000\n',
    });
    expect(add.code, add.stderr).toBe(0);
    expect(modes(root, join(root, 'xdg-config', 'lic', 'profiles.json'))).toEqual({
      'xdg-config': '700',
      'xdg-config/lic': '700',
      'xdg-config/lic/profiles.json': '600',
    });
    const explicit = await spawnLic(['profile', 'add', 'p', '--base-url', 'http://127.0.0.1:1', '--api-key-stdin'], {
      env: { ...env, LIC_CONFIG_DIR: join(root, 'a', 'b') },
      stdin: 'api_000000000000000000000000\n',
    });
    expect(explicit.code, explicit.stderr).toBe(0);
    expect(modes(root, join(root, 'a', 'b', 'profiles.json'))).toEqual({ a: '700', 'a/b': '700', 'a/b/profiles.json': '600' });
  });

  it('the code cache: every directory 0700, from $XDG_CACHE_HOME down', async () => {
    const root = tempDir('lic-umask-');
    // a command that loads the bundle and a file of dist/vendor/ (csv-stringify), for which
    // Node's own cache is switched on (`lic --help` is prebuilt, dist/help.json, and loads neither)
    const r = await spawnLic(['profile', 'list', '-o', 'csv'], {
      env: { XDG_CACHE_HOME: join(root, 'xdg-cache'), LIC_CACHE_DIR: '', LIC_CONFIG_DIR: join(root, 'config') },
    });
    expect(r.code, r.stderr).toBe(0);
    const cache = join(root, 'xdg-cache', 'lic', 'compile-cache');
    const entries = (await import('node:fs')).readdirSync(cache);
    // Node's subdirectory (per Node version and V8 flags) and bin/lic.js's cache of dist/cli.cjs
    const versioned = entries.filter((e) => e.startsWith('v'));
    expect(versioned).toHaveLength(1);
    const all = modes(root, join(cache, versioned[0]!));
    expect(Object.values(all)).toEqual(['700', '700', '700', '700']);
    const own = entries.filter((e) => e.startsWith('cli-'));
    expect(own).toHaveLength(1);
    expect(mode(join(cache, own[0]!))).toBe(0o600);
  });

  it("lic serve's data directory: 0700 down from $XDG_DATA_HOME, the database and its key file 0600", async () => {
    const root = tempDir('lic-umask-');
    const p = startLic(['serve', '--port', '0', '--no-profile'], {
      env: { XDG_DATA_HOME: join(root, 'xdg-data'), HOME: join(root, 'home') },
    });
    await p.waitForStdout(/^http:\/\/127\.0\.0\.1:\d+\n/);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    const data = join(root, 'xdg-data', 'lic');
    expect(modes(root, data)).toEqual({ 'xdg-data': '700', 'xdg-data/lic': '700' });
    expect(mode(join(data, 'lic.db'))).toBe(0o600);
    expect(mode(join(data, 'lic.db.key'))).toBe(0o600);
    // --db in a directory that does not exist yet: made 0700 too
    const q = startLic(['serve', '--port', '0', '--no-profile', '--db', join(root, 'x', 'y', 'lic.db')], {
      env: { HOME: join(root, 'home') },
    });
    await q.waitForStdout(/^http:\/\/127\.0\.0\.1:\d+\n/);
    q.child.kill('SIGTERM');
    expect((await q.exited).code).toBe(0);
    expect(modes(root, join(root, 'x', 'y', 'lic.db'))).toEqual({ x: '700', 'x/y': '700', 'x/y/lic.db': '600' });
  });
});
