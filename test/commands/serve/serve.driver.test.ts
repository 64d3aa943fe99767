/**
 * `lic serve` without a working better-sqlite3: one line naming what is missing and what to
 * do, exit 1, and nothing else started (test/commands/serve/serve.test.ts runs the command).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sqliteDriverProblem } from '../../../src/commands/serve/driver.js';
import { tempDir } from '../../helpers/cli.js';
import { LIC_NODE } from '../../helpers/spawn.js';

describe('lic serve: the SQLite driver check', () => {
  it('finds nothing wrong with the driver this test run uses', () => {
    expect(sqliteDriverProblem()).toBeUndefined();
  });

  it('names the dependency and the reinstall when the package is absent', () => {
    const line = sqliteDriverProblem('better-sqlite3-absent-for-this-test');
    expect(line).toBeDefined();
    expect(line).not.toContain('\n');
    expect(line).toMatch(/^`lic serve` needs better-sqlite3, a dependency of lic, which is not installed/);
    expect(line).toContain('npm install -g lic');
    expect(line).toContain('every other command works without it');
  });

  it('on a platform without a prebuilt binary: names the platforms it has, this one, and how to build one', () => {
    // what better-sqlite3 13 does there: its index loads, the constructor requires build/Release/better_sqlite3.node
    const dir = tempDir();
    const pkg = join(dir, 'node_modules', 'no-prebuild-driver');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(
      join(pkg, 'index.js'),
      `module.exports = function Database() { require(${JSON.stringify(join(pkg, 'build', 'Release', 'better_sqlite3.node'))}); };\n`,
    );
    const line = sqliteDriverProblem(join(pkg, 'index.js'), '/opt/lic', 'freebsd-x64');
    expect(line).not.toContain('\n');
    expect(line).toMatch(
      /^`lic serve` needs the SQLite driver better-sqlite3, which ships binaries for Linux \(glibc or musl\), macOS and Windows, on x64 and arm64, not for freebsd-x64: /,
    );
    expect(line).toContain('`npx node-gyp rebuild` in /opt/lic/node_modules/better-sqlite3');
    expect(line).toContain('every other command works');
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
    expect(line).toContain('reinstall lic, which is in /opt/lic');
  });

  it('the built `lic serve` on a platform without a binary: exit 1, one line, no database, other commands still run', async () => {
    // a copy of the package (bin/, dist/) whose better-sqlite3 behaves as it does without a prebuilt binary
    const root = tempDir();
    const repo = fileURLToPath(new URL('../../../', import.meta.url));
    for (const d of ['bin', 'dist']) cpSync(join(repo, d), join(root, d), { recursive: true });
    cpSync(join(repo, 'package.json'), join(root, 'package.json'));
    const pkg = join(root, 'node_modules', 'better-sqlite3');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'better-sqlite3', version: '13.2.0', main: 'index.js' }));
    writeFileSync(join(pkg, 'index.js'), `module.exports = function Database() { require('./build/Release/better_sqlite3.node'); };\n`);
    const dataDir = tempDir();
    const bin = join(root, 'bin', 'lic.js');
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(LIC_NODE, [bin, ...args], {
          env: { PATH: process.env.PATH ?? '', HOME: dataDir, LIC_DATA_DIR: dataDir, NODE_DISABLE_COMPILE_CACHE: '1' },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const r = await run(['serve', '--port', '0', '--no-profile']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^lic: `lic serve` needs the SQLite driver better-sqlite3, which ships binaries for .*, not for \w+-\w+: build one with/,
    );
    expect(r.stderr).toContain(join(root, 'node_modules', 'better-sqlite3'));
    // no database was made: the check comes before anything else
    expect(readdirSync(dataDir)).toEqual([]);
    // and the other commands still run
    const help = await run(['keys', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('lic keys');
  });
});

describe(`the driver on this Node (${process.version})`, () => {
  it('survives the garbage collector freeing thousands of statements and closed databases', () => {
    // the pattern that aborted Node 24 with better-sqlite3 12 (a finalizer calling into a gone
    // environment): statements and databases dropped, then collected, in a process of their own
    const script = `
      const Database = require('better-sqlite3');
      let rows = 0;
      for (let round = 0; round < 6; round++) {
        const db = new Database(':memory:');
        db.exec('create table t (a integer primary key, b text)');
        const insert = db.prepare('insert into t (b) values (?)');
        db.transaction(() => { for (let i = 0; i < 2000; i++) insert.run('x' + i); })();
        for (let i = 0; i < 2000; i++) rows += db.prepare('select count(*) as n from t where a > ' + i).get().n > 0 ? 1 : 0;
        if (round % 2) db.close();
        globalThis.gc();
      }
      globalThis.gc();
      process.stdout.write(String(rows));
    `;
    const r = spawnSync(LIC_NODE, ['--expose-gc', '-e', script], {
      cwd: fileURLToPath(new URL('../../../', import.meta.url)),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.stderr).toBe('');
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(String(6 * 2000));
  });
});
