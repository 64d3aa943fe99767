import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // the reliability tiers run on their own: npm run test:reliability (vitest.reliability.config.ts)
    exclude: ['test/reliability/**', '**/node_modules/**'],
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
