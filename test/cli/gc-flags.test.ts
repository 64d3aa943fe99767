// Cross-cutting: the V8 collector flag the real process sets once its API client is loaded
// (src/cli/system.ts: singleThreadedScavenges), for every command that sends a request.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { useService } from '../helpers/fixtures.js';
import { spawnLicWithPreload, spawnNode } from '../helpers/spawn.js';

const { svc } = useService({ seed: 'demo' });

/**
 * `lic ARGS` with a preload that records each V8 flag set at run time (node:v8's
 * setFlagsFromString, which lic reaches through process.getBuiltinModule) and whether
 * node:http was loaded by then; resolves with the exit code, stdout and that record.
 */
async function flagsSetBy(
  args: string[],
): Promise<{ code: number | null; stdout: string; flags: { flag: string; httpLoaded: boolean }[] }> {
  const dir = tempDir();
  const record = join(dir, 'flags.json');
  const probe = `const v8 = require('node:v8');
const set = v8.setFlagsFromString;
const seen = [];
v8.setFlagsFromString = (flag) => { seen.push({ flag, httpLoaded: process.moduleLoadList.includes('NativeModule http') }); set(flag); };
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify(seen)));
`;
  const r = await spawnLicWithPreload(args, probe, dir, {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    LIC_CONFIG_DIR: join(dir, 'config'),
    LIC_CACHE_DIR: join(dir, 'cache'),
    LIC_BASE_URL: svc.url,
    LIC_API_KEY: svc.adminKey,
  });
  return { code: r.code, stdout: r.stdout, flags: JSON.parse(readFileSync(record, 'utf8')) as { flag: string; httpLoaded: boolean }[] };
}

describe("V8's young-generation collections in a run that sends requests", () => {
  it('are made single-threaded once, after node:http has loaded; a run without a client sets nothing', async () => {
    const list = await flagsSetBy(['keys', 'list', '-o', 'json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).success).toBe(true);
    expect(list.flags).toEqual([{ flag: '--no-parallel-scavenge', httpLoaded: true }]);
    // page after page through one client: still once
    const second = await flagsSetBy(['keys', 'list', '--all', '--take', '1', '-o', 'ndjson']);
    expect(second.code).toBe(0);
    expect(second.stdout.trim().split('\n').length).toBeGreaterThan(1);
    expect(second.flags).toEqual([{ flag: '--no-parallel-scavenge', httpLoaded: true }]);
    for (const args of [['--version'], ['keys', 'list', '--bogus'], ['profile', 'list']]) {
      const r = await flagsSetBy(args);
      expect(r.flags, args.join(' ')).toEqual([]);
    }
  });

  it("the flag leaves V8's code caches valid: a cache made before it is taken after it, under the same version tag", async () => {
    // in a child: a flag set here would change the test worker's own V8
    const code = `
const v8 = require('node:v8'); const vm = require('node:vm');
const src = 'function f(x) { return x + 1 } f(1)';
const first = new vm.Script(src); first.runInThisContext();
const data = first.createCachedData(); const tag = v8.cachedDataVersionTag();
v8.setFlagsFromString('--no-parallel-scavenge');
const again = new vm.Script(src, { cachedData: data });
process.stdout.write(JSON.stringify({ rejected: again.cachedDataRejected, sameTag: v8.cachedDataVersionTag() === tag }));`;
    const r = await spawnNode(['-e', code]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ rejected: false, sameTag: true });
  });
});
