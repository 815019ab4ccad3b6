import { defineConfig } from 'vitest/config';

// Cluster mode's tests (real etcd, daemons as processes) run with `npm run test:ha`, not in the default run: in
// a cluster, a Windows lab host sometimes is not seen back within 20 s of its reboot (2 of 7 HA tests in one full
// run, after a clean one; open in issue 19). They come back into `npm test` once that is fixed.
const HA = process.env.GC_HA_TESTS ? ['test/ha/**/*.test.ts'] : [];

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
        test: {
          name: 'lab',
          include: ['test/lab/**/*.test.ts', 'test/e2e/**/*.test.ts', ...HA],
          fileParallelism: false,
        },
      },
    ],
  },
});
