// The chaos run of bench/chaos.ts at CI size: service faults, a kube-apiserver crash and operator
// SIGKILLs while 50 resources are being created; afterwards no duplicate, all Ready, and quiet.
import { expect, test } from 'vitest';
import { chaosFailures, runChaos } from '../../bench/chaos.ts';

test('no duplicate and nothing stuck after faults, an apiserver crash and operator kills', async () => {
  const result = await runChaos({
    n: 50,
    kills: 3,
    apiserverRestarts: 1,
    chaosMs: 20_000,
    settleMs: 60_000,
    seed: 7,
  });
  expect(result.kills).toBe(3);
  expect(result.apiserverRestarts).toBe(1);
  expect(result.duplicates).toEqual([]);
  expect(result.notReady).toEqual([]);
  expect(result.mismatched).toEqual([]);
  expect(chaosFailures(result)).toEqual([]);
  // Faults were really injected: more calls than the fault-free floor (50 creates + 1 list).
  expect(result.totalCalls).toBeGreaterThan(51);
}, 180_000);
