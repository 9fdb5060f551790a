/**
 * Exponential back-off for reconnecting channels (Telegram polling, OneBot WebSockets): 1 s, 2 s,
 * 4 s … up to a cap, with ±20 % jitter so several clients do not retry in step; `reset()` after a
 * success. A server's own "retry after" always wins over the computed delay.
 */
export class Backoff {
  private failures = 0;

  constructor(
    private readonly baseMs = 1000,
    private readonly maxMs = 60_000,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next attempt, counting this failure. */
  next(retryAfterMs?: number): number {
    this.failures++;
    if (retryAfterMs !== undefined && retryAfterMs >= 0) return Math.min(retryAfterMs, 3_600_000);
    const exp = Math.min(this.maxMs, this.baseMs * 2 ** Math.min(this.failures - 1, 30));
    return Math.round(exp * (0.8 + 0.4 * this.random()));
  }

  /** Consecutive failures so far. */
  get attempts(): number {
    return this.failures;
  }

  reset(): void {
    this.failures = 0;
  }
}

/** Resolves after `ms`, or at once (without throwing) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref?.();
    signal?.addEventListener('abort', done, { once: true });
  });
}
