import { defineConfig } from 'vitest/config';

/** `npm run test:stress`: fuzzing, chaos and soak runs, too long for `npm test`; `.ci/run` runs both. */
export default defineConfig({
  test: {
    include: ['test/stress/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/helpers/fresh-build.ts'],
    env: { NO_COLOR: '1' },
  },
});
