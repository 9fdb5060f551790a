import type { SessionEvent, SessionEventsQuery, SessionInfo, SessionsAPI } from '../../spec/index.js';
import { NotFoundError } from '../../spec/index.js';

/** An in-memory session store for plugin tests: the kernel's SessionPort and the SDK's SessionsAPI. */
export class MemorySessions implements SessionsAPI {
  private readonly sessions = new Map<string, { info: SessionInfo; events: SessionEvent[]; turn: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async list(): Promise<SessionInfo[]> {
    return [...this.sessions.values()].map((s) => ({ ...s.info }));
  }

  async get(id: string): Promise<SessionInfo | undefined> {
    const s = this.sessions.get(id);
    return s && { ...s.info };
  }

  async events(id: string, opts: SessionEventsQuery = {}): Promise<SessionEvent[]> {
    const s = this.sessions.get(id);
    if (!s) throw new NotFoundError('session', id);
    const list = s.events.filter((e) => e.seq > (opts.afterSeq ?? 0) && (opts.beforeSeq === undefined || e.seq < opts.beforeSeq));
    if (!opts.limit) return list;
    return opts.beforeSeq === undefined ? list.slice(0, opts.limit) : list.slice(Math.max(0, list.length - opts.limit));
  }

  async append(id: string, event: Omit<SessionEvent, 'seq' | 'at'> & { at?: number }): Promise<SessionEvent> {
    const s = this.mustGet(id);
    const ev: SessionEvent = { ...event, seq: s.info.lastSeq + 1, at: event.at ?? this.now() };
    s.events.push(ev);
    s.info.lastSeq = ev.seq;
    s.info.updatedAt = ev.at;
    if (ev.kind === 'user') s.info.turns++;
    return ev;
  }

  async create(opts: { channel: string; title?: string; id?: string }): Promise<SessionInfo> {
    const id = opts.id ?? `${opts.channel}:${this.sessions.size + 1}`;
    return this.ensure(id, opts.channel, opts.title);
  }

  async ensure(id: string, channel: string, title?: string): Promise<SessionInfo> {
    return { ...this.mustGet(id, channel, title).info };
  }

  async rename(id: string, title: string): Promise<void> {
    this.mustGet(id).info.title = title;
  }

  nextTurn(sessionId: string): { turnId: string; turnSeq: number } {
    const s = this.mustGet(sessionId);
    s.turn++;
    return { turnId: `${sessionId}#${s.turn}`, turnSeq: s.turn };
  }

  private mustGet(id: string, channel = id.split(':')[0] ?? 'test', title?: string) {
    let s = this.sessions.get(id);
    if (!s) {
      const at = this.now();
      s = { info: { id, channel, title: title ?? id, createdAt: at, updatedAt: at, turns: 0, lastSeq: 0 }, events: [], turn: 0 };
      this.sessions.set(id, s);
    }
    return s;
  }
}
