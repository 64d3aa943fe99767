import { setTimeout as delay } from 'node:timers/promises';
import { fstatSync } from 'node:fs';
import { isatty } from 'node:tty';
import type { Keyring } from '../config/keyring.js';
import type { Context, OutStream } from './context.js';
import { describeFsError } from '../bounded-read.js';
import { BrokenPipeError } from './errors.js';
import nodeLines from './node-lines.json' with { type: 'json' };

/**
 * The real world for bin/lic.js: process streams, env, clock, signals, TTY prompts
 * (written to stderr so stdout carries data only). The only module besides bin/ that
 * touches `process`.
 */
export function systemContext(): Context {
  const env = process.env;
  let keyring: Promise<Keyring> | undefined;
  return {
    env,
    stdout: outStream(() => process.stdout, 1),
    stderr: outStream(() => process.stderr, 2),
    stdin: {
      // not process.stdin, which Node makes on first use: on a file or /dev/null it is an
      // fs.ReadStream, whose module loads fs/promises and the stream machinery (bench/startup.md)
      get isTTY() {
        return isatty(0);
      },
      async readAll(maxBytes?: number) {
        const chunks: Buffer[] = [];
        let total = 0;
        for await (const c of process.stdin) {
          const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
          chunks.push(b);
          total += b.length;
          // one byte past the limit is proof enough; stop reading (the loop's exit destroys stdin)
          if (maxBytes !== undefined && total > maxBytes) break;
        }
        const all = Buffer.concat(chunks, total);
        return maxBytes !== undefined && all.length > maxBytes + 1 ? all.subarray(0, maxBytes + 1) : all;
      },
      async *chunks(signal?: AbortSignal) {
        // a pending read only ends when the stream does: destroy it (an async iterator's return() waits for the read)
        const stop = () => process.stdin.destroy();
        if (signal?.aborted) return;
        signal?.addEventListener('abort', stop, { once: true });
        try {
          for await (const c of process.stdin) yield typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
        } catch (e) {
          if (!signal?.aborted) throw e;
        } finally {
          signal?.removeEventListener('abort', stop);
        }
      },
    },
    prompter: {
      async confirm(message) {
        const { default: confirm } = await import('@inquirer/confirm');
        return confirm({ message, default: false }, { output: process.stderr });
      },
      async secret(message) {
        const { default: password } = await import('@inquirer/password');
        return password({ message, mask: false }, { output: process.stderr });
      },
    },
    now: () => new Date(),
    cwd: process.cwd(),
    configDir: env.LIC_CONFIG_DIR || undefined,
    dataDir: async () => env.LIC_DATA_DIR || (await defaultDataDir()),
    keyring: () => (keyring ??= import('../config/keyring.js').then((m) => m.systemKeyring())),
    onInterrupt(handler) {
      const h = (sig: NodeJS.Signals) => handler(sig);
      process.on('SIGINT', h);
      process.on('SIGTERM', h);
      return () => {
        process.off('SIGINT', h);
        process.off('SIGTERM', h);
      };
    },
    sleep: (ms, signal) => delay(ms, undefined, { signal }).catch(() => undefined),
    beforeUndici: liftoffOnly,
    clientLoaded: singleThreadedScavenges,
  };
}

/**
 * V8's `--no-parallel-scavenge`, set once the client's modules are loaded: a run of lic fills
 * V8's young generation (1 MiB) about once, and its collection takes ~1 ms on the main thread
 * alone. In parallel it waits for a helper thread, which a busy machine (two cores, the
 * service answering on the other) schedules a time slice later: 3.5-4 ms in `lic keys list`
 * whenever the collection lands then, which incidental allocation decides
 * (docs/benchmarks.md). Set here, not at start, because node:v8 needs the stream modules
 * node:http has just loaded (0.4 ms now, 1.6 ms at start). A collector flag
 * is not part of the flags V8's code caches are checked against (test/cli/gc-flags.test.ts),
 * so every cache stays valid. `lic serve`, which makes no client, keeps parallel collections.
 */
function singleThreadedScavenges(): void {
  setKnownV8Flag('--no-parallel-scavenge');
}

/**
 * V8's `--liftoff-only`, set just before undici loads: undici parses HTTP with a
 * WebAssembly build of llhttp, which V8 tiers up with background compile jobs that a
 * short-lived process must wait for at exit (~150 ms per command, measured on Node 20);
 * baseline (Liftoff) code is plenty for a CLI's replies. Only a run that loads undici sets
 * it (a plain http:// request goes through node:http), and always at the same point of
 * the run, so Node's compile cache sees the same flags for each file from run to run.
 * Set only on the Node lines known to have the flag (setKnownV8Flag).
 */
function liftoffOnly(): void {
  setKnownV8Flag('--liftoff-only');
}

/** Sets V8 `flag` on the Node lines lic knows (src/cli/node-lines.json's `supported`): V8 prints an error line for a flag it lacks, so a newer Node runs without it. */
function setKnownV8Flag(flag: string): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (nodeLines.supported.includes(major)) process.getBuiltinModule('node:v8').setFlagsFromString(flag);
}

/** The platform's data dir for lic (`~/.local/share/lic` on Linux), by env-paths (loaded here: its first use reads the home and temp dirs, ~0.5 ms that only `lic serve` needs). */
async function defaultDataDir(): Promise<string> {
  const { default: envPaths } = await import('env-paths');
  return envPaths('lic', { suffix: '' }).data;
}

/** The error a process stream failed with (EPIPE: the reader of a pipe went away; ENOSPC: a full disk), watched once per stream. */
const broken = new WeakMap<NodeJS.WriteStream, Error>();
const watched = new WeakSet<NodeJS.WriteStream>();

/**
 * A process stream as an OutStream with backpressure: `write` returns Node's boolean and
 * `drain()` waits for 'drain'. A failed write is kept instead of crashing the process (an
 * 'error' event nobody hears is an uncaught exception, with its stack trace); from then on
 * `write` returns false, and `drain()` and `finish()` reject: with BrokenPipeError for a
 * closed pipe (EPIPE after `lic ... | head`: main() ends quietly, exit 0), so a long `--all`
 * listing stops instead of fetching pages for nobody; with `cannot write output: …` for
 * anything else (`> /dev/full`: exit 1, one line on stderr).
 */
function outStream(open: () => NodeJS.WriteStream, fd: number): OutStream {
  // the stream is made on first use (Node makes process.stdout/stderr on first access, and
  // loads for it the module of a file, pipe or terminal stream): --help never makes stderr
  let stream: NodeJS.WriteStream | undefined;
  const get = (): NodeJS.WriteStream => {
    if (stream) return stream;
    const s = (stream = open());
    if (!watched.has(s)) {
      watched.add(s);
      s.on('error', (e: Error) => void broken.set(s, e));
    }
    return s;
  };
  const closed = (e: Error) =>
    (e as NodeJS.ErrnoException).code === 'EPIPE' ? new BrokenPipeError() : new Error(`cannot write output: ${describeFsError(e)}`);
  return {
    write: (chunk: string) => {
      const s = get();
      return broken.has(s) ? false : s.write(chunk);
    },
    get isTTY() {
      return Boolean(get().isTTY);
    },
    get columns() {
      return get().columns;
    },
    get pipe() {
      try {
        const st = fstatSync(fd);
        return st.isFIFO() || st.isSocket();
      } catch {
        return false;
      }
    },
    drain: () =>
      new Promise<void>((resolve, reject) => {
        const s = get();
        const e = broken.get(s);
        if (e) return reject(closed(e));
        const onDrain = () => (s.off('error', onError), resolve());
        const onError = (err: Error) => (s.off('drain', onDrain), reject(closed(err)));
        s.once('drain', onDrain);
        s.once('error', onError);
      }),
    finish: async () => {
      // nothing written: nothing to wait for (and no stream made for it)
      if (!stream) return;
      const s = stream;
      // a failed write's 'error' comes on a later tick; a stream still holding data says so by 'drain'
      await new Promise((resolve) => setImmediate(resolve));
      if (!broken.has(s) && s.writableLength > 0) await new Promise((resolve) => (s.once('drain', resolve), s.once('error', resolve)));
      const e = broken.get(s);
      if (e) throw closed(e);
    },
  };
}
