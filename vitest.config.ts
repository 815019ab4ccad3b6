import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/integration/**/*.test.ts'] },
      },
      // Lab tests own network namespaces and clean up other runs' leftovers: one file at a time.
      {
        extends: true,
        test: { name: 'lab', include: ['test/lab/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/ha/**/*.test.ts'], fileParallelism: false },
      },
    ],
  },
});
