// bin/lic.js ends a finished command with process.exit() when nothing but the standard streams
// is left (exitWhenIdle), instead of Node's slower teardown: the run still ends only once every
// byte is out, with its own exit code, and a run with something left to do ends as Node ends it.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { useService } from '../helpers/fixtures.js';
import { BIN, LIC_NODE, spawnNode } from '../helpers/spawn.js';
import { insertLog } from './list/harness.js';

const ENTRIES = 4000;
const { svc, env } = useService();

/** A preload that says on stderr whether Node's own end ran ('beforeExit' is emitted only then). */
function probe(): string {
  const file = join(tempDir(), 'probe.cjs');
  writeFileSync(file, "process.on('beforeExit', () => require('node:fs').writeSync(2, 'PROBE: beforeExit\\n'));\n");
  return file;
}

/** `bash -c 'set -o pipefail; lic ARGS | READER'`: the pipeline's exit status and output. */
function pipeline(args: string[], reader: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', `set -o pipefail; ${[LIC_NODE, BIN, ...args].map(quote).join(' ')} | ${reader}`],
      { env: { PATH: process.env.PATH ?? '', HOME: tempDir(), ...env }, timeout: 30_000 },
      (e, stdout, stderr) => resolve({ code: e ? ((e as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

describe('the end of a finished run', () => {
  it('a reader slower than lic still gets every line, and the exit status is 0', async () => {
    insertLog(svc.db, ENTRIES);
    // ~1 MB of NDJSON into a 64 KB pipe that nobody reads for half a second
    const r = await pipeline(['log', 'list', '--all', '-o', 'ndjson'], '(sleep 0.5; wc -l)');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(Number(r.stdout.trim())).toBeGreaterThanOrEqual(ENTRIES);
  });

  it("a finished command ends without Node's teardown, with its own exit code", async () => {
    const pre = probe();
    const ok = await spawnNode(['-r', pre, BIN, 'keys', 'list', '-o', 'json'], {
      env: { PATH: process.env.PATH ?? '', HOME: tempDir(), ...env },
    });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).success).toBe(true);
    expect(ok.stderr).not.toContain('PROBE');
    // exit 4: the service says no (404), the message printed whole before the end
    const missing = await spawnNode(['-r', pre, BIN, 'keys', 'delete', '999999', '--yes'], {
      env: { PATH: process.env.PATH ?? '', HOME: tempDir(), ...env },
    });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^lic: .*\n$/);
  });

  it('a run with a timer left ends as Node ends it, after the timer', async () => {
    // a preload that leaves a 300 ms timer behind: exitWhenIdle sees it and lets Node end the run
    const file = join(tempDir(), 'timer.cjs');
    writeFileSync(
      file,
      "process.on('beforeExit', () => require('node:fs').writeSync(2, 'PROBE: beforeExit\\n'));\nsetTimeout(() => require('node:fs').writeSync(2, 'PROBE: timer\\n'), 300);\n",
    );
    const r = await spawnNode(['-r', file, BIN, 'keys', 'list', '-o', 'json'], {
      env: { PATH: process.env.PATH ?? '', HOME: tempDir(), ...env },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('PROBE: timer\nPROBE: beforeExit\n');
  });
});
