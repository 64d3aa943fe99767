/**
 * bin/lic.js's code cache (issue 9): on Node 20 a vm.Script per file of dist/ with its
 * cachedData in LIC_CACHE_DIR, keyed by the file's hash; on Node >= 22.1 Node's own compile
 * cache in the same directory. Whatever the cache holds, a run prints the same and exits
 * the same: a missing, corrupt or unwritable cache only costs time.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { LIC_NODE, spawnLic } from '../helpers/spawn.js';

// the Node that runs the CLI under test (LIC_TEST_NODE in the CI matrix), not vitest's
const cliVersion = LIC_NODE === process.execPath ? process.version : execFileSync(LIC_NODE, ['--version'], { encoding: 'utf8' }).trim();
const [major, minor] = (/^v(\d+)\.(\d+)/.exec(cliVersion) ?? []).slice(1).map(Number) as [number, number];
/** Node ≥ 22.1 has module.enableCompileCache; older ones use lic's own vm.Script cache. */
const nodeCache = major > 22 || (major === 22 && minor >= 1);

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

let svc: TestService;
let env: Record<string, string>;
beforeAll(async () => {
  svc = await startTestService({ seed: 'demo' });
  env = { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey, LIC_CONFIG_DIR: tempDir() };
});
afterAll(() => svc.close());

describe('the code cache of bin/lic.js', () => {
  it('the first run writes it, the next ones read it unchanged and print the same', async () => {
    const cache = join(tempDir(), 'cache');
    const first = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache } });
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    const written = listing(cache);
    expect(written.size).toBeGreaterThan(0);
    if (!nodeCache) {
      // one file per file of dist/ that ran, named after it and its hash
      const hashes = (
        JSON.parse(readFileSync(new URL('../../dist/version.json', import.meta.url), 'utf8')) as { hashes: Record<string, string> }
      ).hashes;
      expect([...written.keys()].sort()).toEqual(
        [
          `cli-${hashes['cli.cjs']}-${cliVersion}-${process.arch}-liftoff.v8`,
          `vendor-undici-${hashes['vendor/undici.cjs']}-${cliVersion}-${process.arch}-liftoff.v8`,
        ].sort(),
      );
    }
    const again = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache } });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(again.stderr).toBe('');
    // accepted by V8, so not written again
    expect(listing(cache)).toEqual(written);
    // a command with other functions reads the same cache
    const other = await spawnLic(['log', 'list', '--take', '1', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache } });
    expect(other.code).toBe(0);
    expect(listing(cache)).toEqual(written);
    // help sets no V8 flag (it sends nothing), so it has a cache of its own beside
    const help = await spawnLic(['keys', '--help'], { env: { LIC_CACHE_DIR: cache } });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('lic keys');
    const after = listing(cache);
    for (const [f, st] of written) expect(after.get(f)).toEqual(st);
    expect(after.size).toBeGreaterThan(written.size);
  });

  it.skipIf(nodeCache)('a new build replaces the cache of the old one; other files are left alone', async () => {
    const cache = join(tempDir(), 'cache');
    mkdirSync(cache);
    const old = `cli-0123456789abcdef-${cliVersion}-${process.arch}-liftoff.v8`;
    const otherNode = `cli-0123456789abcdef-v0.0.1-${process.arch}-liftoff.v8`;
    for (const f of [old, otherNode, 'notes.txt']) writeFileSync(join(cache, f), 'x');
    const r = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache } });
    expect(r.code).toBe(0);
    const files = [...listing(cache).keys()];
    expect(files).not.toContain(old);
    expect(files).toContain(otherNode);
    expect(files).toContain('notes.txt');
    expect(files.filter((f) => f.startsWith('cli-') && f.endsWith('-liftoff.v8'))).toHaveLength(2);
  });

  it('a corrupt cache is rejected and written again; the run is unaffected', async () => {
    const cache = join(tempDir(), 'cache');
    const clean = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache } });
    expect(clean.code).toBe(0);
    const files = [...listing(cache).keys()];
    for (const f of files) writeFileSync(join(cache, f), 'not a code cache');
    const r = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(clean.stdout);
    expect(r.stderr).toBe('');
    if (!nodeCache) for (const f of files) expect(readFileSync(join(cache, f), 'utf8')).not.toBe('not a code cache');
  });

  it.skipIf(process.getuid?.() === 0)('an unwritable cache directory: no cache, same output, exit 0', async () => {
    const cache = join(tempDir(), 'ro');
    const first = await spawnLic(['--help'], { env: { LIC_CACHE_DIR: join(tempDir(), 'ok') } });
    mkdirSync(cache);
    chmodSync(cache, 0o500);
    const r = await spawnLic(['--help'], { env: { LIC_CACHE_DIR: cache } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(first.stdout);
    expect(r.stderr).toBe('');
    expect(listing(cache).size).toBe(0);
  });

  it('a cache directory that cannot be made (a file is in the way): no cache, same output, exit 0', async () => {
    const blocker = join(tempDir(), 'file');
    writeFileSync(blocker, 'x');
    const first = await spawnLic(['keys', '--help'], { env: { LIC_CACHE_DIR: join(tempDir(), 'ok') } });
    const r = await spawnLic(['keys', '--help'], { env: { LIC_CACHE_DIR: join(blocker, 'cache') } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(first.stdout);
    expect(r.stderr).toBe('');
    expect(readFileSync(blocker, 'utf8')).toBe('x');
  });

  it('NODE_DISABLE_COMPILE_CACHE=1 writes no cache', async () => {
    const cache = join(tempDir(), 'cache');
    const r = await spawnLic(['keys', 'list', '-o', 'json'], { env: { ...env, LIC_CACHE_DIR: cache, NODE_DISABLE_COMPILE_CACHE: '1' } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('apiKeys');
    expect(listing(cache).size).toBe(0);
  });
});
