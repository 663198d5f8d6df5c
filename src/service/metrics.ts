// Prometheus metrics of calls to the service, fed by the client's onCall hook.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { CallRecord } from './transport.ts';

const requestsName = 'agent_deploy_service_requests_total';
const durationName = 'agent_deploy_service_request_duration_seconds';
const violationsName = 'agent_deploy_service_contract_violations_total';

/**
 * Counts and times every attempt at a service call (a retried call counts once per attempt, so 429s
 * and 5xx show up), by workspace, endpoint template and HTTP status (`error`: no response), and counts
 * the answers that broke the contract: each list item left out, each body that could not be used.
 * Labels are bounded: workspace names (`default` for the operator's own flags) and templates, never
 * ids, keys or tenants. Clients reporting to one registry share its metrics.
 */
export function serviceCallMetrics(
  registry: Registry,
  workspace = 'default',
): (call: Pick<CallRecord, 'endpoint' | 'status' | 'durationMs' | 'contractViolations'>) => void {
  const registers = [registry];
  const total =
    (registry.getSingleMetric(requestsName) as Counter<string> | undefined) ??
    new Counter({
      name: requestsName,
      help: 'Requests to the Deployment and Authorization Service, by workspace, endpoint template and HTTP status code',
      labelNames: ['workspace', 'endpoint', 'code'],
      registers,
    });
  const duration =
    (registry.getSingleMetric(durationName) as Histogram<string> | undefined) ??
    new Histogram({
      name: durationName,
      help: 'Latency of requests to the Deployment and Authorization Service, by workspace and endpoint template',
      labelNames: ['workspace', 'endpoint'],
      // Up to the client's 30 s header and body timeouts.
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
  const violations =
    (registry.getSingleMetric(violationsName) as Counter<string> | undefined) ??
    new Counter({
      name: violationsName,
      help: 'Parts of 2xx answers of the Deployment and Authorization Service that break its interface (list items left out, unusable bodies), by workspace and endpoint template',
      labelNames: ['workspace', 'endpoint'],
      registers,
    });
  return ({ endpoint, status, durationMs, contractViolations }) => {
    total.inc({ workspace, endpoint, code: String(status) });
    duration.observe({ workspace, endpoint }, durationMs / 1000);
    if (contractViolations > 0) violations.inc({ workspace, endpoint }, contractViolations);
  };
}
