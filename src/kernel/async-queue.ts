/** A FIFO queue whose `next()` waits for an item or for `signal` to abort. */
export class AsyncQueue<T> {
  private readonly items: T[] = [];
  private waiter: (() => void) | undefined;

  push(item: T): void {
    this.items.push(item);
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  shift(): T | undefined {
    return this.items.shift();
  }

  get length(): number {
    return this.items.length;
  }

  drain(): T[] {
    return this.items.splice(0, this.items.length);
  }

  /** Resolves when an item is available (true) or the signal aborted (false). */
  wait(signal: AbortSignal): Promise<boolean> {
    if (this.items.length) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiter = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      };
    });
  }

  /** Wakes a pending `wait` so the caller re-checks its other sources. */
  poke(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }
}
