// Cross-cutting: bin/lic.js's compile cache, the same for every command; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * bin/lic.js's code caches in LIC_CACHE_DIR: Node's own (module.enableCompileCache), one
 * subdirectory per Node version and set of V8 flags at start (none: --liftoff-only is set
 * later, only when undici loads, for a proxy, an extra CA or https://), for dist/vendor/ and
 * dist/server.cjs; and dist/cli.cjs's, made after a run, one file per noun and build
 * (`cli-<build>-<noun>-…cache`). Whatever the caches hold, a run prints the same and exits
 * the same: a missing, corrupt, stale or unwritable cache only costs time, and nothing about
 * the cache or the V8 flag ever reaches stderr.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';

import { spawnLic } from '../helpers/spawn.js';
import { useService } from '../helpers/fixtures.js';

/** Every file under `dir`, relative, with its size and modification time. */
function listing(dir: string): Map<string, { size: number; mtimeMs: number }> {
  const out = new Map<string, { size: number; mtimeMs: number }>();
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const p = join(e.parentPath, e.name);
    const st = statSync(p);
    out.set(p.slice(dir.length + 1), { size: st.size, mtimeMs: st.mtimeMs });
  }
  return out;
}

/** The cache's top-level subdirectories: Node names them `v<version>-<arch>-<hash of the V8 flags>-<uid>`. */
const variants = (dir: string) => [...new Set([...listing(dir).keys()].filter((f) => f.includes('/')).map((f) => f.split('/')[0]))].sort();
/** dist/cli.cjs's caches (bin/lic.js), at the cache's top level. */
const cliCaches = (dir: string) => [...listing(dir).keys()].filter((f) => /^cli-[0-9a-f]{16}-[a-z-]+-.+\.cache$/.test(f)).sort();

let env: Record<string, string>;
const { svc } = useService({ seed: 'demo' });
beforeAll(async () => {
  env = { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey, LIC_CONFIG_DIR: tempDir() };
});

describe('the compile cache of bin/lic.js', () => {
  it('the first run writes it, the next ones read it unchanged and print the same', async () => {
    const cache = join(tempDir(), 'cache');
    const first = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache } });
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    const written = listing(cache);
    expect(cliCaches(cache)).toEqual([expect.stringMatching(/^cli-[0-9a-f]{16}-keys-/)]);
    expect(statSync(join(cache, cliCaches(cache)[0]!)).mode & 0o777).toBe(0o600);
    // it required no file (no vendor package over http://), so Node's own cache was never switched on
    expect(variants(cache)).toEqual([]);
    const again = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache } });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(again.stderr).toBe('');
    // accepted by V8, so not written again
    expect(listing(cache)).toEqual(written);
    // no V8 flag is set at start (--liftoff-only comes only with undici), so help shares the
    // directory (a verb's help: `lic keys --help` is prebuilt, dist/help.json, and loads no bundle)
    const help = await spawnLic(['keys', 'list', '--help'], { env: { LIC_CACHE_DIR: cache } });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('lic keys');
    expect(help.stderr).toBe('');
    const after = listing(cache);
    for (const [f, st] of written) expect(after.get(f)).toEqual(st);
    // a keys verb's help took the keys cache as it was; a usage error makes none
    expect(cliCaches(cache)).toHaveLength(1);
    expect((await spawnLic(['kyes', 'list'], { env: { LIC_CACHE_DIR: cache } })).code).toBe(2);
    expect(cliCaches(cache)).toHaveLength(1);
    // LIC_DEBUG=1 runs dist/cli.cjs, whose cache has a name of its own: the noun bundle's is untouched
    const debug = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache, LIC_DEBUG: '1' } });
    expect(debug.stdout).toBe(first.stdout);
    expect(cliCaches(cache)).toEqual([
      expect.stringMatching(/^cli-[0-9a-f]{16}-keys-/),
      expect.stringMatching(/^cli-[0-9a-f]{16}-whole-keys-/),
    ]);
    for (const [f, st] of written) expect(listing(cache).get(f)).toEqual(st);
  });

  it("Node's own cache holds the vendor files, one subdirectory per Node version and set of V8 flags", async () => {
    const cache = join(tempDir(), 'cache');
    const r = await spawnLic(['keys', 'list', '-o', 'csv'], { env: { ...env, LIC_CACHE_DIR: cache } });
    expect(r.code).toBe(0);
    expect(variants(cache)).toHaveLength(1);
    expect(variants(cache)[0]).toMatch(new RegExp(`^v${process.versions.node.replace(/\./g, '\\.')}-${process.arch}-`));
  });

  it("a cache of another build of dist/cli.cjs is never taken, and is removed when this build's is written", async () => {
    const cache = join(tempDir(), 'cache');
    mkdirSync(cache);
    // what an older build left: a file V8 would take for any source of its length
    writeFileSync(join(cache, `cli-0123456789abcdef-keys-${process.versions.v8}-${process.arch}.cache`), 'an older build');
    const r = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(cliCaches(cache)).toEqual([expect.not.stringContaining('0123456789abcdef')]);
  });

  it('through a proxy (undici, --liftoff-only set when it loads): the cache is written once and then accepted', async () => {
    const { startProxy } = await import('../helpers/proxy.js');
    const proxy = await startProxy();
    try {
      const cache = join(tempDir(), 'cache');
      const run = () => spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, HTTP_PROXY: proxy.url, LIC_CACHE_DIR: cache } });
      const first = await run();
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toBe('');
      const written = listing(cache);
      expect(written.size).toBeGreaterThan(0);
      const again = await run();
      expect(again.stdout).toBe(first.stdout);
      expect(again.stderr).toBe('');
      expect(listing(cache)).toEqual(written);
      expect(proxy.forwarded).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  });

  it('a corrupt cache is rejected; the run is unaffected', async () => {
    const cache = join(tempDir(), 'cache');
    const clean = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache } });
    expect(clean.code).toBe(0);
    const files = [...listing(cache).keys()];
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) writeFileSync(join(cache, f), 'not a code cache');
    const r = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(clean.stdout);
    expect(r.stderr).toBe('');
  });

  it.skipIf(process.getuid?.() === 0)('an unwritable cache directory: no cache, same output, exit 0', async () => {
    const cache = join(tempDir(), 'ro');
    // a verb's help loads the bundle (`lic --help` is prebuilt, dist/help.json)
    const first = await spawnLic(['log', 'list', '--help'], { env: { LIC_CACHE_DIR: join(tempDir(), 'ok') } });
    mkdirSync(cache);
    chmodSync(cache, 0o500);
    const r = await spawnLic(['log', 'list', '--help'], { env: { LIC_CACHE_DIR: cache } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(first.stdout);
    expect(r.stderr).toBe('');
    expect(listing(cache).size).toBe(0);
  });

  it('a cache directory that cannot be made (a file is in the way): no cache, same output, exit 0', async () => {
    const blocker = join(tempDir(), 'file');
    writeFileSync(blocker, 'x');
    const first = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: join(tempDir(), 'ok') } });
    const r = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: join(blocker, 'cache') } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(first.stdout);
    expect(r.stderr).toBe('');
  });

  it('NODE_DISABLE_COMPILE_CACHE=1 writes no cache', async () => {
    const cache = join(tempDir(), 'cache');
    const r = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache, NODE_DISABLE_COMPILE_CACHE: '1' } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('apiKeys');
    expect(listing(cache).size).toBe(0);
  });
});
