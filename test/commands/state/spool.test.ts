/**
 * `lic diff -f -` and `lic apply -f -` copy stdin to a private temporary file (src/cli/spool.ts)
 * and read that as a regular file: the real bin/lic, spawned with a TMPDIR of its own and a
 * stdin the test holds open, against the reference service. While stdin is read the copy is
 * a 0600 file in a 0700 `lic-state-*` directory; that directory is gone after a run that
 * succeeds, after a bad file (exit 2), after stdin over the limit (exit 2, one line), and at
 * once on SIGINT or SIGTERM mid-read (exit 130); a temporary folder that can't hold it is one
 * line. A path that can be read only once (a FIFO the test writes) is copied the same way.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, createWriteStream, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { useService } from '../../helpers/fixtures.js';
import { BIN, LIC_NODE, spawnLicTty } from '../../helpers/spawn.js';
import { tempDir } from '../../helpers/temp.js';

const { env } = useService();
const dir = tempDir('lic-spool-');
let n = 0;

/** A TMPDIR of its own, empty. */
function freshTmp(): string {
  const tmp = join(dir, `tmp-${n++}`);
  mkdirSync(tmp);
  return tmp;
}

interface Held {
  child: ChildProcessWithoutNullStreams;
  /** exit code, or the signal's name */
  exited: Promise<{ code: number | string | null; stdout: string; stderr: string }>;
}

/** The real `lic ARGS` with TMPDIR=`tmp`, its stdin a pipe the test writes and ends (or keeps open); killed after 60 s. */
function lic(args: string[], tmp: string, stdin: 'pipe' | number = 'pipe'): Held {
  const child = spawn(LIC_NODE, [BIN, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: join(dir, 'home'),
      TMPDIR: tmp,
      LIC_CONFIG_DIR: join(dir, 'config'),
      LIC_CACHE_DIR: join(dir, 'cache'),
      ...env,
    },
    stdio: [stdin, 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams;
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exited = new Promise<{ code: number | string | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, sig) => {
      clearTimeout(killer);
      resolve({ code: code ?? sig, stdout, stderr });
    }),
  );
  return { child, exited };
}

/** Waits until lic's copy of stdin in `tmp` holds bytes; returns the directory's and the file's modes. */
async function spoolOf(tmp: string): Promise<{ name: string; dirMode: number; fileMode: number }> {
  for (let i = 0; i < 600; i++) {
    const [d] = readdirSync(tmp);
    if (d) {
      const files = readdirSync(join(tmp, d));
      if (files.length && statSync(join(tmp, d, files[0]!)).size > 0)
        return {
          name: d,
          dirMode: statSync(join(tmp, d)).mode & 0o777,
          fileMode: statSync(join(tmp, d, files[0]!)).mode & 0o777,
        };
    }
    await sleep(50);
  }
  throw new Error(`no copy of stdin appeared in ${tmp}: ${JSON.stringify(readdirSync(tmp))}`);
}

const key = (i: number, extra = '') =>
  `  - name: spool-key-${i}\n    ownerId: owner-${i % 7}\n    permissions: 1\n    description: key ${i}\n${extra}`;
const keys = (from: number, to: number, rec = key) => Array.from({ length: to - from }, (_, i) => rec(from + i)).join('');

/** A new FIFO (mkfifo) in the test's directory. */
function mkfifo(): string {
  const path = join(dir, `state-${n++}.fifo`);
  execFileSync('mkfifo', [path]);
  return path;
}

/**
 * `lic VERB -f INPUT` (TMPDIR `tmp`) reading what the test writes to `feed`: its stdin
 * (`-f -`), or a FIFO whose writer the test holds (`-f FIFO`: the writer's open waits for
 * lic's). `source` is what lic's messages call the input.
 */
function licReading(via: 'stdin' | 'a FIFO', verb: string, args: string[], tmp: string): Held & { feed: Writable; source: string } {
  if (via === 'stdin') {
    const run = lic([verb, '-f', '-', ...args], tmp);
    return { ...run, feed: run.child.stdin, source: 'stdin' };
  }
  const path = mkfifo();
  return { ...lic([verb, '-f', path, ...args], tmp), feed: createWriteStream(path), source: path };
}

describe.each(['stdin', 'a FIFO'] as const)('a state file on %s is copied to a private file, removed on every way out', (via) => {
  it('lic diff: the copy is 0600 in a 0700 lic-state-* directory while the input is read; gone after the plan (exit 0)', async () => {
    const tmp = freshTmp();
    const run = licReading(via, 'diff', ['-o', 'json'], tmp);
    run.feed.write('version: 1\nkeys:\n' + keys(0, 200));
    // the bytes so far are in the copy before the input ends: one pass
    const spool = await spoolOf(tmp);
    expect(spool).toEqual({ name: expect.stringMatching(/^lic-state-/), dirMode: 0o700, fileMode: 0o600 });
    run.feed.end(keys(200, 300));
    const r = await run.exited;
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { create: number; steps: { item: string; line: number }[] };
    expect(plan.create).toBe(300);
    expect(plan.steps.at(-1)).toMatchObject({ item: 'spool-key-299', line: 2 + 299 * 4 + 1 });
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('lic apply: a bad record far into the input is exit 2 naming SOURCE:LINE, nothing sent; the copy is gone', async () => {
    const tmp = freshTmp();
    const run = licReading(via, 'apply', [], tmp);
    run.feed.write('version: 1\nkeys:\n' + keys(0, 200));
    await spoolOf(tmp);
    run.feed.end(keys(200, 300, (i) => key(i, i === 250 ? '    colour: red\n' : '')));
    const r = await run.exited;
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'lic: invalid state file; nothing was sent:\n' +
        `  ${run.source}:${2 + 250 * 4 + 5}: keys[250].colour: unknown field (fields: name, ownerId, permissions, description, expireDate, revoked)\n`,
    );
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('SIGINT or SIGTERM while the input is read (it stays open): exit 130, the copy removed', async () => {
    for (const [verb, signal] of [
      ['diff', 'SIGINT'],
      ['apply', 'SIGTERM'],
    ] as const) {
      const tmp = freshTmp();
      const run = licReading(via, verb, [], tmp);
      run.feed.write('version: 1\nkeys:\n' + keys(0, 200));
      await spoolOf(tmp);
      run.child.kill(signal);
      const r = await run.exited;
      run.feed.destroy();
      expect(r.code, `${verb} ${signal}: ${r.stderr}`).toBe(130);
      expect(r.stderr).toBe('lic: interrupted\n');
      expect(readdirSync(tmp)).toEqual([]);
    }
  });
});

describe('stdin alone', () => {
  it('stdin past the limit (/dev/zero): the one line naming stdin and the limit, exit 2; the copy is gone', async () => {
    for (const verb of ['diff', 'apply']) {
      const tmp = freshTmp();
      const zero = openSync('/dev/zero', 'r');
      const run = lic([verb, '-f', '-'], tmp, zero);
      closeSync(zero);
      const r = await run.exited;
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        'lic: stdin: more than the limit of 67108864 bytes (64 MiB) for a state file; keep resource data in files (lic state export --data-dir DIR)\n',
      );
      expect(readdirSync(tmp)).toEqual([]);
    }
  }, 120_000);

  it('a temporary folder that does not exist: one line naming it, exit 1, for diff -f - and resources import -', async () => {
    const missing = join(dir, 'no-such-tmp');
    for (const args of [
      ['diff', '-f', '-'],
      ['resources', 'import', '-'],
    ]) {
      const run = lic(args, missing);
      run.child.stdin.end('version: 1\nkeys: []\n');
      const r = await run.exited;
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`lic: stdin: cannot copy it to the temporary folder ${missing}: no such file\n`);
    }
  });
});

describe('a FIFO with no writer yet', () => {
  it('Ctrl-C while lic waits for the writer ends it at once (no copy was begun)', async () => {
    const tmp = freshTmp();
    const run = lic(['diff', '-f', mkfifo()], tmp);
    // lic is waiting in its open of the FIFO
    await sleep(1000);
    run.child.kill('SIGINT');
    const r = await run.exited;
    // Node's default action: no handler was watching yet, so nothing of lic ran after the signal
    expect(r.code).toBe('SIGINT');
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('stdin on a terminal', () => {
  it('lic diff -f - says it reads the state file from the terminal and how to end it; typed, then Ctrl-D, it plans', async () => {
    const r = await spawnLicTty(['diff', '-f', '-'], {
      env: { ...env, TMPDIR: freshTmp(), LIC_CONFIG_DIR: join(dir, 'config') },
      typeWhen: /Ctrl-D/,
      input: `version: 1\nkeys:\n${key(1)}\x04`,
    });
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('lic: reading the state file from the terminal; end it with Ctrl-D\r\n');
    expect(r.output.replace(/\x1b\[[0-9;]*m/g, '')).toContain('+ create API key "spool-key-1" (stdin:3)');
  });
});
