/**
 * The single executable (scripts/build-sea.mjs, `npm run build:sea`; docs/installing.md):
 * built from the current dist/ into a temporary directory, then run beside bin/lic.js on the
 * same command lines against the real service: the same bytes out, the same exit codes.
 * Linux x64 only, and only with LIC_TEST_SEA=1 (the build takes seconds and writes ~160 MB):
 * otherwise the tests are skipped, with a line saying why.
 */
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { useService } from '../helpers/fixtures.js';
import { http } from '../helpers/service.js';
import { spawnLic, type SpawnResult } from '../helpers/spawn.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const why =
  process.platform !== 'linux' || process.arch !== 'x64'
    ? `the single executable is built and tested on linux-x64, not ${process.platform}-${process.arch}`
    : process.env.LIC_TEST_SEA !== '1'
      ? 'LIC_TEST_SEA=1 builds the single executable (scripts/build-sea.mjs) and runs these tests'
      : undefined;
if (why) console.warn(`test/e2e/sea.test.ts: skipped: ${why}`);

let sea = '';
/** Runs the single executable with `args` (pipes, no terminal), as spawnLic runs bin/lic.js. */
function spawnSea(args: string[], env: Record<string, string> = {}): Promise<SpawnResult> {
  return new Promise((resolve) => {
    execFile(
      sea,
      args,
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        const e = error as (Error & { code?: number | string; signal?: NodeJS.Signals }) | null;
        resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, signal: e?.signal ?? null, stdout, stderr });
      },
    );
  });
}

describe.skipIf(why !== undefined)('dist/lic-sea, the single executable with a start-up snapshot', () => {
  const { svc } = useService();
  let env: Record<string, string>;
  beforeAll(() => {
    sea = join(tempDir('lic-sea-test-'), 'lic-sea');
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-sea.mjs'), '--out', sea], { stdio: ['ignore', 'ignore', 'pipe'] });
    env = { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey, LIC_CONFIG_DIR: tempDir() };
  }, 120_000);

  /** The executable and bin/lic.js on the same command line: the same stdout, stderr and exit code. */
  async function same(args: string[], extra: Record<string, string> = {}): Promise<SpawnResult> {
    const [a, b] = [await spawnSea(args, extra), await spawnLic(args, { env: extra })];
    expect({ code: a.code, stdout: a.stdout, stderr: a.stderr }).toEqual({ code: b.code, stdout: b.stdout, stderr: b.stderr });
    return a;
  }

  it('--version prints the package version, as bin/lic.js does', async () => {
    const r = await same(['--version']);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
  });

  it('--help (a prebuilt page), `keys --help` and `keys list --help` (built by the program) are bin/lic.js’s bytes', async () => {
    expect((await same(['--help'])).stdout).toMatch(/^Usage: lic /);
    expect((await same(['keys', '--help'])).stdout).toMatch(/^Usage: lic keys /);
    expect((await same(['keys', 'list', '--help'])).stdout).toMatch(/^Usage: lic keys list/);
  });

  it('keys list -o json against the real service: the raw body, as bin/lic.js prints it', async () => {
    const r = await same(['keys', 'list', '-o', 'json'], env);
    const raw = await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey });
    expect(r.stdout).toBe(`${JSON.stringify(raw.body)}\n`);
    expect(r.stderr).toBe('');
  });

  it('a usage error: exit 2, the same one line', async () => {
    const r = await same(['keys', 'list', '-o', 'nope'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lic: /);
  });

  it('a vendor file from the executable’s assets (csv-stringify for -o csv)', async () => {
    const r = await same(['keys', 'list', '-o', 'csv'], env);
    expect(r.stdout).toMatch(/^id,/);
  });

  it('reads the environment of its run, not of its build: the profile store LIC_CONFIG_DIR names', async () => {
    const dir = tempDir();
    const r = await spawnSea(['doctor'], { ...env, LIC_CONFIG_DIR: dir });
    expect(r.stdout).toContain(join(dir, 'profiles.json'));
  });
});
