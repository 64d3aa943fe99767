/**
 * `lic serve` without a working better-sqlite3 (an optional dependency, issue 11): one
 * line naming what is missing and how to install it, exit 1, and nothing else started.
 * The "not installed" case as users get it (a packed tarball installed with the native
 * build failing) is scripts/pack-check.mjs, run by .ci/run.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteDriverProblem } from '../../../src/commands/serve/driver.js';
import { tempDir } from '../../helpers/cli.js';
import { BIN, LIC_NODE, spawnLic } from '../../helpers/spawn.js';

describe('lic serve: the SQLite driver check', () => {
  it('finds nothing wrong with the driver this test run uses', () => {
    expect(sqliteDriverProblem()).toBeUndefined();
  });

  it('refuses Node 24 and newer with better-sqlite3 12 (it aborts there when V8 frees a statement), before opening any database', () => {
    const line = sqliteDriverProblem(undefined, undefined, '24.21.0');
    expect(line).toMatch(/^`lic serve` can't run on Node 24\.21\.0 with better-sqlite3 12\.\d+\.\d+: /);
    expect(line).toContain('run `lic serve` with Node 20 or 22');
    expect(line).not.toContain('\n');
    expect(sqliteDriverProblem(undefined, undefined, '22.23.0')).toBeUndefined();
  });

  it('names the optional dependency, the toolchain and the reinstall when the package is absent', () => {
    const line = sqliteDriverProblem('better-sqlite3-absent-for-this-test');
    expect(line).toBeDefined();
    expect(line).not.toContain('\n');
    expect(line).toMatch(/^`lic serve` needs the optional dependency better-sqlite3, which is not installed/);
    expect(line).toContain('python3, make and a C++ compiler');
    expect(line).toContain('npm install -g lic');
    expect(line).toContain('every other command works without it');
  });

  it('names the loader error and `npm rebuild` in the package directory when the native binding does not load', () => {
    // a driver whose binding is not a shared object: the real dlopen error of a broken build
    const dir = tempDir();
    const pkg = join(dir, 'node_modules', 'broken-driver');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'not-elf.node'), 'this is not a shared object\n');
    writeFileSync(
      join(pkg, 'index.js'),
      `module.exports = function Database() { process.dlopen({ exports: {} }, ${JSON.stringify(join(pkg, 'not-elf.node'))}); };\n`,
    );
    const line = sqliteDriverProblem(join(pkg, 'index.js'), '/opt/lic');
    expect(line).not.toContain('\n');
    expect(line).toMatch(/^`lic serve` needs better-sqlite3, which is installed but does not load on Node v\d+/);
    expect(line).toContain('not-elf.node');
    expect(line).toContain('`npm rebuild better-sqlite3` in /opt/lic');
  });

  // In the CI matrix the CLI under test runs on Node 22/24 beside a better-sqlite3 built for
  // vitest's Node 20: exactly a driver built for another Node. Elsewhere there is none to try.
  const otherAbi = process.env.LIC_TEST_NODE
    ? execFileSync(LIC_NODE, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim() !== process.versions.modules
    : false;
  const otherMajor = otherAbi ? Number(execFileSync(LIC_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0]) : 0;
  it.skipIf(!otherAbi)('on a Node the driver was not built for (LIC_TEST_NODE): exit 1, one line, nothing listening', async () => {
    const dataDir = tempDir();
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(LIC_NODE, [BIN, 'serve', '--port', '0', '--no-profile'], {
        // NODE_DISABLE_COMPILE_CACHE: on Node ≥ 22.1 the code cache would be the one thing in dataDir
        env: { PATH: process.env.PATH ?? '', HOME: dataDir, LIC_DATA_DIR: dataDir, NODE_DISABLE_COMPILE_CACHE: '1' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    if (otherMajor >= 24) {
      // better-sqlite3 12 is refused on Node 24 before its binding loads (it aborts there)
      expect(r.stderr).toMatch(/^lic: `lic serve` can't run on Node 2\d\.\d+\.\d+ with better-sqlite3 12\./);
    } else {
      expect(r.stderr).toMatch(/^lic: `lic serve` needs better-sqlite3, which is installed but does not load on Node v2\d/);
      expect(r.stderr).toContain('npm rebuild better-sqlite3');
    }
    // no database was made: the check comes before anything else
    expect(execFileSync('ls', ['-A', dataDir], { encoding: 'utf8' })).toBe('');
    // and the other commands still run on that Node
    const v = await spawnLic(['--version']);
    expect(v.code).toBe(0);
  });
});
