// Prometheus metrics of the runtime, with the names controller-runtime and client-go use, so
// existing dashboards and alerts work unchanged. Metrics are shared by every controller on one
// registry and told apart by the `controller` / `name` label.
import { Counter, exponentialBuckets, Gauge, Histogram, type Registry } from 'prom-client';
import type { QueueMetrics } from './workqueue.ts';

type AnyMetric = Counter<string> | Gauge<string> | Histogram<string>;

function shared<M extends AnyMetric>(registry: Registry, name: string, make: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? make();
}

// client-go's workqueue buckets: 10 ns … 1000 s.
const queueBuckets = exponentialBuckets(1e-8, 10, 12);

export function workqueueMetrics(registry: Registry, name: string): QueueMetrics {
  const registers = [registry];
  const labelNames = ['name'] as const;
  const depth = shared(
    registry,
    'workqueue_depth',
    () => new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames, registers }),
  );
  const adds = shared(
    registry,
    'workqueue_adds_total',
    () =>
      new Counter({
        name: 'workqueue_adds_total',
        help: 'Total number of adds handled by workqueue',
        labelNames,
        registers,
      }),
  );
  const retries = shared(
    registry,
    'workqueue_retries_total',
    () =>
      new Counter({
        name: 'workqueue_retries_total',
        help: 'Total number of retries handled by workqueue',
        labelNames,
        registers,
      }),
  );
  const latency = shared(
    registry,
    'workqueue_queue_duration_seconds',
    () =>
      new Histogram({
        name: 'workqueue_queue_duration_seconds',
        help: 'How long in seconds an item stays in workqueue before being requested',
        labelNames,
        buckets: queueBuckets,
        registers,
      }),
  );
  const work = shared(
    registry,
    'workqueue_work_duration_seconds',
    () =>
      new Histogram({
        name: 'workqueue_work_duration_seconds',
        help: 'How long in seconds processing an item from workqueue takes',
        labelNames,
        buckets: queueBuckets,
        registers,
      }),
  );
  const labels = { name };
  // Zero-valued series from the start: a queue whose workers keep up never reports a depth otherwise.
  depth.set(labels, 0);
  adds.inc(labels, 0);
  retries.inc(labels, 0);
  return {
    depth: (n) => depth.set(labels, n),
    added: () => adds.inc(labels),
    retried: () => retries.inc(labels),
    queueLatency: (s) => latency.observe(labels, s),
    workDuration: (s) => work.observe(labels, s),
  };
}

export interface ReconcileMetrics {
  result(result: 'success' | 'error' | 'requeue_after'): void;
  /** Starts timing one reconcile; call the returned function when it ends. */
  start(): () => void;
}

export function reconcileMetrics(registry: Registry, controller: string): ReconcileMetrics {
  const registers = [registry];
  const total = shared(
    registry,
    'controller_runtime_reconcile_total',
    () =>
      new Counter({
        name: 'controller_runtime_reconcile_total',
        help: 'Total number of reconciliations per controller',
        labelNames: ['controller', 'result'],
        registers,
      }),
  );
  const errors = shared(
    registry,
    'controller_runtime_reconcile_errors_total',
    () =>
      new Counter({
        name: 'controller_runtime_reconcile_errors_total',
        help: 'Total number of reconciliation errors per controller',
        labelNames: ['controller'],
        registers,
      }),
  );
  const time = shared(
    registry,
    'controller_runtime_reconcile_time_seconds',
    () =>
      new Histogram({
        name: 'controller_runtime_reconcile_time_seconds',
        help: 'Length of time per reconciliation per controller',
        labelNames: ['controller'],
        buckets: [
          0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1,
          1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
        ],
        registers,
      }),
  );
  const active = shared(
    registry,
    'controller_runtime_active_workers',
    () =>
      new Gauge({
        name: 'controller_runtime_active_workers',
        help: 'Number of currently used workers per controller',
        labelNames: ['controller'],
        registers,
      }),
  );
  const labels = { controller };
  // Zero-valued series from the start, so rate() and absent() work before the first reconcile.
  for (const result of ['success', 'error', 'requeue_after']) total.inc({ controller, result }, 0);
  errors.inc(labels, 0);
  active.set(labels, 0);
  return {
    result: (result) => {
      total.inc({ controller, result });
      if (result === 'error') errors.inc(labels);
    },
    start: () => {
      active.inc(labels);
      const stop = time.startTimer(labels);
      return () => {
        stop();
        active.dec(labels);
      };
    },
  };
}

/** `agent_deploy_leader`: 1 while this process leads (and so reconciles), else 0. */
export function leaderMetric(registry: Registry): (leading: boolean) => void {
  const gauge = shared(
    registry,
    'agent_deploy_leader',
    () =>
      new Gauge({
        name: 'agent_deploy_leader',
        help: 'Whether this operator process is the leader and runs the controllers (1) or stands by (0)',
        registers: [registry],
      }),
  );
  gauge.set(0);
  return (leading) => gauge.set(leading ? 1 : 0);
}
