// A clock that moves only when the test says so, for deterministic queue timing.
import type { Clock } from '../../src/runtime/clock.ts';

interface Timer {
  at: number;
  fn: () => void;
}

export class ManualClock implements Clock {
  #now = 1_000_000;
  readonly #timers = new Set<Timer>();

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { at: this.#now + ms, fn };
    this.#timers.add(timer);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as Timer);
  }

  /** Moves time forward, firing due timers in time order. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const due = [...this.#timers].filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.#timers.delete(due);
      this.#now = due.at;
      due.fn();
    }
    this.#now = until;
  }

  pendingTimers(): number {
    return this.#timers.size;
  }
}
