/** Local file access shared by the verbs that read or write files (--data-file, --data-out, --from-dll). */

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
