// What the batched observer does, for dashboards and for proving its idle cost: per refresh, the
// service calls are ⌈live ids / 100⌉, whatever churn came before.
import { Counter, Gauge, type Registry } from 'prom-client';

export function observerMetrics(registry: Registry): (liveIds: number) => void {
  const registers = [registry];
  const refreshes = new Counter({
    name: 'agent_deploy_observer_refreshes_total',
    help: 'Periodic refreshes of every live service deployment id',
    registers,
  });
  const live = new Gauge({
    name: 'agent_deploy_observer_live_ids',
    help: 'Service deployment ids that resources refer to, as of the last refresh',
    registers,
  });
  return (liveIds) => {
    refreshes.inc();
    live.set(liveIds);
  };
}
