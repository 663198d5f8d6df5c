import { describe, expect, it } from 'vitest';
import { RateLimiter, WorkQueue } from '../../src/runtime/workqueue.ts';
import { ManualClock } from './manual-clock.ts';

function setup(limiter: ConstructorParameters<typeof RateLimiter>[0] = {}) {
  const clock = new ManualClock();
  const queue = new WorkQueue({ clock, rateLimiter: new RateLimiter(limiter, clock) });
  return { clock, queue };
}

/** Everything get() would hand out right now, each marked done. */
async function drain(queue: WorkQueue): Promise<string[]> {
  const keys: string[] = [];
  while (queue.len() > 0) {
    const key = (await queue.get())!;
    keys.push(key);
    queue.done(key);
  }
  return keys;
}

describe('WorkQueue', () => {
  it('queues a waiting key once, in FIFO order', async () => {
    const { queue } = setup();
    for (const key of ['a', 'b', 'a', 'c', 'b']) queue.add(key);
    expect(queue.len()).toBe(3);
    expect(await drain(queue)).toEqual(['a', 'b', 'c']);
  });

  it('never hands a key in process to a second worker; a re-add runs after done', async () => {
    const { queue } = setup();
    queue.add('a');
    const first = await queue.get();
    queue.add('a');
    queue.add('a');
    expect(queue.len()).toBe(0);
    let second: string | undefined;
    void queue.get().then((k) => {
      second = k;
    });
    await Promise.resolve();
    expect(second).toBeUndefined();
    queue.done(first!);
    await Promise.resolve();
    expect(second).toBe('a');
    queue.done('a');
    expect(queue.len()).toBe(0);
  });

  it('gives a blocked get() the next added key', async () => {
    const { queue } = setup();
    const pending = queue.get();
    queue.add('x');
    expect(await pending).toBe('x');
    expect(queue.isProcessing('x')).toBe(true);
  });

  it('addAfter: the key appears only when due, and the earliest time wins', async () => {
    const { clock, queue } = setup();
    queue.addAfter('a', 1000);
    queue.addAfter('a', 300);
    queue.addAfter('a', 5000);
    queue.addAfter('b', 500);
    expect(queue.delayed()).toBe(2);
    clock.advance(299);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(await drain(queue)).toEqual(['a']);
    clock.advance(200);
    expect(await drain(queue)).toEqual(['b']);
    clock.advance(10_000);
    expect(queue.len()).toBe(0);
    expect(queue.delayed()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('addRateLimited backs off exponentially per key up to the cap; forget resets', async () => {
    const { clock, queue } = setup({ baseDelayMs: 5, maxDelayMs: 40, qps: 1000, burst: 1000 });
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      queue.addRateLimited('k');
      let waited = 0;
      while (queue.len() === 0 && waited < 100) {
        clock.advance(1);
        waited++;
      }
      delays.push(waited);
      expect(await drain(queue)).toEqual(['k']);
    }
    expect(delays).toEqual([5, 10, 20, 40, 40, 40]);
    expect(queue.numRequeues('k')).toBe(6);
    queue.forget('k');
    expect(queue.numRequeues('k')).toBe(0);
    expect(queue.numRequeues('other')).toBe(0);
  });

  it('applies the global token bucket across keys once the burst is spent', () => {
    const { clock, queue } = setup({ baseDelayMs: 1, maxDelayMs: 1, qps: 10, burst: 2 });
    for (const key of ['a', 'b', 'c', 'd']) queue.addRateLimited(key);
    clock.advance(1);
    expect(queue.len()).toBe(2); // the burst
    clock.advance(98);
    expect(queue.len()).toBe(2);
    clock.advance(1);
    expect(queue.len()).toBe(3); // 100 ms per token at 10 qps
    clock.advance(100);
    expect(queue.len()).toBe(4);
  });

  it('runs N workers concurrently but never one key twice at once', async () => {
    const queue = new WorkQueue();
    const active = new Set<string>();
    let concurrent = 0;
    let maxConcurrent = 0;
    let overlaps = 0;
    const runs = new Map<string, number>();
    const done = queue.run(4, async (key) => {
      if (active.has(key)) overlaps++;
      active.add(key);
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      runs.set(key, (runs.get(key) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 5));
      if (key === 'k0' && runs.get(key) === 1) queue.add('k0'); // re-added while processing
      concurrent--;
      active.delete(key);
    });
    for (let i = 0; i < 8; i++) queue.add(`k${i}`);
    queue.add('k7'); // still waiting: deduplicated
    await new Promise((r) => setTimeout(r, 60));
    await queue.shutdown();
    await done;
    expect(overlaps).toBe(0);
    expect(maxConcurrent).toBe(4);
    expect(runs.get('k0')).toBe(2);
    expect(runs.get('k7')).toBe(1);
  });

  it('retries with backoff when a handler throws', async () => {
    const queue = new WorkQueue({ rateLimiter: new RateLimiter({ baseDelayMs: 1, maxDelayMs: 1 }) });
    let calls = 0;
    const done = queue.run(1, async () => {
      calls++;
      if (calls < 3) throw new Error('boom');
    });
    queue.add('a');
    await new Promise((r) => setTimeout(r, 50));
    await queue.shutdown();
    await done;
    expect(calls).toBe(3);
    expect(queue.numRequeues('a')).toBe(2);
  });

  it('shutdown waits for work in flight, drops the rest, and refuses new keys', async () => {
    const { queue } = setup();
    queue.add('a');
    queue.add('b');
    queue.addAfter('c', 10);
    const key = await queue.get();
    let resolved = false;
    const shutdown = queue.shutdown().then(() => {
      resolved = true;
    });
    await new Promise((r) => setTimeout(r, 5));
    expect(resolved).toBe(false);
    expect(await queue.get()).toBeUndefined();
    queue.add('d');
    expect(queue.len()).toBe(0);
    queue.done(key!);
    await shutdown;
    expect(resolved).toBe(true);
  });

  it('reports metrics', async () => {
    const clock = new ManualClock();
    const seen = { adds: 0, retries: 0, depth: [] as number[], latency: [] as number[] };
    const queue = new WorkQueue({
      clock,
      metrics: {
        added: () => seen.adds++,
        retried: () => seen.retries++,
        depth: (n) => seen.depth.push(n),
        queueLatency: (s) => seen.latency.push(s),
      },
    });
    queue.add('a');
    queue.add('a');
    queue.add('b');
    clock.advance(1500);
    await queue.get();
    queue.addRateLimited('c');
    expect(seen).toEqual({ adds: 2, retries: 1, depth: [1, 2, 1], latency: [1.5] });
  });
});
