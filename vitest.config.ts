import { defineConfig } from 'vitest/config';

// Fast unit tests, and integration tests that run against a real kube-apiserver + etcd (started once per
// project by the global setup) and the emulator, under its interface profile and again under its hosted one.
const integration = {
  globalSetup: ['test/support/controlplane.global.ts'],
  testTimeout: 120_000,
  hookTimeout: 600_000,
  // Test files share one control plane; each works in its own namespace.
  fileParallelism: false,
  provide: { emulatorProfile: 'interface' as const },
};

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
          ...integration,
        },
      },
      {
        // The suites that exercise the service through the Deployment and Listener controllers, again
        // against the emulator's hosted profile (the hosted service's behaviour beyond the interface).
        test: {
          name: 'integration-hosted',
          include: ['test/controllers/deployment/*.int.test.ts', 'test/controllers/listener/*.int.test.ts'],
          ...integration,
          provide: { emulatorProfile: 'hosted' },
          // After the other projects, not beside them: two control planes and two operators at once
          // would measure the machine, not the operator.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
