/** Runs in every test file (vitest setupFiles): removes the file's tempDir() directories once it is done. */
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp.js';

// registered before the file's own hooks, so (hooks run as a stack) it runs after them: servers and children are closed by then
afterAll(removeTempDirs);
