/**
 * Everything a command may touch of the outside world (docs/architecture.md). `systemContext()`
 * builds the real one for bin/lic.js; tests build their own with captured streams,
 * a temporary profile dir and scripted prompt answers.
 */
import type { Keyring } from '../config/keyring.js';

export interface OutStream {
  /** writes text; `false` (as Node's stream.write) means the buffer is full: await `drain()` before writing more */
  write(chunk: string): unknown;
  isTTY: boolean;
  /** terminal width when a TTY */
  columns?: number;
  /**
   * A pipe or socket: its reader (`| head`, `| grep`) may print on the same terminal as
   * our stderr, so the progress bar steps aside while data goes out. Absent: not a pipe.
   */
  pipe?: boolean;
  /**
   * Resolves once a full buffer has drained (Node's `once('drain')`); rejects when the
   * stream broke, e.g. EPIPE after `| head` went away. Absent: the stream never fills.
   */
  drain?(): Promise<void>;
  /**
   * Resolves once what was written is out of Node's hands; rejects as drain() does when a
   * write failed (a full disk: `lic … > /dev/full`), however late the failure came. Absent:
   * writes never fail. main() asks it of stdout last, so a command whose output was lost
   * does not end with 0.
   */
  finish?(): Promise<void>;
}

interface InStream {
  isTTY: boolean;
  /**
   * Reads stdin to its end as bytes (for `--api-key-stdin`, `--data-file -`), but stops
   * after `maxBytes + 1` bytes when a limit is given: a result longer than `maxBytes`
   * means "too large" (`< /dev/zero` must not read gigabytes).
   */
  readAll(maxBytes?: number): Promise<Buffer>;
  /** Reads stdin chunk by chunk (`resources import -`: a bundle of any size, a line at a time); `signal` aborted ends it at once, stdin closed. */
  chunks(signal?: AbortSignal): AsyncIterable<Buffer>;
}

/** Asks the person at the terminal; only used when stdin and stderr are TTYs. */
interface Prompter {
  confirm(message: string): Promise<boolean>;
  /** hidden input */
  secret(message: string): Promise<string>;
}

export interface Context {
  env: Record<string, string | undefined>;
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
  prompter: Prompter;
  now: () => Date;
  /** the working directory, what a relative path is relative to (system.ts: the process's) */
  cwd: string;
  /** profile store directory; undefined = conf's default (the user's config dir) */
  configDir?: string;
  /** where `lic serve` keeps its default database (system.ts: LIC_DATA_DIR, else the platform's; env-paths is loaded only by a run that asks) */
  dataDir(): Promise<string>;
  /**
   * The operating system's keyring for API keys (src/config/keyring.ts), made on first call:
   * only a command that reads or writes a key kept there loads the binding.
   */
  keyring(): Promise<Keyring>;
  /** calls `handler` on SIGINT/SIGTERM until the returned function is called */
  onInterrupt(handler: (signal: string) => void): () => void;
  /** milliseconds sleep (injectable for `log tail --follow`) */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Called once before undici, and its WebAssembly HTTP parser, first load (a proxy, an
   * extra CA, https://): the real process sets V8's `--liftoff-only` there (system.ts).
   * Absent in tests.
   */
  beforeUndici?(): void;
  /**
   * Called once a run has its API client's modules (node:http) loaded, before its first request:
   * the real process makes V8's young-generation collections single-threaded there (system.ts).
   * Absent in tests.
   */
  clientLoaded?(): void;
}

declare const __LIC_VERSION__: string;
/** The version baked in at build time (package.json). */
export const VERSION: string = typeof __LIC_VERSION__ === 'string' ? __LIC_VERSION__ : '0.0.0-dev';
