// Conditions of the kinds that bind or make one service object (Listener, AgentConnection, OAuthToken).
// They have no revision lifecycle: Ready means "the service holds it", and the rest follows from why not.
import { ServiceError } from '../service/errors.ts';
import { describeOrigin } from '../service/key-source.ts';
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
 * A 4xx answer that asking again will not change: the spec (or the key's rights) is the cause. Not a 5xx
 * (the service may have acted, and may succeed next time), not 429, and never a 401: a rejected key is
 * the operator's trouble, fixed without touching the resource, so nothing may be remembered as refused.
 */
export function isRefusal(err: unknown): err is ServiceError {
  return (
    err instanceof ServiceError &&
    !err.retryable &&
    err.status !== undefined &&
    err.status < 500 &&
    !err.isUnauthorized
  );
}

/**
 * A definite refusal from the service (see isRefusal) as a Problem in the service's own words; anything
 * else (5xx, network, rate limit, a rejected key) is thrown, and the reconcile is retried with backoff.
 */
export function refusal(err: unknown, forbidden = 'the service refused'): Problem {
  if (!isRefusal(err)) throw err;
  if (err.isForbidden) return { reason: 'Forbidden', message: `${forbidden}: ${err.detail}`, stalled: true };
  if (err.isNotFound) return { reason: 'NotFound', message: err.detail, stalled: true };
  return { reason: 'InvalidSpec', message: err.detail, stalled: true };
}

/**
 * Why a service call failed when the resource is not the cause: retried, never Stalled. A rejected key
 * says where the key comes from (never the key) and how it gets fixed: a file is read again when it
 * changes, an environment variable only at start.
 */
export function serviceTrouble(err: ServiceError): Problem {
  if (!err.isUnauthorized) return { reason: 'ServiceError', message: err.message, stalled: false };
  const origin = err.keySource;
  const fix =
    origin?.kind === 'file'
      ? 'the operator reads the file again when it changes and resumes once the service accepts the key'
      : origin?.kind === 'env'
        ? 'set the right key and restart the operator'
        : 'configure the right key';
  const from = origin ? ` from ${describeOrigin(origin)}` : '';
  return {
    reason: 'Unauthorized',
    message: `the service rejected the API key${from} (${err.detail}); ${fix}`,
    stalled: false,
  };
}
