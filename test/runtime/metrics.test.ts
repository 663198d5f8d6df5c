import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { leaderMetric } from '../../src/runtime/metrics.ts';

describe('leader metric', () => {
  it('is 0 until leading, 1 while leading', async () => {
    const registry = new Registry();
    const set = leaderMetric(registry);
    expect(await registry.metrics()).toMatch(/^agent_deploy_leader 0$/m);
    set(true);
    expect(await registry.metrics()).toMatch(/^agent_deploy_leader 1$/m);
    set(false);
    expect(await registry.metrics()).toMatch(/^agent_deploy_leader 0$/m);
  });
});
