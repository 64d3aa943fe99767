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
  },
});
