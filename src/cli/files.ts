/** Local file access shared by the verbs that read or write files (--data-file, --data-out, --from-dll), and the line for stdin read from a terminal. */
import { stat, writeFile } from 'node:fs/promises';
import { describeFsError, readFileBounded, sizeLimitText } from '../bounded-read.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';

// the bounded readers are shared with the local service (src/bounded-read.ts)
export { describeFsError, readFileBounded } from '../bounded-read.js';

/** 1 MiB, 1024 × 1024 bytes. */
export const MiB = 1024 * 1024;

/** A PEM file of CA certificates may be this large: a whole system bundle is ~0.2 MiB. */
export const MAX_CA_FILE_BYTES = 4 * MiB;

/**
 * The text of a PEM file of CA certificates (`--ca-file`, a profile's CA file,
 * NODE_EXTRA_CA_CERTS), read up to MAX_CA_FILE_BYTES. `name` says where the path came
 * from (`--ca-file`). Throws UsageError naming it when the file can't be read, is over
 * the limit or holds no PEM certificate.
 */
export async function readCaFile(path: string, name: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFileBounded(path, MAX_CA_FILE_BYTES);
  } catch (e) {
    throw new UsageError(`${name} ${path}: ${describeFsError(e)}`);
  }
  if (bytes.length > MAX_CA_FILE_BYTES)
    throw new UsageError(`${name} ${path}: ${sizeLimitText(MAX_CA_FILE_BYTES)}; a CA bundle is far smaller`);
  const pem = bytes.toString('utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`${name} ${path}: no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)`);
  }
  return pem;
}

/**
 * Writes `data` to `path` whole or not at all (write-file-atomic: a temporary file beside
 * it, fsync, then a rename over `path`), so a reader or a crash never sees half a file.
 * `mode` (e.g. 0o600 for files holding API keys) applies from the temporary file's
 * creation; without it a replaced file keeps its mode. A path that is a device, a pipe or
 * a socket (`--html /dev/stdout`, a FIFO, /dev/null), after symbolic links, is written in
 * place: a rename would put a regular file where it was (as root, even over /dev/null).
 * Throws node:fs errors.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, o: { mode?: number } = {}): Promise<void> {
  const bytes = typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const st = await stat(path).catch(() => undefined);
  if (st && !st.isFile() && !st.isDirectory()) return writeFile(path, bytes);
  // loaded on first write: most commands write no file
  const { default: write } = await import('write-file-atomic');
  await write(path, bytes, { mode: o.mode });
}

/**
 * When stdin is a terminal — a redirect forgotten, or typed on purpose — one line on stderr
 * saying that lic reads `what` (`the state file`) from it and how to end it, instead of a
 * silent wait. (A secret is never read this way: `--api-key-stdin` and `--password-stdin`
 * ask with the hidden prompt on a terminal.)
 */
export function sayReadingTerminal(ctx: Pick<Context, 'stdin' | 'stderr'>, what: string): void {
  if (!ctx.stdin.isTTY) return;
  const end = process.platform === 'win32' ? 'Ctrl-Z, Enter' : 'Ctrl-D';
  ctx.stderr.write(`lic: reading ${what} from the terminal; end it with ${end}\n`);
}
