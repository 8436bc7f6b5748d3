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
    // Most files wait on child processes and sockets, not on the CPU: two at once fit a 2-core machine (vitest's
    // default there is one). Even so `npm test` takes 7-8 minutes there, over its 4-minute budget: the suite is
    // CPU-bound (some 900 CLI spawns, each with a sandbox); the chaos and soak runs are in test/stress.
    maxWorkers: 2,
    env: { NO_COLOR: '1' },
  },
});
