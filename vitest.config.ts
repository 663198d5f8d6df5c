import { defineConfig } from 'vitest/config';

// Two projects: fast unit tests, and integration tests that run against a real
// kube-apiserver + etcd (started once per run by the global setup) and the emulator.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.int.test.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.int.test.ts'],
          globalSetup: ['test/support/controlplane.global.ts'],
          testTimeout: 120_000,
          hookTimeout: 600_000,
          // Test files share one control plane; each works in its own namespace.
          fileParallelism: false,
        },
      },
    ],
  },
});
