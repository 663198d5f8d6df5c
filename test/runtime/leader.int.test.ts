import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/runtime/kube.ts';
import { LeaderElector } from '../../src/runtime/leader.ts';
import { adminKubeConfig, createTestNamespace, kubeconfigPath } from '../support/kube.ts';

// Short timings keep the test quick; the ratios are the defaults' (15/10/2 s).
const timing = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 400 };

let client: KubeClient;
let ns: string;
beforeAll(async () => {
  client = await KubeClient.fromKubeConfig(adminKubeConfig());
  ns = await createTestNamespace('rt-lease');
});
afterAll(async () => {
  await client.close();
});

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(20);
  }
}

function elector(lease: string, identity: string, log: string[]): LeaderElector {
  return new LeaderElector({
    client,
    namespace: ns,
    name: lease,
    identity,
    ...timing,
    onStartedLeading: () => log.push(`${identity} started`),
    onStoppedLeading: () => log.push(`${identity} stopped`),
  });
}

/** Runs an elector in its own process; resolves once it leads. */
async function leaderProcess(lease: string, identity: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      new URL('./fixtures/elector.ts', import.meta.url).pathname,
      kubeconfigPath(),
      ns,
      lease,
      identity,
      String(timing.leaseDurationMs),
      String(timing.renewDeadlineMs),
      String(timing.retryPeriodMs),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('leading')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`elector exited with ${code}`)));
  });
  return child;
}

describe('LeaderElector on a real Lease', () => {
  it('lets exactly one of two lead, and hands over at once when the leader stops', async () => {
    const log: string[] = [];
    const a = elector('one-of-two', 'a', log);
    const b = elector('one-of-two', 'b', log);
    a.start();
    b.start();
    await until(() => a.isLeader() || b.isLeader());
    await delay(2 * timing.leaseDurationMs); // several renewals: still one leader, the same one
    const [leader, follower] = a.isLeader() ? [a, b] : [b, a];
    const leaderId = leader === a ? 'a' : 'b';
    const followerId = leader === a ? 'b' : 'a';
    expect(follower.isLeader()).toBe(false);
    expect(log).toEqual([`${leaderId} started`]);
    const lease = await client.getLease(ns, 'one-of-two');
    expect(lease.spec.holderIdentity).toBe(leaderId);
    expect(lease.spec.leaseDurationSeconds).toBe(3);

    const stopped = Date.now();
    await leader.stop();
    expect(leader.isLeader()).toBe(false);
    await until(() => follower.isLeader());
    expect(Date.now() - stopped).toBeLessThan(timing.retryPeriodMs * 1.2 + 1000);
    expect(log).toEqual([`${leaderId} started`, `${leaderId} stopped`, `${followerId} started`]);
    const after = await client.getLease(ns, 'one-of-two');
    expect(after.spec.holderIdentity).toBe(followerId);
    expect(after.spec.leaseTransitions).toBeGreaterThanOrEqual(1);
    await follower.stop();
    expect((await client.getLease(ns, 'one-of-two')).spec.holderIdentity).toBe('');
  });

  it('takes over from a killed leader only after the lease expires', async () => {
    const child = await leaderProcess('killed', 'doomed');
    const log: string[] = [];
    const successor = elector('killed', 'successor', log);
    successor.start();
    await delay(timing.leaseDurationMs + 500);
    expect(successor.isLeader()).toBe(false); // the live leader keeps renewing

    child.kill('SIGKILL');
    const killed = Date.now();
    await until(() => successor.isLeader());
    const waited = Date.now() - killed;
    // Not before the last renewal has expired, and not much later.
    expect(waited).toBeGreaterThanOrEqual(timing.leaseDurationMs - timing.retryPeriodMs - 100);
    expect(waited).toBeLessThan(timing.leaseDurationMs + 2 * timing.retryPeriodMs + 1000);
    await successor.stop();
  });

  it('a leader process releases on SIGTERM, so the successor need not wait', async () => {
    const child = await leaderProcess('terminated', 'graceful');
    const log: string[] = [];
    const successor = elector('terminated', 'successor', log);
    successor.start();
    await delay(1000);
    expect(successor.isLeader()).toBe(false);

    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const signalled = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await until(() => successor.isLeader());
    expect(Date.now() - signalled).toBeLessThan(timing.leaseDurationMs - 500);
    await successor.stop();
  });
});
