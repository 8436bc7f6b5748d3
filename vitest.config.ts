import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fuzzing, chaos and soak runs: `npm run test:stress` (vitest.stress.config.ts).
    exclude: ['test/stress/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: { NO_COLOR: '1' },
  },
});
