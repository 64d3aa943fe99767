/**
 * Reading local files with a size limit, for the CLI and the local service alike (the one
 * module besides the wire types that both import): a path given by a user or an
 * environment variable may name `/dev/zero`, a FIFO that never ends or a huge sparse file,
 * and an unbounded read would take gigabytes of memory before V8 gave up with its own
 * message. Each caller names its limit, and says which flag went over it (sizeLimitText).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

/** Bytes read per call: a file under the limit comes in a few reads, and a file over it costs at most one chunk more. */
const CHUNK = 1024 * 1024;

/**
 * Reads the file at `path` (a regular file, FIFO or device alike), but at most
 * `maxBytes + 1` bytes: `/dev/zero` or a runaway FIFO can't make the process read
 * gigabytes. A result longer than `maxBytes` means "too large"; the caller says so.
 * stat's size only sizes the first read, never bounds it (it is 0 for devices and pipes). Throws node:fs errors.
 */
export async function readFileBounded(path: string, maxBytes: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    // a regular file's size, if stat tells one, sizes the first read: a file of MiBs (a
    // resource's data) is then read into one Buffer, not chunks copied into another
    const hint = Math.min((await fh.stat()).size, maxBytes) + 1;
    if (hint > CHUNK) {
      const buf = Buffer.allocUnsafe(hint);
      let filled = 0;
      for (let n = -1; n !== 0 && filled < hint; filled += n) n = (await fh.read(buf, filled, hint - filled, null)).bytesRead;
      if (filled < hint) return buf.subarray(0, filled);
      chunks.push(buf);
      total = filled;
    }
    while (total <= maxBytes) {
      const buf = Buffer.allocUnsafe(Math.min(maxBytes + 1 - total, CHUNK));
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
    }
    return Buffer.concat(chunks, total);
  } finally {
    await fh.close();
  }
}

/** readFileBounded, synchronously (for the few readers that can't wait: the profile store, the service's key file). */
export function readFileBoundedSync(path: string, maxBytes: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total <= maxBytes) {
      const buf = Buffer.allocUnsafe(Math.min(maxBytes + 1 - total, CHUNK));
      const bytesRead = readSync(fd, buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** `more than the limit of 4194304 bytes (4 MiB)`: what a too-large file is told, after the flag that named it. */
export function sizeLimitText(maxBytes: number): string {
  const unit = maxBytes % (1024 * 1024) === 0 ? `${maxBytes / (1024 * 1024)} MiB` : `${maxBytes / 1024} KiB`;
  return `more than the limit of ${maxBytes} bytes (${unit})`;
}

/**
 * A node:fs error as a short reason for a usage error (`no such file`, `permission
 * denied`, …), without the stack or the syscall noise; any other error's own message.
 */
export function describeFsError(e: unknown): string {
  switch ((e as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory, not a file';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ENOSPC':
      return 'no space left on device';
    default:
      return (e as Error).message ?? String(e);
  }
}
