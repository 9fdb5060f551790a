import type { Disposer } from '../spec/index.js';

/**
 * The disposers of one plugin, run in reverse registration order (cordis-style). Every disposer
 * handed out is idempotent, and `disposeAll` may be called twice.
 */
export class DisposerStack {
  private readonly stack: { fn: () => void | Promise<void>; done: boolean }[] = [];
  private disposed = false;

  constructor(private readonly onError: (e: unknown) => void = () => {}) {}

  /** True once `disposeAll` ran; later `add` calls dispose at once. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Adds a cleanup; returns an idempotent disposer that runs it early and forgets it. */
  add(fn: () => void | Promise<void>): Disposer {
    const entry = { fn, done: false };
    if (this.disposed) {
      entry.done = true;
      this.run(fn);
      return () => {};
    }
    this.stack.push(entry);
    return () => {
      if (entry.done) return;
      entry.done = true;
      const i = this.stack.indexOf(entry);
      if (i >= 0) this.stack.splice(i, 1);
      this.run(fn);
    };
  }

  /** Runs every remaining cleanup, newest first; failures are reported and do not stop the rest. */
  async disposeAll(): Promise<void> {
    this.disposed = true;
    while (this.stack.length) {
      const entry = this.stack.pop()!;
      if (entry.done) continue;
      entry.done = true;
      try {
        await entry.fn();
      } catch (e) {
        this.onError(e);
      }
    }
  }

  private run(fn: () => void | Promise<void>): void {
    try {
      const r = fn();
      if (r && typeof (r as Promise<void>).then === 'function') (r as Promise<void>).catch(this.onError);
    } catch (e) {
      this.onError(e);
    }
  }
}
