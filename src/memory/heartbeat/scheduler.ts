/** Runs a callback every `ms`; returns a cancel function (safe to call twice). */
export interface Scheduler {
  every(ms: number, fn: () => void | Promise<void>): () => void;
  /** Runs a callback once after `ms`; returns a cancel function (safe to call twice). */
  after?(ms: number, fn: () => void | Promise<void>): () => void;
}

/** The real scheduler: `setInterval`, unref'd so it never keeps the process alive. */
export const timerScheduler: Scheduler = {
  every(ms, fn) {
    const h = setInterval(() => void fn(), ms);
    h.unref?.();
    return () => clearInterval(h);
  },
  after(ms, fn) {
    const h = setTimeout(() => void fn(), ms);
    h.unref?.();
    return () => clearTimeout(h);
  },
};

interface ManualTask {
  /** The period; 0 for a one-shot task (`after`). */
  ms: number;
  next: number;
  fn: () => void | Promise<void>;
  cancelled: boolean;
}

/**
 * A scheduler driven by hand, for tests: `advance(ms)` moves its clock and runs (and awaits) every
 * callback that came due, in time order.
 */
export class ManualScheduler implements Scheduler {
  private tasks: ManualTask[] = [];
  private clock = 0;

  constructor(start = 0) {
    this.clock = start;
  }

  /** Current time of this scheduler's clock. */
  now = (): number => this.clock;

  every(ms: number, fn: () => void | Promise<void>): () => void {
    const task: ManualTask = { ms, next: this.clock + ms, fn, cancelled: false };
    this.tasks.push(task);
    return () => {
      task.cancelled = true;
      this.tasks = this.tasks.filter((t) => t !== task);
    };
  }

  after(ms: number, fn: () => void | Promise<void>): () => void {
    const task: ManualTask = { ms: 0, next: this.clock + ms, fn, cancelled: false };
    this.tasks.push(task);
    return () => {
      task.cancelled = true;
      this.tasks = this.tasks.filter((t) => t !== task);
    };
  }

  /** Number of live tasks. */
  get size(): number {
    return this.tasks.length;
  }

  /** Moves the clock forward, running due callbacks in order. */
  async advance(ms: number): Promise<void> {
    const target = this.clock + ms;
    for (;;) {
      const due = this.tasks.filter((t) => !t.cancelled && t.next <= target).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      this.clock = due.next;
      if (due.ms > 0) due.next += due.ms;
      else this.tasks = this.tasks.filter((t) => t !== due);
      await due.fn();
    }
    this.clock = target;
  }
}
