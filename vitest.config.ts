import { defineConfig } from 'vitest/config';
import { assetLoader } from './vitest.assets.js';

export default defineConfig({
  plugins: [assetLoader()],
  test: {
    include: ['test/**/*.test.ts'],
    // the reliability tiers run on their own: npm run test:reliability (vitest.reliability.config.ts)
    exclude: ['test/reliability/**', '**/node_modules/**'],
    // dist/ is built once, before any file runs: spawned tests run bin/lic.js on it
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // every core: vitest's default leaves one free (1 worker on a 2-core CI machine), and the
    // tests mostly wait on the processes and services they start (docs/installing.md: CI minutes)
    maxWorkers: '100%',
  },
});
