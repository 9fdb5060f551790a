import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  ConflictError,
  HomeAgentError,
  NotFoundError,
  PayloadTooLargeError,
  ValidationError,
  type SessionEvent,
  type SessionEventKind,
  type SessionInfo,
  type SessionsAPI,
} from '../spec/index.js';
import { appendDurable, createDurable, scanJsonl, type JsonlLogger } from './jsonl-file.js';
import { assertChannel, assertSessionId, sessionFileStem, sessionIdFromFileStem } from './session-id.js';

export interface SessionStoreOptions {
  /** Folder of the session logs, usually `<home>/sessions`. */
  dir: string;
  now?: () => number;
  logger?: JsonlLogger;
  /** Largest serialized event accepted (default 8 MiB). */
  maxEventBytes?: number;
}

/** One turn of a session: its id, the seqs and events that carry it, in log order. */
export interface SessionTurn {
  turnId: string;
  seqs: number[];
  events: SessionEvent[];
}

const EVENT_KINDS = ['user', 'assistant', 'tool_call', 'tool_result', 'reasoning', 'interrupt', 'injection', 'system', 'marker', 'error'] as const satisfies readonly SessionEventKind[];

const EventInputSchema = z.object({
  turnId: z.string().min(1).max(300),
  kind: z.enum(EVENT_KINDS),
  text: z.string(),
  at: z.number().finite().nonnegative().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

const EventsOptsSchema = z
  .object({
    afterSeq: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).optional(),
  })
  .optional();

const TitleSchema = z.string().max(200);

interface SessionState {
  info: SessionInfo;
  file: string;
  size: number;
  /** Highest turn number handed out by nextTurn or seen in the log. */
  turnCounter: number;
  /**
   * The session's events as read from its log, valid while `size` equals the log's size (appends
   * keep it current); dropped for the least recently read sessions beyond CACHED_SESSIONS.
   */
  cache?: { size: number; events: SessionEvent[] };
}

/** How many sessions keep their parsed events in memory (the ones read most recently)… */
const CACHED_SESSIONS = 16;
/** …as long as their logs add up to at most this many bytes (events may be up to 8 MiB each). */
const CACHED_BYTES = 64 * 1024 * 1024;

const consoleLogger: JsonlLogger = { warn: (msg, data) => console.warn(`[sessions] ${msg}`, data ?? '') };

/** `webui:3f2a#7` → 7 when the turn id belongs to `sessionId`. */
function turnNumber(sessionId: string, turnId: string): number | undefined {
  if (!turnId.startsWith(`${sessionId}#`)) return undefined;
  const n = Number(turnId.slice(sessionId.length + 1));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function toEvent(r: Record<string, unknown>): SessionEvent | undefined {
  if (r.type !== 'event' || typeof r.seq !== 'number' || typeof r.turnId !== 'string' || typeof r.kind !== 'string') return undefined;
  const ev: SessionEvent = {
    seq: r.seq,
    turnId: r.turnId,
    kind: r.kind as SessionEventKind,
    at: typeof r.at === 'number' ? r.at : 0,
    text: typeof r.text === 'string' ? r.text : '',
  };
  if (r.data && typeof r.data === 'object' && !Array.isArray(r.data)) ev.data = r.data as Record<string, unknown>;
  return ev;
}

/**
 * Sessions and their event logs (C-9). One append-only JSONL file per session,
 * `<dir>/<escaped id>.jsonl`: a `session` header line (id, channel, title, createdAt), then
 * `event` lines (per-session `seq`) and `title` lines (renames). Metadata is derived by reading
 * the logs on `open()`, which also repairs a torn last line. Appends to one session are
 * serialized and durable (fdatasync) when their promise resolves.
 */
export class SessionStore implements SessionsAPI {
  private readonly now: () => number;
  private readonly logger: JsonlLogger;
  private readonly maxEventBytes: number;
  private readonly sessions = new Map<string, SessionState>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Sessions with cached events, least recently read first. */
  private readonly cacheOrder = new Set<string>();
  private state: 'new' | 'open' | 'closed' = 'new';

  constructor(private readonly opts: SessionStoreOptions) {
    this.now = opts.now ?? Date.now;
    this.logger = opts.logger ?? consoleLogger;
    this.maxEventBytes = opts.maxEventBytes ?? 8 * 1024 * 1024;
  }

  /** Creates the folder and loads every session log (repairing torn tails). Idempotent. */
  async open(): Promise<void> {
    if (this.state === 'open') return;
    await fs.promises.mkdir(this.opts.dir, { recursive: true });
    this.sessions.clear();
    for (const name of (await fs.promises.readdir(this.opts.dir)).sort()) {
      if (!name.endsWith('.jsonl')) continue;
      await this.load(path.join(this.opts.dir, name));
    }
    this.state = 'open';
  }

  /** Waits for pending appends, then closes. Idempotent. */
  async close(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'closed';
    await Promise.allSettled([...this.locks.values()]);
  }

  /** All sessions, most recently updated first. */
  async list(): Promise<SessionInfo[]> {
    this.requireOpen();
    return [...this.sessions.values()].map((s) => ({ ...s.info })).sort((a, b) => b.updatedAt - a.updatedAt || a.id.localeCompare(b.id));
  }

  async get(id: string): Promise<SessionInfo | undefined> {
    this.requireOpen();
    assertSessionId(id);
    const s = this.sessions.get(id);
    return s ? { ...s.info } : undefined;
  }

  /** Creates a session; `id` defaults to `<channel>:<8 hex>`. Existing id → ConflictError. */
  async create(opts: { channel: string; title?: string; id?: string }): Promise<SessionInfo> {
    this.requireOpen();
    assertChannel(opts?.channel);
    const id = opts.id ?? `${opts.channel}:${randomBytes(4).toString('hex')}`;
    assertSessionId(id);
    const title = this.parseTitle(opts.title ?? '');
    return this.withLock(id, async () => {
      if (this.sessions.has(id)) throw new ConflictError(`session already exists: ${id}`, { id });
      return this.createLocked(id, opts.channel, title);
    });
  }

  /** Returns the session, creating it when missing (safe under concurrent calls). */
  async ensure(id: string, channel: string, title?: string): Promise<SessionInfo> {
    this.requireOpen();
    assertSessionId(id);
    assertChannel(channel);
    const t = this.parseTitle(title ?? '');
    return this.withLock(id, async () => {
      const s = this.sessions.get(id);
      return s ? { ...s.info } : this.createLocked(id, channel, t);
    });
  }

  async rename(id: string, title: string): Promise<void> {
    this.requireOpen();
    assertSessionId(id);
    const t = this.parseTitle(title);
    await this.withLock(id, async () => {
      const s = this.mustGet(id);
      const at = this.now();
      const line = `${JSON.stringify({ type: 'title', title: t, at })}\n`;
      const before = s.size;
      await appendDurable(s.file, line, s.size);
      s.size += Buffer.byteLength(line);
      if (s.cache?.size === before) s.cache.size = s.size; // a title line: no event
      s.info.title = t;
      s.info.updatedAt = Math.max(s.info.updatedAt, at);
    });
  }

  /** Appends an event with the next seq; durable when the promise resolves. */
  async append(id: string, event: Omit<SessionEvent, 'seq' | 'at'> & { at?: number }): Promise<SessionEvent> {
    this.requireOpen();
    assertSessionId(id);
    const parsed = EventInputSchema.safeParse(event);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
      throw new ValidationError(`invalid session event: ${why}`, { key: 'event', sessionId: id });
    }
    const input = parsed.data;
    let dataJson: string | undefined;
    try {
      dataJson = input.data === undefined ? undefined : JSON.stringify(input.data);
    } catch {
      throw new ValidationError('invalid session event: data is not JSON-serializable', { key: 'event.data', sessionId: id });
    }
    return this.withLock(id, async () => {
      const s = this.mustGet(id);
      const ev: SessionEvent = { seq: s.info.lastSeq + 1, turnId: input.turnId, kind: input.kind, at: input.at ?? this.now(), text: input.text };
      if (dataJson !== undefined) ev.data = JSON.parse(dataJson) as Record<string, unknown>;
      const line = `${JSON.stringify({ type: 'event', ...ev })}\n`;
      const bytes = Buffer.byteLength(line);
      if (bytes > this.maxEventBytes) throw new PayloadTooLargeError(this.maxEventBytes, 'session event');
      const before = s.size;
      await appendDurable(s.file, line, s.size);
      s.size += bytes;
      if (s.cache?.size === before) {
        s.cache.events.push(ev.data ? { ...ev, data: JSON.parse(dataJson!) as Record<string, unknown> } : { ...ev });
        s.cache.size = s.size;
        this.touchCache(id, s); // keeps the byte cap as the cached logs grow
      }
      s.info.lastSeq = ev.seq;
      s.info.updatedAt = Math.max(s.info.updatedAt, ev.at);
      const n = turnNumber(id, ev.turnId);
      if (n !== undefined && n > s.info.turns) s.info.turns = n;
      if (s.info.turns > s.turnCounter) s.turnCounter = s.info.turns;
      return ev;
    });
  }

  /** Events with `seq > afterSeq` (default 0), at most `limit`, oldest first. */
  async events(id: string, opts?: { afterSeq?: number; limit?: number }): Promise<SessionEvent[]> {
    this.requireOpen();
    assertSessionId(id);
    const o = EventsOptsSchema.safeParse(opts);
    if (!o.success) throw new ValidationError(`invalid events options: ${o.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, { key: 'opts' });
    const s = this.mustGet(id);
    const after = o.data?.afterSeq ?? 0;
    const limit = o.data?.limit ?? Number.POSITIVE_INFINITY;
    const all = await this.cachedEvents(id, s);
    const out: SessionEvent[] = [];
    for (const ev of all) {
      if (ev.seq <= after) continue;
      // A copy each: callers may change what they get without touching the cache.
      out.push(ev.data ? { ...ev, data: structuredClone(ev.data) } : { ...ev });
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * All events of a session, parsed once and then kept current by `append` (a chat view reads its
   * session after every turn: without this, each read parsed the whole log again). Read under the
   * session's lock so no append lands between the scan and the size it is valid for.
   */
  private async cachedEvents(id: string, s: SessionState): Promise<SessionEvent[]> {
    if (s.cache && s.cache.size === s.size) {
      this.touchCache(id, s);
      return s.cache.events;
    }
    return this.withLock(id, async () => {
      if (s.cache && s.cache.size === s.size) return s.cache.events;
      const { records } = await scanJsonl(s.file, this.logger);
      const events: SessionEvent[] = [];
      for (const r of records) {
        const ev = toEvent(r);
        if (ev) events.push(ev);
      }
      s.cache = { size: s.size, events };
      this.touchCache(id, s);
      return events;
    });
  }

  /** Marks a session's cache as most recently used and drops the oldest beyond CACHED_SESSIONS. */
  private touchCache(id: string, s: SessionState): void {
    this.cacheOrder.delete(id);
    this.cacheOrder.add(id);
    const bytes = () => {
      let n = 0;
      for (const cid of this.cacheOrder) n += this.sessions.get(cid)?.cache?.size ?? 0;
      return n;
    };
    // The session just read stays (it is in use); the least recently read ones go first.
    while (this.cacheOrder.size > 1 && (this.cacheOrder.size > CACHED_SESSIONS || bytes() > CACHED_BYTES)) {
      const oldest = this.cacheOrder.values().next().value as string;
      this.cacheOrder.delete(oldest);
      const o = this.sessions.get(oldest);
      if (o && o !== s) o.cache = undefined;
    }
  }

  /**
   * Hands out the next turn of a session: `{ turnId: "<id>#<n>", turnSeq: n }`, n increasing
   * per session and never below a turn already in the log.
   */
  nextTurn(sessionId: string): { turnId: string; turnSeq: number } {
    this.requireOpen();
    assertSessionId(sessionId);
    const s = this.mustGet(sessionId);
    s.turnCounter = Math.max(s.turnCounter, s.info.turns) + 1;
    return { turnId: `${sessionId}#${s.turnCounter}`, turnSeq: s.turnCounter };
  }

  /** The session's events grouped by turn, in order of each turn's first event. */
  async turns(sessionId: string): Promise<SessionTurn[]> {
    const byTurn = new Map<string, SessionTurn>();
    for (const ev of await this.events(sessionId)) {
      let t = byTurn.get(ev.turnId);
      if (!t) byTurn.set(ev.turnId, (t = { turnId: ev.turnId, seqs: [], events: [] }));
      t.seqs.push(ev.seq);
      t.events.push(ev);
    }
    return [...byTurn.values()];
  }

  private async createLocked(id: string, channel: string, title: string): Promise<SessionInfo> {
    const file = path.join(this.opts.dir, `${sessionFileStem(id)}.jsonl`);
    const createdAt = this.now();
    const line = `${JSON.stringify({ type: 'session', v: 1, id, channel, title, createdAt })}\n`;
    try {
      await createDurable(file, line);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new ConflictError(`session file already exists: ${id}`, { id });
      throw e;
    }
    const info: SessionInfo = { id, channel, title, createdAt, updatedAt: createdAt, turns: 0, lastSeq: 0 };
    this.sessions.set(id, { info, file, size: Buffer.byteLength(line), turnCounter: 0 });
    return { ...info };
  }

  /** Loads one log into memory; repairs its tail; skips files that are not ours. */
  private async load(file: string): Promise<void> {
    const stem = path.basename(file, '.jsonl');
    const { records, size } = await scanJsonl(file, this.logger, { repair: true });
    const header = records.find((r) => r.type === 'session');
    let id = typeof header?.id === 'string' ? header.id : sessionIdFromFileStem(stem);
    if (id !== undefined && sessionIdFromFileStem(stem) !== id) id = undefined;
    if (id === undefined) {
      this.logger.warn('skipped a file that is not a session log', { file: path.basename(file) });
      return;
    }
    if (records.length === 0) {
      // only a torn header was written: nothing was ever acknowledged, so the file goes
      await fs.promises.rm(file, { force: true });
      this.logger.warn('removed an empty session log', { file: path.basename(file) });
      return;
    }
    if (!header) this.logger.warn('session log has no header; metadata derived from its events', { file: path.basename(file) });
    const firstAt = records.map((r) => r.at).find((a): a is number => typeof a === 'number') ?? 0;
    const info: SessionInfo = {
      id,
      channel: typeof header?.channel === 'string' ? header.channel : id.split(':')[0],
      title: typeof header?.title === 'string' ? header.title : '',
      createdAt: typeof header?.createdAt === 'number' ? header.createdAt : firstAt,
      updatedAt: 0,
      turns: 0,
      lastSeq: 0,
    };
    info.updatedAt = info.createdAt;
    for (const r of records) {
      if (r.type === 'title' && typeof r.title === 'string') {
        info.title = r.title;
        if (typeof r.at === 'number') info.updatedAt = Math.max(info.updatedAt, r.at);
        continue;
      }
      const ev = toEvent(r);
      if (!ev) continue;
      if (ev.seq > info.lastSeq) info.lastSeq = ev.seq;
      info.updatedAt = Math.max(info.updatedAt, ev.at);
      const n = turnNumber(id, ev.turnId);
      if (n !== undefined && n > info.turns) info.turns = n;
    }
    this.sessions.set(id, { info, file, size, turnCounter: info.turns });
  }

  private parseTitle(title: unknown): string {
    const r = TitleSchema.safeParse(title);
    if (!r.success) throw new ValidationError(`invalid session title: ${r.error.issues[0]?.message ?? 'bad value'}`, { key: 'title' });
    return r.data;
  }

  private mustGet(id: string): SessionState {
    const s = this.sessions.get(id);
    if (!s) throw new NotFoundError('session', id);
    return s;
  }

  private requireOpen(): void {
    if (this.state !== 'open') throw new HomeAgentError('SESSIONS_CLOSED', 'the session store is not open');
  }

  /** Runs `fn` after every earlier locked operation on the same session. */
  private withLock<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(id) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(id, settled);
    void settled.then(() => {
      if (this.locks.get(id) === settled) this.locks.delete(id);
    });
    return run;
  }
}
