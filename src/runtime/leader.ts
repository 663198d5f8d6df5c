// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it:
// - a candidate takes the lease when it is free (no holder) or expired; expiry is judged by when
//   *this* process last saw the lease change, not by the holder's clock (no clock-skew trust);
// - the leader renews every retry period; if it cannot renew within the renew deadline it stops
//   leading (its signal aborts) before the lease can expire and a successor start;
// - every write is conditional on the resourceVersion read (a 409 means someone else won);
// - stop() releases the lease (no holder, duration 1 s) so a successor takes over at once.
// Graceful order for a process: stop the controllers (finish in-flight work), then stop() here.
import type { Logger } from 'pino';
import { sleep } from './clock.ts';
import type { KubeClient } from './kube.ts';
import { isConflict, isNotFound } from './kube-errors.ts';
import type { Lease } from './kube-objects.ts';

export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  identity: string;
  /** Defaults 15 s / 10 s / 2 s, as controller-runtime. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Called on becoming leader; `signal` aborts when leadership ends. */
  onStartedLeading: (signal: AbortSignal) => void;
  /** Called when leadership ends, lost or released (only after onStartedLeading). */
  onStoppedLeading?: () => void;
  logger?: Logger;
}

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class LeaderElector {
  readonly #o: Required<Omit<LeaderElectionOptions, 'onStoppedLeading' | 'logger'>> &
    Pick<LeaderElectionOptions, 'onStoppedLeading'>;
  readonly #log: Logger | undefined;
  readonly #stop = new AbortController();
  #run: Promise<void> | undefined;
  #leading: AbortController | undefined;
  #lease: Lease | undefined;
  /** Local time at which the lease was last seen to change. */
  #observedAt = 0;

  constructor(options: LeaderElectionOptions) {
    this.#o = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      ...options,
    };
    if (
      this.#o.leaseDurationMs <= this.#o.renewDeadlineMs ||
      this.#o.renewDeadlineMs <= this.#o.retryPeriodMs
    ) {
      throw new Error('leader election needs leaseDuration > renewDeadline > retryPeriod');
    }
    this.#log = options.logger?.child({
      lease: `${options.namespace}/${options.name}`,
      identity: options.identity,
    });
  }

  start(): void {
    this.#run ??= this.#loop();
  }

  isLeader(): boolean {
    return this.#leading !== undefined && !this.#leading.signal.aborted;
  }

  /** Stops campaigning; a leader releases the lease. Resolves when done. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#run;
  }

  async #loop(): Promise<void> {
    const stop = this.#stop.signal;
    while (!stop.aborted && !(await this.#tryAcquireOrRenew())) {
      await sleep(this.#o.retryPeriodMs * (1 + 0.2 * Math.random()), stop);
    }
    if (stop.aborted) return;
    this.#leading = new AbortController();
    this.#log?.info('became leader');
    this.#o.onStartedLeading(this.#leading.signal);
    let renewedAt = Date.now();
    while (!stop.aborted) {
      await sleep(this.#o.retryPeriodMs, stop);
      if (stop.aborted) break;
      // A renewal hanging past the deadline counts as failed: leadership must end before the lease expires.
      const remaining = renewedAt + this.#o.renewDeadlineMs - Date.now();
      const giveUp = new AbortController();
      const renewed = await Promise.race([
        this.#tryAcquireOrRenew(),
        sleep(remaining, giveUp.signal).then(() => false),
      ]);
      giveUp.abort();
      if (renewed) {
        renewedAt = Date.now();
      } else if (Date.now() - renewedAt >= this.#o.renewDeadlineMs) {
        this.#log?.warn('could not renew the lease within the renew deadline; leadership lost');
        break;
      }
    }
    this.#leading.abort();
    if (stop.aborted) await this.#release();
    this.#o.onStoppedLeading?.();
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name, identity } = this.#o;
    const now = new Date();
    const durationSeconds = Math.ceil(this.#o.leaseDurationMs / 1000);
    try {
      let current: Lease;
      try {
        current = await client.getLease(namespace, name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        const created = await client.createLease({
          metadata: { name, namespace },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: 0,
          },
        });
        this.#observe(created, now);
        return true;
      }
      if (current.metadata.resourceVersion !== this.#lease?.metadata.resourceVersion)
        this.#observe(current, now);
      const holder = current.spec.holderIdentity;
      const durationMs = (current.spec.leaseDurationSeconds ?? durationSeconds) * 1000;
      if (holder && holder !== identity && this.#observedAt + durationMs > now.getTime()) return false;
      const taking = holder !== identity;
      const updated = await client.updateLease({
        ...current,
        spec: {
          ...current.spec,
          holderIdentity: identity,
          leaseDurationSeconds: durationSeconds,
          renewTime: microTime(now),
          ...(taking
            ? { acquireTime: microTime(now), leaseTransitions: (current.spec.leaseTransitions ?? 0) + 1 }
            : {}),
        },
      });
      this.#observe(updated, now);
      return true;
    } catch (err) {
      if (!isConflict(err)) this.#log?.warn({ err: (err as Error).message }, 'lease read/write failed');
      return false;
    }
  }

  #observe(lease: Lease, at: Date): void {
    this.#lease = lease;
    this.#observedAt = at.getTime();
  }

  /** Gives the lease up if we still hold it, so a successor does not wait for it to expire. */
  async #release(): Promise<void> {
    const lease = this.#lease;
    if (!lease || lease.spec.holderIdentity !== this.#o.identity) return;
    const now = microTime(new Date());
    try {
      await this.#o.client.updateLease({
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
        },
      });
      this.#log?.info('released the lease');
    } catch (err) {
      this.#log?.warn({ err: (err as Error).message }, 'could not release the lease; it will expire');
    }
  }
}
