import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fuzzing, chaos and soak runs: `npm run test:stress` (vitest.stress.config.ts).
    exclude: ['test/stress/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/helpers/fresh-build.ts'],
    // Most files wait on child processes, sockets and timers, not on the CPU: four at once keep a 2-core machine
    // busy (1.9 cores on average) and take `npm test` from 7 minutes at two to under 4. The chaos and soak runs are
    // in test/stress.
    maxWorkers: 4,
    env: { NO_COLOR: '1' },
  },
});
