import { defineConfig } from 'vitest/config';
import { assetLoader } from './vitest.assets.js';

/** The reliability suite (`npm run test:reliability`): bounded fuzz, matrix, concurrency and crash tiers; figures → bench/reliability.md. */
export default defineConfig({
  plugins: [assetLoader()],
  test: {
    include: ['test/reliability/**/*.test.ts'],
    // dist/ is built once, before any file runs: spawned tests run bin/lic.js on it
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // one tier at a time: the concurrency and crash tiers measure, and 2 cores are few
    fileParallelism: false,
  },
});
