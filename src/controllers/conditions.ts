// Conditions of the kinds that bind or make one service object (Listener, AgentConnection, OAuthToken).
// They have no revision lifecycle: Ready means "the service holds it", and the rest follows from why not.
import { ServiceError } from '../service/errors.ts';
import type { ConditionSet, ConditionValue, Problem } from './deployment/conditions.ts';

const c = (status: ConditionValue['status'], reason: ConditionValue['reason'], message: string) => ({
  status,
  reason,
  message,
});

/**
 * The four kstatus conditions from one outcome: no problem → Ready; a stalled problem → Stalled (nothing
 * changes without a spec change or a resync); any other problem → still Reconciling.
 */
export function outcomeConditions(problem: Problem | undefined, readyMessage: string): ConditionSet {
  if (!problem)
    return {
      Ready: c('True', 'Ready', readyMessage),
      Synced: c('True', 'Synced', readyMessage),
      Reconciling: c('False', 'Idle', 'nothing in flight'),
      Stalled: c('False', 'Idle', 'no failure'),
    };
  const failed = c('False', problem.reason, problem.message);
  return {
    Ready: failed,
    Synced: failed,
    Reconciling: problem.stalled
      ? c('False', 'Idle', 'waiting for a spec change')
      : c('True', problem.reason, problem.message),
    Stalled: problem.stalled
      ? c('True', problem.reason, problem.message)
      : c('False', 'Progressing', 'no failure'),
  };
}

/**
 * A definite refusal from the service (a 4xx other than 401/429) as a Problem in the service's own words;
 * anything else (5xx, network, rate limit, a bad key) is thrown, and the reconcile is retried with backoff.
 */
export function refusal(err: unknown, forbidden = 'the service refused'): Problem {
  if (
    !(err instanceof ServiceError) ||
    err.retryable ||
    err.status === undefined ||
    err.status >= 500 ||
    err.isUnauthorized
  )
    throw err;
  if (err.isForbidden) return { reason: 'Forbidden', message: `${forbidden}: ${err.detail}`, stalled: true };
  if (err.isNotFound) return { reason: 'NotFound', message: err.detail, stalled: true };
  return { reason: 'InvalidSpec', message: err.detail, stalled: true };
}
