import type { AgentEvents, Disposer } from '../spec/index.js';

type Listener<T> = (payload: T) => void;

/**
 * The typed event bus (C-7). Listeners run synchronously in registration order; a listener that
 * throws is reported through `onError` and never affects the others or the publisher.
 */
export class EventBus {
  private readonly listeners = new Map<string, Set<Listener<unknown>>>();
  private readonly any = new Set<(event: string, payload: unknown) => void>();

  constructor(private readonly onError: (event: string, error: unknown) => void = () => {}) {}

  on<K extends keyof AgentEvents>(event: K, fn: Listener<AgentEvents[K]>): Disposer {
    let set = this.listeners.get(event as string);
    if (!set) this.listeners.set(event as string, (set = new Set()));
    set.add(fn as Listener<unknown>);
    return () => {
      set.delete(fn as Listener<unknown>);
    };
  }

  /** Every event, e.g. for the WebUI's SSE stream. */
  onAny(fn: (event: string, payload: unknown) => void): Disposer {
    this.any.add(fn);
    return () => {
      this.any.delete(fn);
    };
  }

  emit<K extends keyof AgentEvents>(event: K, payload: AgentEvents[K]): void {
    for (const fn of [...(this.listeners.get(event as string) ?? [])]) {
      try {
        fn(payload);
      } catch (e) {
        this.onError(event as string, e);
      }
    }
    for (const fn of [...this.any]) {
      try {
        fn(event as string, payload);
      } catch (e) {
        this.onError(event as string, e);
      }
    }
  }

  listenerCount(event: keyof AgentEvents): number {
    return this.listeners.get(event as string)?.size ?? 0;
  }
}
