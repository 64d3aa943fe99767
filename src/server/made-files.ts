/**
 * The files a start of the service makes beside a new database (the database, its WAL and
 * shared-memory files, its `<db>.key`), so a start that fails before it serves (a port in
 * use, a bad dataset) removes them again: the next start is then a first start, with its
 * keys and the notice to back up the key file (docs/local-service.md).
 */
import { existsSync, unlinkSync } from 'node:fs';

const SUFFIXES = ['', '-wal', '-shm', '-journal', '.key'];

/** Notes which of `dbPath`'s files exist now; `remove()` deletes those made since (call it after the database is closed). */
export function filesMadeBy(dbPath: string): { remove(): void } {
  const before = new Set(SUFFIXES.filter((s) => existsSync(dbPath + s)));
  return {
    remove() {
      for (const s of SUFFIXES) {
        if (before.has(s)) continue;
        try {
          unlinkSync(dbPath + s);
        } catch {
          // not made, or already gone
        }
      }
    },
  };
}
