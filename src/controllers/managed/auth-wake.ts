// Resources held back because the service rejected the API key wait for the key to be accepted, then
// are reconciled at once. Without this, each would be retried by the work queue's per-item backoff:
// pointless work (and a log line each time) while the key is rejected, and a wait of up to many
// minutes after it is fixed.
import type { Reconcile } from '../../runtime/controller.ts';
import { ServiceError } from '../../service/errors.ts';

/** Where the wake-up comes from: clients whose auth gate holds calls while their key is rejected. */
export interface AuthRestored {
  /** Whether a rejected key holds calls back until a probe succeeds (else nothing would wake a resource). */
  readonly holdsCallsOnRejectedKey: boolean;
  /** Calls `listener` when any of the clients has its key accepted again. */
  onAuthRestored(listener: () => void): unknown;
}

/**
 * Wraps `reconcile`. A key whose reconcile fails with a 401 fails once (logged and counted like any
 * failed reconcile); while the key stays rejected, later 401s of that resource end its reconcile
 * quietly. When the service accepts a key again (any workspace's: the others' resources are refused
 * locally again, without a call), every such resource is enqueued. Without auth gates nothing would
 * tell that, so there a 401 is an ordinary failure, retried with backoff.
 */
export function wakeOnAuthRestored(
  source: AuthRestored,
  reconcile: Reconcile,
  enqueue: (key: string) => void,
): Reconcile {
  const waiting = new Set<string>();
  let restored = 0;
  source.onAuthRestored(() => {
    restored++;
    const keys = [...waiting];
    waiting.clear();
    for (const key of keys) enqueue(key);
  });
  return async (key, signal) => {
    const seen = restored;
    try {
      const result = await reconcile(key, signal);
      waiting.delete(key);
      return result;
    } catch (err) {
      if (!(err instanceof ServiceError && err.isUnauthorized && source.holdsCallsOnRejectedKey)) {
        waiting.delete(key);
        throw err;
      }
      if (restored !== seen) {
        // The key was accepted while this reconcile ran: the wake-up has passed, so go again now.
        enqueue(key);
        throw err;
      }
      if (waiting.has(key)) return undefined;
      waiting.add(key);
      throw err;
    }
  };
}
