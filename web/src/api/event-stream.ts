import { token } from './client';

export type BusListener = (event: string, payload: unknown) => void;
export type StreamState = 'connecting' | 'open' | 'reconnecting';

/**
 * The daemon's event stream (`GET /api/v1/events`): one EventSource, fanned out to listeners.
 * Reconnects with back-off after an error (e.g. a daemon restart) without reloading the page;
 * `onRestart` fires when the daemon's boot id changed, so views can refetch what they show.
 */
export class EventStream {
  private es: EventSource | undefined;
  private readonly listeners = new Set<BusListener>();
  private readonly stateListeners = new Set<(s: StreamState) => void>();
  private bootId: string | undefined;
  private retry = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastId: string | undefined;
  state: StreamState = 'connecting';
  onRestart: (() => void) | undefined;
  onReconnect: (() => void) | undefined;

  constructor(private readonly path = '/api/v1/events') {}

  start(): void {
    if (this.es) return;
    const tk = token();
    const qs = new URLSearchParams();
    if (tk) qs.set('token', tk);
    if (this.lastId) qs.set('lastEventId', this.lastId);
    const q = qs.toString();
    const es = new EventSource(q ? `${this.path}?${q}` : this.path);
    this.es = es;
    es.onopen = () => {
      const wasReconnect = this.retry > 0 || this.state === 'reconnecting';
      this.retry = 0;
      this.setState('open');
      if (wasReconnect) this.onReconnect?.();
    };
    es.onmessage = (m) => {
      if (m.lastEventId) this.lastId = m.lastEventId;
      let msg: { event: string; payload: unknown };
      try {
        msg = JSON.parse(m.data) as { event: string; payload: unknown };
      } catch {
        return;
      }
      if (msg.event === 'hello') {
        const id = (msg.payload as { bootId?: string }).bootId;
        if (this.bootId && id && id !== this.bootId) {
          this.lastId = undefined;
          this.onRestart?.();
        }
        this.bootId = id;
      }
      for (const l of [...this.listeners]) {
        try {
          l(msg.event, msg.payload);
        } catch (e) {
          console.error(e);
        }
      }
    };
    es.onerror = () => {
      // The browser retries by itself only while the stream is CONNECTING; take over so the
      // back-off also covers a refused connection during a restart.
      es.close();
      this.es = undefined;
      this.setState('reconnecting');
      const delay = Math.min(500 * 2 ** this.retry, 8000);
      this.retry++;
      this.timer = setTimeout(() => this.start(), delay);
    };
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.es?.close();
    this.es = undefined;
  }

  subscribe(fn: BusListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  onState(fn: (s: StreamState) => void): () => void {
    this.stateListeners.add(fn);
    return () => this.stateListeners.delete(fn);
  }

  private setState(s: StreamState): void {
    this.state = s;
    for (const l of this.stateListeners) l(s);
  }
}

/** The one stream of the app. */
export const bus = new EventStream();
