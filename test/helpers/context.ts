/**
 * The one test Context (src/cli/context.ts) every in-process run uses: captured streams
 * (as text and as bytes), TTY-ness per stream, an stdout that can report a full buffer
 * (backpressure), scripted prompt answers, Ctrl-C triggered by the test, and temporary
 * profile and data directories removed after the test file (test/helpers/setup.ts).
 */
import type { Context } from '../../src/cli/context.js';
import { KeyringUnavailableError, type Keyring } from '../../src/config/keyring.js';
import { main } from '../../src/cli/main.js';
import { tempDir } from './temp.js';

export interface TestContextOptions {
  env?: Record<string, string | undefined>;
  /** bytes on stdin (a string is UTF-8) */
  stdin?: string | Buffer;
  /** all three streams are terminals (each can be set apart below) */
  tty?: boolean;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  stdinTTY?: boolean;
  /** stdout's write returns false every `fullEvery` writes, until its drain() resolves on a later turn */
  fullEvery?: number;
  /** scripted answers for confirm() prompts, in order; an Error is thrown instead (e.g. Ctrl-C's ExitPromptError) */
  confirm?: (boolean | Error)[];
  /** scripted answers for secret() prompts, in order */
  secret?: string[];
  now?: () => Date;
  /** profile store directory (default: a fresh temporary one) */
  configDir?: string;
  /** directory for `lic serve`'s default database (default: a fresh temporary one) */
  dataDir?: string;
  /** stands in for SIGINT/SIGTERM registration (default: handlers recorded, fired by interrupt()) */
  onInterrupt?: Context['onInterrupt'];
  /** stands in for the context's sleep (default: a real timer that honours its AbortSignal) */
  sleep?: Context['sleep'];
  /**
   * The keyring (default: none reachable, as on a machine without a session bus, so no
   * in-process test writes to a real keyring; the keyring tests spawn lic with a real one).
   */
  keyring?: Keyring;
  /** sees every chunk as it is written, e.g. to wait for `lic serve`'s URL */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: string) => void;
}

export interface TestContext {
  ctx: Context;
  /** stdout so far, as text */
  stdout(): string;
  /** stdout so far, as the bytes written (a binary resource through `--data-out -`) */
  stdoutBytes(): Buffer;
  stderr(): string;
  /** prompts that were shown */
  prompts: string[];
  /** triggers Ctrl-C: calls the handlers registered with ctx.onInterrupt */
  interrupt(): void;
  /** how many interrupt handlers are registered now */
  interruptHandlers(): number;
  /** backpressure bookkeeping: times write said "full", drains awaited, writes made while full */
  pressure: { full: number; drains: number; writesWhileFull: number };
}

/** A sleep of `ms` milliseconds on a real timer that ends early when `signal` aborts, as the system context's. */
function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The test context's default keyring: never reachable. */
const NO_KEYRING: Keyring = {
  get: () => Promise.reject(new KeyringUnavailableError('no keyring in this test context')),
  set: () => Promise.reject(new KeyringUnavailableError('no keyring in this test context')),
  delete: () => Promise.reject(new KeyringUnavailableError('no keyring in this test context')),
};

/** Builds a test Context and its recorders; see TestContextOptions. Nothing touches the real process or home. */
export function testContext(o: TestContextOptions = {}): TestContext {
  let out = '';
  const outBytes: Buffer[] = [];
  let err = '';
  const prompts: string[] = [];
  const confirms = [...(o.confirm ?? [])];
  const secrets = [...(o.secret ?? [])];
  const handlers = new Set<(s: string) => void>();
  const pressure = { full: 0, drains: 0, writesWhileFull: 0 };
  let writes = 0;
  let isFull = false;
  const tty = Boolean(o.tty);
  const ctx: Context = {
    env: { ...o.env },
    stdout: {
      write: (chunk: string | Uint8Array) => {
        if (isFull) pressure.writesWhileFull++;
        const bytes = Buffer.from(chunk as never);
        const text = typeof chunk === 'string' ? chunk : bytes.toString('utf8');
        out += text;
        outBytes.push(bytes);
        o.onOutput?.('stdout', text);
        writes++;
        if (o.fullEvery && writes % o.fullEvery === 0) {
          isFull = true;
          pressure.full++;
          return false;
        }
        return true;
      },
      isTTY: o.stdoutTTY ?? tty,
      columns: 120,
      drain: o.fullEvery
        ? () =>
            new Promise<void>((resolve) => {
              pressure.drains++;
              // the consumer reads later: drain on a later turn of the event loop
              setTimeout(() => {
                isFull = false;
                resolve();
              }, 1);
            })
        : undefined,
    },
    stderr: {
      write: (s: string) => ((err += s), o.onOutput?.('stderr', s)),
      isTTY: o.stderrTTY ?? tty,
      columns: 120,
    },
    stdin: {
      isTTY: o.stdinTTY ?? tty,
      readAll: async () => (Buffer.isBuffer(o.stdin) ? o.stdin : Buffer.from(o.stdin ?? '')),
      async *chunks() {
        const all = Buffer.isBuffer(o.stdin) ? o.stdin : Buffer.from(o.stdin ?? '');
        // in pieces, as a pipe delivers them: a line may straddle two chunks
        for (let i = 0; i < all.length; i += 65536) yield all.subarray(i, i + 65536);
      },
    },
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
    cwd: process.cwd(),
    configDir: o.configDir ?? tempDir('lic-test-'),
    dataDir: async () => (o.dataDir ??= tempDir('lic-data-')),
    onInterrupt:
      o.onInterrupt ??
      ((handler) => {
        handlers.add(handler);
        return () => handlers.delete(handler);
      }),
    sleep: o.sleep ?? realSleep,
    keyring: async () => o.keyring ?? NO_KEYRING,
  };
  return {
    ctx,
    stdout: () => out,
    stdoutBytes: () => Buffer.concat(outBytes),
    stderr: () => err,
    prompts,
    interrupt: () => [...handlers].forEach((h) => h('SIGINT')),
    interruptHandlers: () => handlers.size,
    pressure,
  };
}

/** Runs `lic ARGS` in-process with a test context; resolves to the exit code (main's). */
export const runIn = (t: TestContext, args: string[]): Promise<number> => main(args, t.ctx);
