// Cross-cutting: the Node floor bin/lic.js enforces before any command; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * The Node floor: src/cli/node-lines.json is the one place that says which Node lines lic
 * runs on; package.json engines.node and dist/version.json (what bin/lic.js reads) agree with
 * it. On a Node older than the floor, bin/lic.js answers --version and refuses everything
 * else in one line, exit 2. That part runs a real old Node (this machine's system Node, when
 * it is one) and skips visibly where none is found.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import nodeLines from '../../src/cli/node-lines.json' with { type: 'json' };
import { tempDir } from '../helpers/cli.js';
import { BIN } from '../helpers/spawn.js';

const root = new URL('../../', import.meta.url);
const readJson = (rel: string) => JSON.parse(readFileSync(new URL(rel, root), 'utf8')) as Record<string, unknown>;

/** Whether "a.b.c" is older than "x.y.z". */
function older(a: string, b: string): boolean {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  return false;
}

/** A Node binary on this machine older than the floor (every `node` on PATH, then /usr/bin and /usr/local/bin), with its version. */
const oldNode: { path: string; version: string } | undefined = (() => {
  const candidates = new Set<string>();
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir) candidates.add(join(dir, 'node'));
  candidates.add('/usr/bin/node');
  candidates.add('/usr/local/bin/node');
  for (const path of candidates) {
    if (!existsSync(path)) continue;
    try {
      const version = execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim().replace(/^v/, '');
      if (older(version, nodeLines.floor)) return { path, version };
    } catch {
      // not a runnable node
    }
  }
  return undefined;
})();

describe('the Node lines, one place', () => {
  it('package.json engines.node is the floor of src/cli/node-lines.json', () => {
    const floor = nodeLines.floor.replace(/\.0$/, '');
    expect((readJson('package.json').engines as { node: string }).node).toBe(`>=${floor}`);
  });
  it('dist/version.json (what bin/lic.js reads) carries the same lines', () => {
    const { floor, supported, endOfLife } = nodeLines;
    expect(readJson('dist/version.json').node).toEqual({ floor, supported, endOfLife });
  });
  it('the driver, better-sqlite3, runs on the floor; every supported line is at or above it and has an end-of-life date', () => {
    const engines = (readJson('node_modules/better-sqlite3/package.json').engines as { node: string }).node;
    const driverFloor = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(engines)?.[1];
    expect(driverFloor, `better-sqlite3 engines.node ${engines}`).toBeDefined();
    expect(older(nodeLines.floor, driverFloor!)).toBe(false);
    for (const line of nodeLines.supported) {
      expect(Number(nodeLines.floor.split('.')[0])).toBeLessThanOrEqual(line);
      expect((nodeLines.endOfLife as Record<string, string>)[line]).toMatch(/^\d{4}-\d\d-\d\d$/);
    }
  });
  it('this test run is on a supported line', () => {
    expect(nodeLines.supported).toContain(Number(process.versions.node.split('.')[0]));
  });
});

describe.skipIf(!oldNode)(
  `on a Node older than ${nodeLines.floor}${oldNode ? ` (${oldNode.path}, ${oldNode.version})` : ' (none on this machine)'}`,
  () => {
    const run = (args: string[], env: Record<string, string> = {}) =>
      spawnSync(oldNode!.path, [BIN, ...args], {
        encoding: 'utf8',
        timeout: 20_000,
        env: { PATH: process.env.PATH ?? '', HOME: tempDir(), ...env },
      });

    it('every command stops with one line naming the supported lines and how to get one, exit 2', () => {
      for (const args of [['keys', 'list'], ['--help'], [], ['serve', '--port', '0'], ['doctor']]) {
        const r = run(args, { LIC_DATA_DIR: tempDir(), LIC_BASE_URL: 'http://127.0.0.1:1', LIC_API_KEY: 'api_x' });
        expect(r.status, args.join(' ')).toBe(2);
        expect(r.stdout).toBe('');
        const lines = r.stderr.split('\n').filter(Boolean);
        expect(lines, r.stderr).toHaveLength(1);
        expect(lines[0]).toMatch(new RegExp(`^lic: Node\\.js ${oldNode!.version.replace(/\./g, '\\.')} is not supported`));
        expect(lines[0]).toContain(`lic needs Node.js 22, 24 or 26 (${nodeLines.floor} or newer)`);
        expect(lines[0]).toContain('https://nodejs.org/en/download');
      }
    });

    it('names the end of life of its line, and in this clone how to run on the Node the clone installed', () => {
      const r = run(['keys', 'list']);
      const major = oldNode!.version.split('.')[0]!;
      const eol = (nodeLines.endOfLife as Record<string, string | undefined>)[major];
      if (eol) expect(r.stderr).toContain(`(Node ${major} reached its end of life on ${eol})`);
      else expect(r.stderr).not.toContain('end of life');
      const bin = join(new URL('.', root).pathname, 'node_modules', '.bin');
      if (existsSync(join(bin, 'node'))) expect(r.stderr).toContain(`export PATH="${bin}:$PATH"`);
      else expect(r.stderr).not.toContain('export PATH');
    });

    it('--version still answers, exit 0', () => {
      const r = run(['--version']);
      expect(r.status).toBe(0);
      expect(r.stdout.trim()).toBe(readJson('package.json').version);
      expect(r.stderr).toBe('');
    });
  },
);
