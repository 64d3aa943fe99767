/**
 * A private copy on disk of input that can be read only once, for a reader that needs a
 * regular file: stdin (`-`), or a path that is a pipe or a device (`<(lic state export)`, a
 * FIFO). A bundle is read twice (`resources import`), a state file streamed a window at a
 * time (`diff -f`, `apply -f`). The input may hold resource data and private keys, so the
 * copy is a 0600 file in a directory of its own (mkdtemp: 0700) in the temporary folder, and
 * that directory goes on every way out: close(), and at once on SIGINT/SIGTERM
 * (synchronously, in the signal's handler: nothing of the command may run after the signal
 * first), after which reading the input stops and the reader's next checkInterrupted()
 * throws InterruptedError (exit 130).
 */
import { createReadStream, fstatSync, open as openFd, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { mkdtemp, open, rm, stat, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from './context.js';
import { InterruptedError } from './errors.js';
import { describeFsError, sayReadingTerminal } from './files.js';
import { collectAfterReply } from './memory.js';

/** A copy being made or made: see openSpool. */
export interface Spool {
  /** the copy (complete once copy() has ended) */
  readonly path: string;
  /**
   * Reads the input to its end, each chunk written to the copy before it is yielded (a reader
   * can check it on the way, and stop early by leaving the loop: the input is then closed);
   * once. Throws InterruptedError when a signal ended it, the input's own error (a path's
   * as openOnePass names it), or an Error naming the temporary folder when a write failed
   * (a full disk).
   */
  copy(): AsyncGenerator<Buffer>;
  /** throws InterruptedError once SIGINT/SIGTERM came */
  checkInterrupted(): void;
  /** removes the copy's directory and stops watching for signals (again: nothing) */
  close(): Promise<void>;
}

/** The one line of a copy of `source` (`stdin`, a path) that could not be made (a full disk, a temporary folder that is not writable): exit 1. */
const spoolError = (source: string, e: unknown) =>
  new Error(`${source}: cannot copy it to the temporary folder ${tmpdir()}: ${describeFsError(e)}`);

/**
 * Input that can be read once: `chunks` gives its bytes (one pass; it ends early, without an
 * error, once `signal` aborts), `close` lets go of it whether or not the pass ran (again: nothing).
 */
export interface OnePassInput {
  chunks(signal: AbortSignal): AsyncIterable<Buffer>;
  close(): Promise<void>;
}

/** The Context's stdin as a OnePassInput of `what` (sayReadingTerminal); nothing to close: stdin stays the process's. */
export function stdinInput(ctx: Pick<Context, 'stdin' | 'stderr'>, what: string): OnePassInput {
  return {
    chunks: (signal) => {
      sayReadingTerminal(ctx, what);
      return ctx.stdin.chunks(signal);
    },
    close: async () => {},
  };
}

/**
 * Whether `path` names input that can be read only once: a pipe (bash's `<(…)` gives
 * /dev/fd/N), a FIFO, a socket or a character device, after symbolic links; false for a
 * regular file, a directory, or a path that can't be examined (the reader's own open then
 * says why).
 */
export async function isOnePass(path: string): Promise<boolean> {
  try {
    const st = await stat(path);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

/**
 * Opens the file at `path` (a pipe, a FIFO: isOnePass) as a OnePassInput. A FIFO's open waits
 * for its writer, and it happens here, before openSpool watches for signals: Ctrl-C while
 * waiting ends lic as it ends any program (a pending open could not be cancelled, and would
 * hold the process). A pipe or a socket is then read as Node reads stdin (a net.Socket on the
 * descriptor: a read that waits for the writer ends at once when the pass is aborted, where a
 * file read would wait in the thread pool); a device through a file stream. Throws `named(e)`
 * when it can't be opened or read.
 */
export async function openOnePass(path: string, named: (e: unknown) => Error): Promise<OnePassInput> {
  let fd: number;
  let pipe: boolean;
  try {
    fd = await new Promise<number>((resolve, reject) => openFd(path, 'r', (e, n) => (e ? reject(e) : resolve(n))));
    const st = fstatSync(fd);
    pipe = st.isFIFO() || st.isSocket();
  } catch (e) {
    throw named(e);
  }
  // the stream owns the descriptor from here: destroying it closes it
  const stream: Readable = pipe ? new Socket({ fd, readable: true, writable: false }) : createReadStream('', { fd });
  return {
    async *chunks(signal) {
      if (signal.aborted) return;
      const stop = () => stream.destroy();
      signal.addEventListener('abort', stop, { once: true });
      try {
        for await (const c of stream) yield c as Buffer;
      } catch (e) {
        if (!signal.aborted) throw named(e);
      } finally {
        signal.removeEventListener('abort', stop);
      }
    },
    close: async () => void stream.destroy(),
  };
}

/**
 * Makes the directory `PREFIX*` (e.g. `lic-state-`) in the temporary folder (os.tmpdir():
 * $TMPDIR) for a copy named `name` of `input` (stdinInput, openOnePass), called `source` in
 * messages, and watches for SIGINT/SIGTERM (from before the directory exists) until close(),
 * which closes `input` too. Throws InterruptedError when a signal came while the directory
 * was made (it is removed again), or an Error naming `source` and the temporary folder when
 * it can't be made (so does copy() for a write that fails); `input` is closed then.
 */
export async function openSpool(
  ctx: Pick<Context, 'onInterrupt'>,
  prefix: string,
  name: string,
  source: string,
  input: OnePassInput,
): Promise<Spool> {
  const ac = new AbortController();
  let made: string | undefined;
  const off = ctx.onInterrupt(() => {
    if (made) rmSync(made, { recursive: true, force: true });
    ac.abort();
  });
  let dir: string;
  try {
    dir = made = await mkdtemp(join(tmpdir(), prefix));
  } catch (e) {
    off();
    await input.close();
    throw spoolError(source, e);
  }
  const path = join(dir, name);
  const checkInterrupted = () => {
    if (ac.signal.aborted) throw new InterruptedError();
  };
  const close = async () => {
    off();
    await input.close();
    await rm(dir, { recursive: true, force: true });
  };
  if (ac.signal.aborted) {
    await close();
    throw new InterruptedError();
  }
  return {
    path,
    checkInterrupted,
    close,
    copy: async function* () {
      // a FileHandle, not a write stream: a failed write is this generator's error, never an 'error' event nobody hears
      let fh: FileHandle | undefined;
      const onDisk = async <T>(op: () => Promise<T>): Promise<T> => {
        try {
          return await op();
        } catch (e) {
          // after the signal removed the directory: the interruption, not the write, is the news
          checkInterrupted();
          throw spoolError(source, e);
        }
      };
      try {
        checkInterrupted();
        fh = await onDisk(() => open(path, 'wx', 0o600));
        for await (const c of input.chunks(ac.signal)) {
          for (let at = 0; at < c.length;) at += (await onDisk(() => fh!.write(c, at, c.length - at))).bytesWritten;
          yield c;
          // the chunks live outside V8's heap, freed only by a collection of their objects: one every MiB
          collectAfterReply(c.length);
        }
        checkInterrupted();
      } finally {
        await fh?.close().catch(() => undefined);
      }
    },
  };
}
