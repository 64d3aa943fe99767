/**
 * vitest globalSetup: bundles src/ into dist/ (esbuild, about a second) once before any
 * test file runs, so every spawned `bin/lic.js` runs the current source and no two test
 * files rebuild dist/ under each other's children.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Runs scripts/build.mjs; a failed build fails the run with esbuild's message. */
export function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}
