/**
 * A private copy of stdin on disk, for a reader that needs a regular file: a bundle read
 * twice (`resources import -`), a state file streamed a window at a time (`diff -f -`,
 * `apply -f -`). Stdin may hold resource data and private keys, so the copy is a 0600 file
 * in a directory of its own (mkdtemp: 0700) in the temporary folder, and that directory goes
 * on every way out: close(), and at once on SIGINT/SIGTERM (synchronously, in the signal's
 * handler: nothing of the command may run after the signal first), after which reading
 * stdin stops and the reader's next checkInterrupted() throws InterruptedError (exit 130).
 */
import { rmSync } from 'node:fs';
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from './context.js';
import { InterruptedError } from './errors.js';
import { describeFsError } from './files.js';
import { collectAfterReply } from './memory.js';

/** A copy of stdin being made or made: see openStdinSpool. */
export interface StdinSpool {
  /** the copy (complete once copy() has ended) */
  readonly path: string;
  /**
   * Reads stdin to its end, each chunk written to the copy before it is yielded (a reader can
   * check it on the way, and stop early by leaving the loop: stdin is then closed); once.
   * Throws InterruptedError when a signal ended it, or an Error naming the temporary folder
   * when a write failed (a full disk).
   */
  copy(): AsyncGenerator<Buffer>;
  /** throws InterruptedError once SIGINT/SIGTERM came */
  checkInterrupted(): void;
  /** removes the copy's directory and stops watching for signals (again: nothing) */
  close(): Promise<void>;
}

/** The one line of a copy that could not be made (a full disk, a temporary folder that is not writable): exit 1. */
const spoolError = (e: unknown) => new Error(`stdin: cannot copy it to the temporary folder ${tmpdir()}: ${describeFsError(e)}`);

/**
 * Makes the directory `PREFIX*` (e.g. `lic-state-`) in the temporary folder (os.tmpdir():
 * $TMPDIR) for a copy of the Context's stdin named `name`, and watches for SIGINT/SIGTERM
 * (from before the directory exists) until close(). Throws InterruptedError when a signal
 * came while the directory was made (it is removed again), or an Error naming the temporary
 * folder when it can't be made (so does copy() for a write that fails).
 */
export async function openStdinSpool(ctx: Pick<Context, 'stdin' | 'onInterrupt'>, prefix: string, name: string): Promise<StdinSpool> {
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
    throw spoolError(e);
  }
  const path = join(dir, name);
  const checkInterrupted = () => {
    if (ac.signal.aborted) throw new InterruptedError();
  };
  const close = async () => {
    off();
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
          throw spoolError(e);
        }
      };
      try {
        checkInterrupted();
        fh = await onDisk(() => open(path, 'wx', 0o600));
        for await (const c of ctx.stdin.chunks(ac.signal)) {
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
