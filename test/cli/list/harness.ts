/**
 * A test Context for the list machinery and `log tail`, beyond test/helpers/cli.ts:
 * stdout and stderr TTY-ness set apart, an stdout that can report a full buffer
 * (backpressure) and drain later, Ctrl-C triggered by the test (onInterrupt), and a
 * sleep that honours its AbortSignal like the real one.
 */
import type { Context } from '../../../src/cli/context.js';
import { main } from '../../../src/cli/main.js';
import { writeLog } from '../../../src/server/log-writer.js';
import type { Db } from '../../../src/server/db.js';
import { tempDir } from '../../helpers/cli.js';

export interface HarnessOptions {
  env?: Record<string, string | undefined>;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  stdinTTY?: boolean;
  /** stdout's write returns false every `fullEvery` writes, until the test's drain resolves */
  fullEvery?: number;
  confirm?: boolean[];
}

export interface Harness {
  ctx: Context;
  stdout(): string;
  stderr(): string;
  prompts: string[];
  /** triggers Ctrl-C: calls the handlers registered with ctx.onInterrupt */
  interrupt(): void;
  /** how many handlers are registered now */
  interruptHandlers(): number;
  /** backpressure bookkeeping: times write said "full", drains awaited, writes made while full */
  pressure: { full: number; drains: number; writesWhileFull: number };
}

/** Builds a Harness; see HarnessOptions. */
export function harness(o: HarnessOptions = {}): Harness {
  let out = '';
  let err = '';
  const prompts: string[] = [];
  const confirms = [...(o.confirm ?? [])];
  const handlers = new Set<(s: string) => void>();
  const pressure = { full: 0, drains: 0, writesWhileFull: 0 };
  let writes = 0;
  let isFull = false;
  const ctx: Context = {
    env: { ...o.env },
    stdout: {
      write: (s: string) => {
        if (isFull) pressure.writesWhileFull++;
        out += s;
        writes++;
        if (o.fullEvery && writes % o.fullEvery === 0) {
          isFull = true;
          pressure.full++;
          return false;
        }
        return true;
      },
      isTTY: Boolean(o.stdoutTTY),
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
    stderr: { write: (s: string) => (err += s), isTTY: Boolean(o.stderrTTY), columns: 120 },
    stdin: { isTTY: Boolean(o.stdinTTY), readAll: async () => Buffer.from('') },
    prompter: {
      async confirm(message) {
        prompts.push(message);
        const a = confirms.shift();
        if (a === undefined) throw new Error(`unexpected confirm prompt: ${message}`);
        return a;
      },
      async secret(message) {
        throw new Error(`unexpected secret prompt: ${message}`);
      },
    },
    now: () => new Date(),
    configDir: tempDir('lic-list-test-'),
    dataDir: tempDir('lic-list-data-'),
    onInterrupt(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const t = setTimeout(done, ms);
        function done() {
          clearTimeout(t);
          signal?.removeEventListener('abort', done);
          resolve();
        }
        signal?.addEventListener('abort', done, { once: true });
      }),
  };
  return {
    ctx,
    stdout: () => out,
    stderr: () => err,
    prompts,
    interrupt: () => [...handlers].forEach((h) => h('SIGINT')),
    interruptHandlers: () => handlers.size,
    pressure,
  };
}

/** Runs `lic ARGS` in-process with the harness's context; resolves to the exit code. */
export const runIn = (h: Harness, args: string[]): Promise<number> => main(args, h.ctx);

/** Waits until `cond()` holds, polling every 5 ms; fails after `ms`. */
export async function until(cond: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const LEVELS = ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'];

/**
 * Inserts `n` log entries straight into the service database in one transaction (fast),
 * message `${prefix} #i` plus awkward text every few entries (commas, quotes, newlines,
 * tabs, backslashes), levels cycling; timestamps from `start` one second apart.
 * Returns their ids in insertion order.
 */
export function insertLog(db: Db, n: number, o: { prefix?: string; start?: Date; level?: string } = {}): number[] {
  const ids: number[] = [];
  const start = (o.start ?? new Date('2025-01-01T00:00:00Z')).getTime();
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const awkward = i % 7 === 0 ? ', "quoted", line1\nline2\ttab \\ back' : '';
      ids.push(
        writeLog(
          db,
          new Date(start + i * 1000),
          o.level ?? LEVELS[i % LEVELS.length]!,
          `${o.prefix ?? 'entry'} {N}${awkward.replace(/[{}]/g, '')}`,
          { N: i },
        ),
      );
    }
  })();
  return ids;
}
