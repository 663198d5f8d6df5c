// What the batched observer does, for dashboards and for proving its idle cost: per refresh, the
// service calls are ⌈live ids / 100⌉, whatever churn came before.
import { Counter, Gauge, type Registry } from 'prom-client';

export function observerMetrics(registry: Registry): (workspace: string, liveIds: number) => void {
  const registers = [registry];
  const refreshes = new Counter({
    name: 'agent_deploy_observer_refreshes_total',
    help: 'Periodic refreshes of every live service deployment id, by workspace',
    labelNames: ['workspace'],
    registers,
  });
  const live = new Gauge({
    name: 'agent_deploy_observer_live_ids',
    help: 'Service deployment ids that resources refer to, by workspace, as of the last refresh',
    labelNames: ['workspace'],
    registers,
  });
  return (workspace, liveIds) => {
    refreshes.inc({ workspace });
    live.set({ workspace }, liveIds);
  };
}
