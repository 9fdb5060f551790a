import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  ConflictError,
  HomeAgentError,
  type DeletionScope,
  NotFoundError,
  PayloadTooLargeError,
  ValidationError,
  type SessionEvent,
  type SessionEventKind,
  type SessionEventsQuery,
  type SessionInfo,
  type SessionsAPI,
} from '../spec/index.js';
import { writeFileAtomic } from '../fs/index.js';
import { appendDurable, createDurable, scanJsonl, type JsonlLogger } from './jsonl-file.js';
import { MARK_EVERY, markAtOrAfter, markAtOrBefore, pickBackward, pickForward, type OffsetMark } from './session-offsets.js';
import { toEvent } from './session-record.js';
import { forgetInLogBytes } from './forget-in-log.js';
import { setAsideUnreadableLog } from './session-repair.js';
import { readLinesBackward, readLinesForward, type LogLine } from './session-reader.js';
import { kernelTurnNumber, SessionVisibility, type DeletionMarkerData } from './session-visibility.js';
import { assertChannel, assertSessionId, sessionFileStem, sessionIdFromFileStem } from './session-id.js';

export interface SessionStoreOptions {
  /** Folder of the session logs, usually `<home>/sessions`. */
  dir: string;
  now?: () => number;
  logger?: JsonlLogger;
  /** Largest serialized event accepted (default 8 MiB). */
  maxEventBytes?: number;
}

/** Options of {@link SessionStore.append}. */
export interface AppendOptions {
  /** The event starts a new turn: another turn id when its own is already in the log. */
  renumber?: () => string;
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
    beforeSeq: z.number().int().min(1).optional(),
    limit: z.number().int().min(1).optional(),
    includeDeleted: z.boolean().optional(),
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
  /** Sparse seq → byte offset index of the event lines (ascending), for page reads from the file. */
  marks: OffsetMark[];
  /** Events seen (cache-independent): a mark is kept every MARK_EVERY. */
  eventCount: number;
  /** Deleted turns and replies, a deleted incarnation, where each turn starts. */
  vis: SessionVisibility;
  /** Set while the session is deleted (it stays loaded so deletions keep hiding its turns). */
  deletedAt?: number;
  /** Turns whose input is logged and that have no outcome (reply, error, done marker) yet, by turn id. */
  unanswered: Map<string, SessionEvent>;
  /** How many times a turn was resumed after a restart (`marker` events with `op: 'resume'`). */
  resumes: Map<string, number>;
}

/** A logged input that never got an outcome (decision 0390): what the kernel resumes or marks at start. */
export interface UnansweredInput {
  sessionId: string;
  /** The `user` event that recorded the input. */
  event: SessionEvent;
  /** The session's channel (its chat). */
  channel: string;
  /** How many restarts already resumed this turn. */
  resumes: number;
}

/** How many sessions keep their parsed events in memory (the ones read most recently)… */
const CACHED_SESSIONS = 16;
/** …as long as their logs add up to at most this many bytes (events may be up to 8 MiB each). */
const CACHED_BYTES = 64 * 1024 * 1024;

const consoleLogger: JsonlLogger = { warn: (msg, data) => console.warn(`[sessions] ${msg}`, data ?? '') };

/**
 * Sessions and their event logs (C-9). One append-only JSONL file per session,
 * `<dir>/<escaped id>.jsonl`: a `session` header line (id, channel, title, createdAt), then
 * `event` lines (per-session `seq`), `title` lines (renames) and `deleted` lines (the session was
 * deleted; a later `session` line starts it again under the same id). Metadata is derived by
 * reading the logs on `open()`, which also repairs a torn last line. Appends to one session are
 * serialized and durable (fdatasync) when their promise resolves.
 *
 * Deleting is appending: a deletion marker event hides turns or replies, a `deleted` line hides
 * the session; reads leave out what is deleted (decision 0050). Pages of a long log are read
 * from the file through a sparse offset index, so opening a long chat at its end does not parse
 * the whole log.
 */
export class SessionStore implements SessionsAPI {
  /** Logs found with no readable line at open and moved aside (`<name>.jsonl.corrupt-<ms>`): shown in the status. */
  readonly setAside: { file: string; at: number }[] = [];
  private readonly now: () => number;
  private readonly logger: JsonlLogger;
  private readonly maxEventBytes: number;
  private readonly sessions = new Map<string, SessionState>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Sessions with cached events, least recently read first. */
  private readonly cacheOrder = new Set<string>();
  private state: 'new' | 'open' | 'closed' = 'new';
  /** Closed while an import merges and swaps logs in (decision 0380): writes wait for it, in order. */
  private gate: { opened: Promise<void>; floors: ReadonlyMap<string, number> } | undefined;
  /** Turn numbers handed out for sessions this store does not know yet (kept across a reload). */
  private readonly reserved = new Map<string, number>();

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

  /** All sessions (deleted ones left out), most recently updated first. */
  async list(): Promise<SessionInfo[]> {
    this.requireOpen();
    return [...this.sessions.values()]
      .filter((s) => s.deletedAt === undefined)
      .map((s) => ({ ...s.info }))
      .sort((a, b) => b.updatedAt - a.updatedAt || a.id.localeCompare(b.id));
  }

  async get(id: string): Promise<SessionInfo | undefined> {
    this.requireOpen();
    assertSessionId(id);
    const s = this.sessions.get(id);
    return s && s.deletedAt === undefined ? { ...s.info } : undefined;
  }

  /**
   * Creates a session; `id` defaults to `<channel>:<8 hex>`. Existing id → ConflictError; the id
   * of a deleted session starts it again (empty: what was deleted stays deleted).
   */
  async create(opts: { channel: string; title?: string; id?: string }): Promise<SessionInfo> {
    this.requireOpen();
    assertChannel(opts?.channel);
    const id = opts.id ?? `${opts.channel}:${randomBytes(4).toString('hex')}`;
    assertSessionId(id);
    const title = this.parseTitle(opts.title ?? '');
    return this.withWriteLock(id, async () => {
      const s = this.sessions.get(id);
      if (s && s.deletedAt === undefined) throw new ConflictError(`session already exists: ${id}`, { id });
      return s ? this.reviveLocked(s, opts.channel, title) : this.createLocked(id, opts.channel, title);
    });
  }

  /** Returns the session, creating it (or starting a deleted one again) when missing; safe under concurrent calls. */
  async ensure(id: string, channel: string, title?: string): Promise<SessionInfo> {
    this.requireOpen();
    assertSessionId(id);
    assertChannel(channel);
    const t = this.parseTitle(title ?? '');
    return this.withWriteLock(id, async () => {
      const s = this.sessions.get(id);
      if (!s) return this.createLocked(id, channel, t);
      return s.deletedAt === undefined ? { ...s.info } : this.reviveLocked(s, channel, t);
    });
  }

  async rename(id: string, title: string): Promise<void> {
    this.requireOpen();
    assertSessionId(id);
    const t = this.parseTitle(title);
    await this.withWriteLock(id, async () => {
      const s = this.mustGet(id);
      const at = this.now();
      await this.appendLine(s, { type: 'title', title: t, at });
      s.info.title = t;
      s.info.updatedAt = Math.max(s.info.updatedAt, at);
    });
  }

  /**
   * Appends an event with the next seq; durable when the promise resolves. `opts.renumber` marks
   * the event as the first of a new turn: should its turn id already be in the log when the write
   * happens (an import swapped in a log that has it since the id was handed out, decision 0380),
   * the event takes the id `renumber` gives instead (called under the session's lock).
   */
  async append(id: string, event: Omit<SessionEvent, 'seq' | 'at'> & { at?: number }, opts?: AppendOptions): Promise<SessionEvent> {
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
    return this.withWriteLock(id, async () => {
      const s = this.mustGet(id);
      let turnId = input.turnId;
      for (let tries = 0; opts?.renumber && s.vis.firstSeq(turnId) !== undefined; tries++) {
        if (tries >= 1000) throw new ConflictError(`no free turn id in ${id}`, { id });
        turnId = opts.renumber();
      }
      const ev: SessionEvent = { seq: s.info.lastSeq + 1, turnId, kind: input.kind, at: input.at ?? this.now(), text: input.text };
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
      this.noteEvent(s, ev, before);
      s.info.lastSeq = ev.seq;
      s.info.updatedAt = Math.max(s.info.updatedAt, ev.at);
      const n = kernelTurnNumber(id, ev.turnId);
      if (n !== undefined && n > s.info.turns) s.info.turns = n;
      if (s.info.turns > s.turnCounter) s.turnCounter = s.info.turns;
      return ev;
    });
  }

  /**
   * Every event of every log — deleted turns and deleted sessions included — one log at a time,
   * read under its lock (forget's search, K-2: text a deletion only hid is still on disk).
   */
  async eachLog(fn: (sessionId: string, events: SessionEvent[]) => void): Promise<void> {
    this.requireOpen();
    for (const [id, s] of [...this.sessions]) {
      const events = await this.withLock(id, async () => (await scanJsonl(s.file, this.logger)).records.map(toEvent).filter((e): e is SessionEvent => e !== undefined));
      fn(id, events);
    }
  }

  /** {@link redact} over every log, deleted sessions included; returns how many events in all. */
  async redactAll(match: (e: SessionEvent) => boolean): Promise<number> {
    this.requireOpen();
    let n = 0;
    for (const id of [...this.sessions.keys()]) n += await this.redact(id, match);
    return n;
  }

  /**
   * Forget (K-2): rewrites a session's log atomically (temp file, fsync, rename) with every event
   * `match` selects kept in its place — same seq, turn, kind and time — but its text replaced by
   * `[forgotten]` and its data by `{ redacted: true }`. Deletion markers keep their data (what they
   * hide stays hidden). Deleted events are offered to `match` too. Appends wait for it (the
   * session's lock); the offset index is rebuilt from the new file. Returns how many were redacted.
   * Every other line is kept byte for byte, lines that do not parse too (their text, if any, is
   * beyond the reach of `match`: a forget cannot tell whose it is).
   */
  async redact(id: string, match: (e: SessionEvent) => boolean): Promise<number> {
    this.requireOpen();
    assertSessionId(id);
    return this.withWriteLock(id, async () => {
      // A deleted session's log still holds its text: it is redacted too.
      const s = this.sessions.get(id);
      if (!s) throw new NotFoundError('session', id);
      // Over the bytes, line by line (redactLogBytes): a line the store cannot read is kept as it is.
      let buf: Buffer;
      try {
        buf = await fs.promises.readFile(s.file);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
        throw e;
      }
      // A title made from a forgotten message goes too: the conversation is named after the first
      // message still in it (or nothing, and its next message names it). An import rewrites an
      // archive's log with the same function (decision 0540).
      const red = forgetInLogBytes(buf, id, match);
      const { n } = red;
      if (!n) return 0;
      await writeFileAtomic(s.file, red.bytes);
      // New byte offsets: the sparse index is rebuilt (visibility is unchanged: same seqs, turns, markers).
      const scan = await scanJsonl(s.file, this.logger);
      s.size = scan.size;
      s.marks = [];
      let count = 0;
      for (let i = 0; i < scan.records.length; i++) {
        if (!toEvent(scan.records[i])) continue;
        if (count % MARK_EVERY === 0) s.marks.push({ seq: scan.records[i].seq as number, offset: scan.offsets[i] });
        count++;
      }
      s.eventCount = count;
      // A forgotten input is not answered after a restart either (its text is gone).
      for (const [turnId, ev] of s.unanswered) if (match(ev)) s.unanswered.delete(turnId);
      if (red.retitled) s.info.title = this.currentTitle(scan.records);
      s.cache = undefined;
      this.cacheOrder.delete(id);
      return n;
    });
  }

  /**
   * Events of a session, oldest first (see {@link SessionEventsQuery}): without `beforeSeq` the
   * first `limit` with `seq > afterSeq`; with it, the last `limit` before it. Deleted events and
   * deletion markers are left out unless `includeDeleted`. A page of a log that is not in memory
   * is read from the file alone.
   */
  async events(id: string, opts?: SessionEventsQuery): Promise<SessionEvent[]> {
    this.requireOpen();
    assertSessionId(id);
    const o = EventsOptsSchema.safeParse(opts);
    if (!o.success) throw new ValidationError(`invalid events options: ${o.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, { key: 'opts' });
    const s = this.mustGet(id);
    const q = { after: o.data?.afterSeq ?? 0, before: o.data?.beforeSeq, limit: o.data?.limit ?? Number.POSITIVE_INFINITY, all: o.data?.includeDeleted === true };
    const keep = (ev: SessionEvent) => ev.seq > q.after && (q.before === undefined || ev.seq < q.before) && (q.all || s.vis.visible(ev));
    // A copy each: callers may change what they get without touching the cache.
    const copy = (ev: SessionEvent): SessionEvent => (ev.data ? { ...ev, data: structuredClone(ev.data) } : { ...ev });
    // A log in memory serves any read; a whole log is read into memory; a page of one that is
    // not comes from the file.
    const cached = (s.cache && s.cache.size === s.size) || q.limit === Number.POSITIVE_INFINITY ? await this.cachedEvents(id, s) : undefined;
    if (cached) return q.before === undefined ? pickForward(cached, q.after, q.limit, keep, copy) : pickBackward(cached, q.after, q.before, q.limit, keep, copy);
    return this.readPage(s, q, keep);
  }

  /** A page read from the file through the offset index (the log is not in memory). */
  private async readPage(s: SessionState, q: { after: number; before?: number; limit: number }, keep: (ev: SessionEvent) => boolean): Promise<SessionEvent[]> {
    const size = s.size; // appends only add after it: the bytes before are complete lines
    const out: SessionEvent[] = [];
    const take = ({ record }: LogLine): boolean => {
      const ev = toEvent(record);
      if (!ev) return true;
      if (q.before === undefined) {
        if (keep(ev)) out.push(ev);
        return out.length < q.limit;
      }
      if (ev.seq <= q.after) return false;
      if (keep(ev)) out.push(ev);
      return out.length < q.limit;
    };
    if (q.before === undefined) {
      await readLinesForward(s.file, markAtOrBefore(s.marks, q.after + 1), size, take);
      return out;
    }
    await readLinesBackward(s.file, markAtOrAfter(s.marks, q.before) ?? size, take);
    return out.reverse();
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

  /** Seq of the first event of a turn that is not deleted; undefined for an unknown or deleted turn. */
  async locate(id: string, turnId: string): Promise<number | undefined> {
    this.requireOpen();
    assertSessionId(id);
    const s = this.mustGet(id);
    if (typeof turnId !== 'string' || s.vis.scopeOf(turnId) === 'turn') return undefined;
    return s.vis.firstSeq(turnId);
  }

  /**
   * Deletes turns (`turn`: the person's message and all it produced) or only their replies
   * (`reply`) with one deletion marker; durable when it resolves. Unknown turns → NotFoundError.
   */
  async deleteTurns(id: string, turnIds: string[], scope: DeletionScope): Promise<SessionEvent> {
    this.requireOpen();
    assertSessionId(id);
    if (!Array.isArray(turnIds) || turnIds.length === 0 || turnIds.some((t) => typeof t !== 'string' || !t || t.length > 300)) throw new ValidationError('turnIds must name at least one turn', { key: 'turnIds' });
    if (scope !== 'turn' && scope !== 'reply') throw new ValidationError('scope must be "turn" or "reply"', { key: 'scope' });
    const s = this.mustGet(id);
    for (const t of turnIds) if (s.vis.firstSeq(t) === undefined) throw new NotFoundError('turn', t);
    const data: DeletionMarkerData = { op: 'delete', scope, turnIds: [...new Set(turnIds)] };
    const what = scope === 'reply' ? 'reply deleted' : turnIds.length > 1 ? `${turnIds.length} turns deleted` : 'turn deleted';
    return this.append(id, { turnId: turnIds[0], kind: 'marker', text: `[${what}]`, data: { ...data } });
  }

  /**
   * Deletes a session with a `deleted` line: it leaves the list, `get` and reads, and its turns
   * leave the model's timeline. The file stays (append-only); the same id can start again.
   */
  async remove(id: string): Promise<void> {
    this.requireOpen();
    assertSessionId(id);
    await this.withWriteLock(id, async () => {
      const s = this.mustGet(id);
      const at = this.now();
      await this.appendLine(s, { type: 'deleted', at, throughSeq: s.info.lastSeq });
      s.vis.clear(s.info.lastSeq);
      s.deletedAt = at;
      s.cache = undefined;
      this.cacheOrder.delete(id);
    });
  }

  /** What was deleted of a turn (also the turns of a deleted session); synchronous for the kernel. */
  deleted(sessionId: string, turnId: string): DeletionScope | undefined {
    return this.sessions.get(sessionId)?.vis.scopeOf(turnId);
  }

  /**
   * Hands out the next turn of a session: `{ turnId: "<id>#<n>", turnSeq: n }`, n increasing
   * per session and never below a turn already in the log.
   */
  nextTurn(sessionId: string): { turnId: string; turnSeq: number } {
    this.requireOpen();
    assertSessionId(sessionId);
    // A deleted session counts on too: its next incarnation must not reuse a deleted turn's id.
    const s = this.sessions.get(sessionId);
    // While an import is being applied, a turn of a session it brings starts above the archive's
    // turns of it (decision 0380): the log swapped in may hold those numbers.
    const floor = this.gate?.floors.get(sessionId) ?? 0;
    if (!s) {
      if (!this.gate && !this.reserved.has(sessionId)) throw new NotFoundError('session', sessionId);
      // Not here yet, but an import may bring it: handed out from the floor, remembered for the
      // log that arrives (by the import, or by the input being recorded).
      const n = Math.max(this.reserved.get(sessionId) ?? 0, floor) + 1;
      this.reserved.set(sessionId, n);
      return { turnId: `${sessionId}#${n}`, turnSeq: n };
    }
    s.turnCounter = Math.max(s.turnCounter, s.info.turns, floor) + 1;
    return { turnId: `${sessionId}#${s.turnCounter}`, turnSeq: s.turnCounter };
  }

  /**
   * Inputs the logs hold that never got an outcome — no `assistant` or `error` event, nor a `done`
   * marker, after the turn's `user` event: acknowledged, then the daemon stopped (a kill) before or
   * while it ran (decision 0390). Tracked while the logs are read at open and on every append, so
   * this reads no file. Deleted turns and sessions are left out; oldest first.
   */
  unanswered(): UnansweredInput[] {
    this.requireOpen();
    const out: UnansweredInput[] = [];
    for (const [id, s] of this.sessions) {
      if (s.deletedAt !== undefined) continue;
      for (const [turnId, event] of s.unanswered) {
        if (s.vis.scopeOf(turnId) === 'turn' || !s.vis.visible(event)) continue;
        out.push({ sessionId: id, event: { ...event, ...(event.data ? { data: structuredClone(event.data) } : {}) }, channel: s.info.channel, resumes: s.resumes.get(turnId) ?? 0 });
      }
    }
    return out.sort((a, b) => a.event.at - b.event.at || a.sessionId.localeCompare(b.sessionId) || a.event.seq - b.event.seq);
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

  /** Appends a non-event line (title, deleted, a new header) durably; keeps the cache valid. */
  private async appendLine(s: SessionState, record: Record<string, unknown>): Promise<void> {
    const line = `${JSON.stringify(record)}\n`;
    const before = s.size;
    await appendDurable(s.file, line, s.size);
    s.size += Buffer.byteLength(line);
    if (s.cache?.size === before) s.cache.size = s.size; // not an event: the cached events stay valid
  }

  /** Records an event's offset mark and what it deletes. */
  private noteEvent(s: SessionState, ev: SessionEvent, offset: number): void {
    if (s.eventCount % MARK_EVERY === 0) s.marks.push({ seq: ev.seq, offset });
    s.eventCount++;
    s.vis.note(ev);
    // Which inputs still wait for an outcome (decision 0390): a turn's first `user` event opens
    // it; its reply, its error or a `done` marker (a turn that ended with nothing to say) closes it.
    if (ev.kind === 'user') {
      if (!s.unanswered.has(ev.turnId)) s.unanswered.set(ev.turnId, { ...ev });
    } else if (ev.kind === 'assistant' || ev.kind === 'error' || (ev.kind === 'marker' && ev.data?.op === 'done')) {
      s.unanswered.delete(ev.turnId);
      s.resumes.delete(ev.turnId);
    } else if (ev.kind === 'marker' && ev.data?.op === 'resume') s.resumes.set(ev.turnId, (s.resumes.get(ev.turnId) ?? 0) + 1);
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
    this.sessions.set(id, { info, file, size: Buffer.byteLength(line), turnCounter: this.reserved.get(id) ?? 0, marks: [], eventCount: 0, vis: new SessionVisibility(id), unanswered: new Map(), resumes: new Map() });
    this.reserved.delete(id);
    return { ...info };
  }

  /** Starts a deleted session again: a new header line; seqs and turn numbers go on, so ids stay unique. */
  private async reviveLocked(s: SessionState, channel: string, title: string): Promise<SessionInfo> {
    const createdAt = this.now();
    await this.appendLine(s, { type: 'session', v: 1, id: s.info.id, channel, title, createdAt });
    s.deletedAt = undefined;
    s.info.channel = channel;
    s.info.title = title;
    s.info.createdAt = createdAt;
    s.info.updatedAt = createdAt;
    return { ...s.info };
  }

  /**
   * Re-reads the logs of these sessions from disk after something other than this store wrote
   * them (an import, K-5): a session whose file is there is (re)loaded, one whose file is gone is
   * dropped. Waits for each session's pending appends first.
   */
  async reload(ids: readonly string[]): Promise<void> {
    this.requireOpen();
    for (const id of ids) {
      assertSessionId(id);
      await this.withLock(id, async () => {
        const file = path.join(this.opts.dir, `${sessionFileStem(id)}.jsonl`);
        // Turn numbers already handed out stay handed out (an input may be on its way with one).
        const old = this.sessions.get(id);
        if (old) this.reserved.set(id, Math.max(this.reserved.get(id) ?? 0, old.turnCounter, old.info.turns));
        this.sessions.delete(id);
        this.cacheOrder.delete(id);
        if (fs.existsSync(file)) await this.load(file);
      });
    }
  }

  /** The log file of a session (whether or not it exists yet). */
  fileOf(id: string): string {
    return path.join(this.opts.dir, `${sessionFileStem(id)}.jsonl`);
  }

  /** Loads one log into memory; repairs its tail; skips files that are not ours. */
  private async load(file: string): Promise<void> {
    const stem = path.basename(file, '.jsonl');
    const { records, size, offsets, torn } = await scanJsonl(file, this.logger, { repair: true });
    const header = records.find((r) => r.type === 'session');
    let id = typeof header?.id === 'string' ? header.id : sessionIdFromFileStem(stem);
    if (id !== undefined && sessionIdFromFileStem(stem) !== id) id = undefined;
    if (id === undefined) {
      this.logger.warn('skipped a file that is not a session log', { file: path.basename(file) });
      return;
    }
    if (records.length === 0) {
      const aside = await setAsideUnreadableLog(file, size, torn, this.now(), this.logger);
      if (aside) this.setAside.push(aside);
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
    const s: SessionState = { info, file, size, turnCounter: 0, marks: [], eventCount: 0, vis: new SessionVisibility(id), unanswered: new Map(), resumes: new Map() };
    for (let i = 0; i < records.length; i++) {
      const r = records[i];
      if (r.type === 'title' && typeof r.title === 'string') {
        info.title = r.title;
        if (typeof r.at === 'number') info.updatedAt = Math.max(info.updatedAt, r.at);
        continue;
      }
      if (r.type === 'deleted') {
        s.deletedAt = typeof r.at === 'number' ? r.at : info.updatedAt;
        s.vis.clear(typeof r.throughSeq === 'number' ? r.throughSeq : info.lastSeq);
        continue;
      }
      if (r.type === 'session' && r !== header) {
        // a deleted session started again under the same id
        s.deletedAt = undefined;
        if (typeof r.channel === 'string') info.channel = r.channel;
        info.title = typeof r.title === 'string' ? r.title : '';
        if (typeof r.createdAt === 'number') info.createdAt = info.updatedAt = r.createdAt;
        continue;
      }
      const ev = toEvent(r);
      if (!ev) continue;
      this.noteEvent(s, ev, offsets[i]);
      if (ev.seq > info.lastSeq) info.lastSeq = ev.seq;
      info.updatedAt = Math.max(info.updatedAt, ev.at);
      const n = kernelTurnNumber(id, ev.turnId);
      if (n !== undefined && n > info.turns) info.turns = n;
    }
    s.turnCounter = Math.max(info.turns, this.reserved.get(id) ?? 0);
    this.reserved.delete(id);
    this.sessions.set(id, s);
  }

  /** The title a rewritten log now gives: its last header or `title` line's, as the scan at open reads it. */
  private currentTitle(records: Record<string, unknown>[]): string {
    let title = '';
    for (const r of records) if ((r.type === 'session' || r.type === 'title') && typeof r.title === 'string') title = r.title;
    return title;
  }

  private parseTitle(title: unknown): string {
    const r = TitleSchema.safeParse(title);
    if (!r.success) throw new ValidationError(`invalid session title: ${r.error.issues[0]?.message ?? 'bad value'}`, { key: 'title' });
    return r.data;
  }

  /** The session, unless unknown or deleted (NotFoundError). */
  private mustGet(id: string): SessionState {
    const s = this.sessions.get(id);
    if (!s || s.deletedAt !== undefined) throw new NotFoundError('session', id);
    return s;
  }

  private requireOpen(): void {
    if (this.state !== 'open') throw new HomeAgentError('SESSIONS_CLOSED', 'the session store is not open');
  }

  /**
   * Closes the write gate for an import (decision 0380) and resolves once every write already
   * under way has finished: from then until `release` no log is written — creates, appends,
   * renames, deletions and forgets wait (they are not refused), and run in the order they came
   * once it opens, against the logs then on disk (an import swaps logs in and `reload`s them while
   * it is closed; `reload` and reads do not wait). `turnFloors` are the highest turn numbers the
   * import may bring per session: turns handed out meanwhile start above them, so the id an input
   * is given at once is not one the swapped-in log holds. One gate at a time; `release` is
   * idempotent.
   */
  async holdWrites(turnFloors: ReadonlyMap<string, number> = new Map()): Promise<() => void> {
    this.requireOpen();
    while (this.gate) await this.gate.opened;
    let open!: () => void;
    const gate = { opened: new Promise<void>((r) => (open = r)), floors: new Map(turnFloors) };
    this.gate = gate;
    await Promise.allSettled([...this.locks.values()]);
    return () => {
      if (this.gate !== gate) return;
      this.gate = undefined;
      open();
    };
  }

  /** Whether the write gate is closed (an import is being applied): writes wait. */
  get writesHeld(): boolean {
    return this.gate !== undefined;
  }

  /**
   * {@link withLock} for a write: while the gate is closed it waits for it to open first. Checked
   * and queued in one step, so no write slips in between the gate closing and the import's read.
   */
  private withWriteLock<T>(id: string, fn: () => Promise<T>): Promise<T> {
    if (!this.gate) return this.withLock(id, fn);
    return this.gate.opened.then(() => {
      this.requireOpen(); // closed while it waited: refused, as any write after close()
      return this.withWriteLock(id, fn);
    });
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

