import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Directories tempDir() made in this test file, removed by removeTempDirs() (test/helpers/setup.ts: after the file). */
const made = new Set<string>();

/** A fresh temporary directory (a profile store, a data dir, input files); removed after the test file. */
export function tempDir(prefix = 'lic-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every directory tempDir() made so far (and whatever is in them). */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
