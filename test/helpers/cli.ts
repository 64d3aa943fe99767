import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import type { Context } from '../../src/cli/context.js';

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** bytes on stdin */
  stdin?: string;
  /** stdout/stderr/stdin are terminals */
  tty?: boolean;
  /** profile store directory (default: a fresh temporary one per call, removed when the call returns) */
  configDir?: string;
  /** scripted answers for confirm() prompts, in order; an Error is thrown instead (e.g. Ctrl-C's ExitPromptError) */
  confirm?: (boolean | Error)[];
  /** scripted answers for secret() prompts, in order */
  secret?: string[];
  now?: () => Date;
  /** directory for `lic serve`'s default database (default: a fresh temporary one per call, removed when the call returns) */
  dataDir?: string;
  /** stands in for SIGINT/SIGTERM registration (default: never fires) */
  onInterrupt?: Context['onInterrupt'];
  /** stands in for the context's sleep (e.g. to record retry waits without waiting); default a real timer */
  sleep?: Context['sleep'];
  /** sees every chunk as it is written, e.g. to wait for `lic serve`'s URL */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: string) => void;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** prompts that were shown */
  prompts: string[];
}

/** Directories tempDir() made in this test file, removed by removeTempDirs() (test/helpers/setup.ts: after the file). */
const made = new Set<string>();

/** A fresh temporary directory (a profile store, a data dir, input files); removed after the test file. */
export function tempDir(prefix = 'lic-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every directory tempDir() made so far (and whatever is in them). */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}

/**
 * Runs `lic ARGS` in-process with a test context; nothing touches the real process or
 * home. The config and data dirs it makes itself (none given) are removed when it
 * returns; a test that reads them afterwards passes its own.
 */
export async function runCli(args: string[], o: RunOptions = {}): Promise<RunResult> {
  const own: string[] = [];
  const ownDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    own.push(dir);
    return dir;
  };
  let stdout = '';
  let stderr = '';
  const prompts: string[] = [];
  const confirms = [...(o.confirm ?? [])];
  const secrets = [...(o.secret ?? [])];
  const tty = Boolean(o.tty);
  const ctx: Context = {
    env: { ...o.env },
    stdout: { write: (s: string) => ((stdout += s), o.onOutput?.('stdout', s)), isTTY: tty, columns: 120 },
    stderr: { write: (s: string) => ((stderr += s), o.onOutput?.('stderr', s)), isTTY: tty, columns: 120 },
    stdin: { isTTY: tty, readAll: async () => Buffer.from(o.stdin ?? '') },
    prompter: {
      async confirm(message) {
        prompts.push(message);
        const a = confirms.shift();
        if (a === undefined) throw new Error(`unexpected confirm prompt: ${message}`);
        if (a instanceof Error) throw a;
        return a;
      },
      async secret(message) {
        prompts.push(message);
        const a = secrets.shift();
        if (a === undefined) throw new Error(`unexpected secret prompt: ${message}`);
        return a;
      },
    },
    now: o.now ?? (() => new Date()),
    configDir: o.configDir ?? ownDir('lic-test-'),
    dataDir: o.dataDir ?? ownDir('lic-data-'),
    onInterrupt: o.onInterrupt ?? (() => () => {}),
    sleep: o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
  };
  try {
    const code = await main(args, ctx);
    return { code, stdout, stderr, prompts };
  } finally {
    for (const dir of own) rmSync(dir, { recursive: true, force: true });
  }
}

/** Env that points the CLI at a service with a key, bypassing profiles. */
export const envFor = (svc: { url: string }, key: string) => ({ LIC_BASE_URL: svc.url, LIC_API_KEY: key });
