// bin/lic.js ends a finished command with process.exit() when nothing but the standard streams
// is left (exitWhenIdle), instead of Node's slower teardown: the run still ends only once every
// byte is out, with its own exit code, and a run with something left to do ends as Node ends it.
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { useService } from '../helpers/fixtures.js';
import { licInBash, spawnLicWithPreload, type SpawnResult } from '../helpers/spawn.js';
import { insertLog } from './list/harness.js';

const ENTRIES = 4000;
const { svc, env } = useService();
const runEnv = () => ({ PATH: process.env.PATH ?? '', HOME: tempDir(), ...env });

/**
 * `lic ARGS` with a preload that says on stderr whether Node's own end ran ('beforeExit' is
 * emitted only then), plus `extra` code of its own.
 */
function withProbe(args: string[], extra = ''): Promise<SpawnResult> {
  const probe = `process.on('beforeExit', () => require('node:fs').writeSync(2, 'PROBE: beforeExit\\n'));\n${extra}`;
  return spawnLicWithPreload(args, probe, tempDir(), runEnv());
}

describe('the end of a finished run', () => {
  it('a reader slower than lic still gets every line, and the exit status is 0', async () => {
    insertLog(svc.db, ENTRIES);
    // ~1 MB of NDJSON into a 64 KB pipe that nobody reads for half a second
    const r = await licInBash(['log', 'list', '--all', '-o', 'ndjson'], '| (sleep 0.5; wc -l)', runEnv());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(Number(r.stdout.trim())).toBeGreaterThanOrEqual(ENTRIES);
  });

  it("a finished command ends without Node's teardown, with its own exit code", async () => {
    const ok = await withProbe(['keys', 'list', '-o', 'json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).success).toBe(true);
    expect(ok.stderr).not.toContain('PROBE');
    // exit 4: the service says no (404), the message printed whole before the end
    const missing = await withProbe(['keys', 'delete', '999999', '--yes']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^lic: .*\n$/);
  });

  it('a run with a timer left ends as Node ends it, after the timer', async () => {
    // the preload leaves a 300 ms timer behind: exitWhenIdle sees it and lets Node end the run
    const r = await withProbe(
      ['keys', 'list', '-o', 'json'],
      "setTimeout(() => require('node:fs').writeSync(2, 'PROBE: timer\\n'), 300);\n",
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('PROBE: timer\nPROBE: beforeExit\n');
  });
});
