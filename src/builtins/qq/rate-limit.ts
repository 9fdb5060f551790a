import { sleep } from '../shared/index.js';

/**
 * Inbound limit per chat: at most `limit` messages in any `windowMs` (a sliding window of
 * timestamps). Beyond it, a message is dropped — a flood in a group must not queue hundreds of LLM
 * turns nor fill the memory.
 */
export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Records a hit for `key` and says whether it is within the limit. */
  allow(key: string, limit: number, windowMs = 60_000): boolean {
    const t = this.now();
    const list = (this.hits.get(key) ?? []).filter((x) => t - x < windowMs);
    const ok = list.length < limit;
    if (ok) list.push(t);
    this.hits.set(key, list);
    if (this.hits.size > 10_000) for (const k of [...this.hits.keys()].slice(0, 1000)) this.hits.delete(k);
    return ok;
  }
}

/**
 * Outbound pacing: sends run one at a time with at least `intervalMs()` between their starts — QQ's
 * risk control punishes bots that burst (the seed's qq plugin paced its sends the same way).
 */
export class SendPacer {
  private tail: Promise<unknown> = Promise.resolve();
  private last = 0;

  constructor(private readonly intervalMs: () => number) {}

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(async () => {
      const wait = this.last + this.intervalMs() - Date.now();
      if (wait > 0) await sleep(wait);
      this.last = Date.now();
      return fn();
    });
    this.tail = next.catch(() => {});
    return next;
  }
}
