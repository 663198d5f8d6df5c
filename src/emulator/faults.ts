// Fault injection on interface routes: a pure decision per request from the configured rates and a
// random source; the server carries it out (delay, error answer, or a dropped connection).
import { z } from 'zod';

export const FaultConfigSchema = z.strictObject({
  /** Fraction of requests answered with a status from `statuses`. */
  error_rate: z.number().min(0).max(1).default(0),
  statuses: z.array(z.number().int().min(400).max(599)).min(1).default([500, 502, 503]),
  /** Sent as Retry-After on 429 and 503 answers. */
  retry_after_s: z.number().int().nonnegative().default(1),
  /** Delay before every affected request is handled (or faulted). */
  latency_ms: z.number().int().nonnegative().max(60_000).default(0),
  /** Fraction of requests whose connection is destroyed without an answer. */
  reset_rate: z.number().min(0).max(1).default(0),
  /**
   * Fraction of requests processed as usual whose 2xx answer then arrives with a body that breaks the
   * interface (`{}`): the service acted, and the client cannot tell what it made.
   */
  garble_rate: z.number().min(0).max(1).default(0),
  /** Limit faults to these routes: "METHOD /path/template" or "/path/template" (any method). All when absent. */
  paths: z.array(z.string().min(1)).optional(),
});
export type FaultConfig = z.output<typeof FaultConfigSchema>;

export type FaultAction = { kind: 'reset' } | { kind: 'error'; status: number; retryAfterS: number | null };
export interface FaultDecision {
  latencyMs: number;
  action: FaultAction | null;
}

const affects = (config: FaultConfig, template: string) => {
  const path = template.slice(template.indexOf(' ') + 1);
  return !config.paths || config.paths.some((p) => p === template || p === path);
};

/** Whether a processed request's 2xx answer is sent garbled. */
export function garbles(
  config: FaultConfig,
  template: string,
  status: number,
  random: () => number,
): boolean {
  return status >= 200 && status < 300 && affects(config, template) && random() < config.garble_rate;
}

/** `template` is "METHOD /path/template"; returns null when the request is not affected at all. */
export function decideFault(
  config: FaultConfig,
  template: string,
  random: () => number,
): FaultDecision | null {
  if (!affects(config, template)) return null;
  let action: FaultAction | null = null;
  if (random() < config.reset_rate) {
    action = { kind: 'reset' };
  } else if (random() < config.error_rate) {
    const status = config.statuses[Math.floor(random() * config.statuses.length)]!;
    action = {
      kind: 'error',
      status,
      retryAfterS: status === 429 || status === 503 ? config.retry_after_s : null,
    };
  }
  return action === null && config.latency_ms === 0 ? null : { latencyMs: config.latency_ms, action };
}
