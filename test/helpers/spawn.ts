import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/lic.js', import.meta.url));

/**
 * The Node binary that runs the CLI under test, `lic serve` included: vitest's own. The CI
 * matrix runs the whole suite on each supported Node line (.ci/node-matrix.sh), so the CLI,
 * the services and the tests always share one Node.
 */
export const LIC_NODE: string = process.execPath;

/**
 * The code cache directory of the CLIs this test file spawns (LIC_CACHE_DIR, bin/lic.js):
 * one per test worker, so every spawned run goes through the cached loader as a user's
 * does (the first writes the cache, the rest read it), never the user's own cache dir.
 */
const CACHE_DIR = mkdtempSync(join(tmpdir(), 'lic-test-cache-'));
process.once('exit', () => rmSync(CACHE_DIR, { recursive: true, force: true }));

/**
 * A script that runs dist/cli.cjs, the whole CLI, as bin/lic.js runs a bundle after its own
 * checks: `main(argv, systemContext())`, exit code set. No prebuilt help page, no noun bundle
 * (dist/cli-NOUN.cjs), no code cache: what bin/lic.js prints must be what this prints.
 */
export const WHOLE_CLI: string = join(mkdtempSync(join(tmpdir(), 'lic-test-whole-')), 'whole.cjs');
process.once('exit', () => rmSync(join(WHOLE_CLI, '..'), { recursive: true, force: true }));
writeFileSync(
  WHOLE_CLI,
  `const { main, systemContext } = require(${JSON.stringify(fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url)))});\nmain(process.argv.slice(2), systemContext()).then((c) => (process.exitCode = c));\n`,
);

/** `lic ARGS` through WHOLE_CLI, with pipes; the environment is PATH, HOME and `env`. */
export function spawnWholeCli(args: string[], env: Record<string, string> = {}): Promise<SpawnResult> {
  return spawnNode([WHOLE_CLI, ...args], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env } });
}

/**
 * `bash -c 'set -o pipefail; lic ARGS TAIL'` (`| head -1`, `> /dev/full`): the real bin/lic.js
 * in a shell pipeline, in exactly the environment `env`; the exit status is the pipeline's
 * (-1 when killed, after 30 s).
 */
export function licInBash(
  args: string[],
  tail: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = `set -o pipefail; ${[LIC_NODE, BIN, ...args].map(quote).join(' ')} ${tail}`;
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { env, timeout: 30_000 }, (e, stdout, stderr) =>
      resolve({ code: e ? ((e as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

export interface SpawnResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Spawns the real `bin/lic.js` on LIC_NODE with pipes (not a TTY); resolves when it exits. */
export function spawnLic(
  args: string[],
  o: { env?: Record<string, string>; stdin?: string; timeoutMs?: number } = {},
): Promise<SpawnResult> {
  return spawnNode([BIN, ...args], {
    ...o,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LIC_CACHE_DIR: CACHE_DIR, ...o.env },
  });
}

/**
 * The real `bin/lic.js ARGS` with `preload` (CommonJS source, written to a file in `dir`) run
 * first by `node -r`, in exactly the environment `env`, with pipes: tests that watch the
 * process from inside (its exit, the V8 flags it sets).
 */
export function spawnLicWithPreload(args: string[], preload: string, dir: string, env: Record<string, string>): Promise<SpawnResult> {
  const file = join(dir, 'preload.cjs');
  writeFileSync(file, preload);
  return spawnNode(['-r', file, BIN, ...args], { env });
}

/**
 * Spawns LIC_NODE with `args` (a script and its arguments, or `-e CODE`) and pipes, in exactly
 * the environment `o.env` (nothing else inherited); `o.stdin` is written and closed; killed
 * after `o.timeoutMs` (default 20 s); resolves with what it printed when it exits.
 */
export function spawnNode(
  args: string[],
  o: { env?: Record<string, string>; stdin?: string; timeoutMs?: number } = {},
): Promise<SpawnResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(LIC_NODE, args, { env: o.env ?? {}, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(o.stdin ?? '');
  });
}

/** Whether util-linux `script` (the pseudo-terminal of spawnLicTty) is on this machine; tests skip visibly without it. */
export const hasScript: boolean = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * Runs `lic ARGS` under a pseudo-terminal with util-linux `script`, so stdin/stdout/stderr
 * are all TTYs; returns the exit code and everything the terminal showed.
 */
export function spawnLicTty(
  args: string[],
  o: {
    env?: Record<string, string>;
    input?: string;
    cols?: number;
    /** the pty's height with `cols` (default 50) */
    rows?: number;
    nodeArgs?: string[];
    timeoutMs?: number;
    /** a shell command that reads lic's stdout, its own output going to the terminal: `head -3` runs `lic … | head -3` */
    pipeTo?: string;
    /** `input` is typed once the terminal shows this (default: `?`, which starts an @inquirer prompt) */
    typeWhen?: RegExp;
  } = {},
): Promise<{ code: number | null; output: string }> {
  const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  // `cols`: the terminal's width set on the pty itself (stty), as a resized window would
  const lic = [LIC_NODE, ...(o.nodeArgs ?? []), BIN, ...args].map(shellQuote).join(' ');
  const cmd = (o.cols ? `stty cols ${o.cols} rows ${o.rows ?? 50}; ` : '') + (o.pipeTo ? `${lic} | ${o.pipeTo}` : `exec ${lic}`);
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', cmd, '/dev/null'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        LIC_CACHE_DIR: CACHE_DIR,
        TERM: 'xterm',
        COLUMNS: '120',
        ...o.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    // decoded as a stream: a multi-byte character split across chunks stays whole
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
    if (o.input !== undefined) {
      // type once the prompt is on the screen (@inquirer prompts start with "?"), not after
      // a fixed delay a loaded machine may not meet; a moment more for it to read its input
      const started = Date.now();
      const typeWhenAsked = setInterval(() => {
        if (!(o.typeWhen ?? /\?/).test(output) && Date.now() - started < 10_000) return;
        clearInterval(typeWhenAsked);
        setTimeout(() => child.stdin.write(o.input!), 100);
      }, 25);
      child.on('close', () => clearInterval(typeWhenAsked));
    }
  });
}

export interface RunningLic {
  child: import('node:child_process').ChildProcessWithoutNullStreams;
  /** everything written so far */
  readonly stdout: string;
  readonly stderr: string;
  /** resolves with the first match of `re` in stdout (rejects if the process exits first) */
  waitForStdout(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** the same for stderr */
  waitForStderr(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** resolves when the process exits */
  exited: Promise<SpawnResult>;
}

/** Starts `bin/lic.js ARGS` with pipes and leaves it running (for `lic serve`); the caller stops it. */
export function startLic(args: string[], o: { env?: Record<string, string> } = {}): RunningLic {
  const child = spawn(LIC_NODE, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...o.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  child.stdout.on('data', (d) => {
    stdout += d;
    for (const w of waiters) w();
  });
  child.stderr.on('data', (d) => {
    stderr += d;
    for (const w of waiters) w();
  });
  const exited = new Promise<SpawnResult>((resolve) => {
    child.on('close', (code, signal) => {
      for (const w of waiters) w();
      resolve({ code, signal, stdout, stderr });
    });
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  void exited.then(() => clearTimeout(killer));
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    waitForStdout(re, timeoutMs) {
      return waitFor('stdout', re, timeoutMs);
    },
    waitForStderr(re, timeoutMs) {
      return waitFor('stderr', re, timeoutMs);
    },
  };

  function waitFor(stream: 'stdout' | 'stderr', re: RegExp, timeoutMs = 15_000): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${re} on ${stream} within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
      const check = () => {
        const m = (stream === 'stdout' ? stdout : stderr).match(re);
        if (m) {
          clearTimeout(timer);
          resolve(m);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          clearTimeout(timer);
          reject(new Error(`exited (${child.exitCode ?? child.signalCode}) before ${re}; stderr: ${stderr}`));
        }
      };
      waiters.push(check);
      check();
    });
  }
}
