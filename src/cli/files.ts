/** Local file access shared by the verbs that read or write files (--data-file, --data-out, --from-dll). */
import { open } from 'node:fs/promises';

/** 1 MiB, 1024 × 1024 bytes. */
export const MiB = 1024 * 1024;

/**
 * Reads the file at `path` (a regular file, FIFO or device alike), but at most
 * `maxBytes + 1` bytes: `/dev/zero` or a runaway FIFO can't make the process read
 * gigabytes. A result longer than `maxBytes` means "too large"; the caller says so.
 * stat's size is not trusted (it is 0 for devices and pipes). Throws node:fs errors.
 */
export async function readFileBounded(path: string, maxBytes: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total <= maxBytes) {
      const buf = Buffer.allocUnsafe(Math.min(maxBytes + 1 - total, 1024 * 1024));
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
    default:
      return (e as Error).message ?? String(e);
  }
}

/**
 * Writes `data` to `path` whole or not at all (write-file-atomic: a temporary file beside
 * it, fsync, then a rename over `path`), so a reader or a crash never sees half a file.
 * `mode` (e.g. 0o600 for files holding API keys) applies from the temporary file's
 * creation; without it a replaced file keeps its mode. Throws node:fs errors.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, o: { mode?: number } = {}): Promise<void> {
  // loaded on first write: most commands write no file
  const { default: write } = await import('write-file-atomic');
  await write(path, typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength), { mode: o.mode });
}
