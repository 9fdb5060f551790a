/**
 * The one queue of memory control's writes (M-9, K-2, K-3, decision 0550): exclusion, restore,
 * forget, undo and the steps of a replacement each read and rewrite several tiers, so they run one
 * at a time. A job that fails does not stop the ones after it.
 */
export class ControlQueue {
  private chain: Promise<unknown> = Promise.resolve();

  /** Runs `fn` after every job queued before it; resolves or rejects as `fn` does. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const job = this.chain.then(fn);
    this.chain = job.catch(() => undefined);
    return job;
  }
}
