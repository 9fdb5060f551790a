import { randomUUID } from 'node:crypto';
import { copyFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigReader } from '../../spec/config.js';
import { ValidationError } from '../../spec/errors/index.js';
import type { ContextEvent, ContextWindow, NewContextEvent } from '../../spec/memory.js';
import { cosine, tfidfCosineScores, type EmbedderLog, type EmbedderService, type StoredVector } from '../embedder/index.js';
import { readContextFile, serialiseContext, writeFileAtomic, type TurnMark } from './context-file.js';
import { textForVector, type CleanerLookup, type ToolCleaner } from './text-for-vector.js';

/** Timer functions (injectable so tests control the debounce). */
export interface ContextTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * Receives pruned events (original timestamps intact) — normally `DocStore.archiveEvents`.
 * Returning `false` (or throwing) means nowhere could take them now: they stay in the window.
 */
export type ArchiveSink = (events: ContextEvent[]) => unknown;

export interface RelevanceContextOptions {
  /** Data folder; the window persists to `<home>/context.json`. */
  home: string;
  embedder: EmbedderService;
  /** Reads `core.context.top_k` and `core.context.save_debounce_ms` at each use. */
  config?: ConfigReader;
  /** Overrides of the config values. */
  topK?: number;
  saveDebounceMs?: number;
  /** Pruned events (except `agentcli`/`terminal` sources) go here. */
  archive?: ArchiveSink;
  /** Tool cleaners by tool name (the kernel may also pass already-cleaned outputs). */
  cleaners?: Map<string, ToolCleaner> | Record<string, ToolCleaner> | CleanerLookup;
  log?: EmbedderLog;
  clock?: () => number;
  timers?: ContextTimers;
  /**
   * Whether an event may enter the window (M-9: an excluded turn's events do not); a refused event
   * goes to `onRefused` (held aside) and is not appended.
   */
  admit?: (event: ContextEvent) => boolean;
  onRefused?: (event: ContextEvent) => void;
  /** Called after an event joined the window (not for one refused, held elsewhere or already present). */
  onAppended?: (event: ContextEvent) => void;
  /**
   * Whether another tier (documents, cold archive) already holds this turn's event of this kind.
   * A turn has one message and one reply: a second `user` or `agent` event of the same turn — a
   * turn resumed after a kill whose message recovery had already replayed from the session log
   * (decision 0390) — is not appended.
   */
  held?: (turnId: string, kind: 'user' | 'agent') => boolean;
}

/** What `RelevanceContext.start()` found in `context.json`. */
export interface ContextLoad {
  status: 'missing' | 'ok' | 'corrupt';
  /** The file carried turn marks (files of older versions do not). */
  marks: boolean;
  savedAt?: number;
  /**
   * The file was missing, corrupt or had invalid events: no marks say what the window holds, so
   * recovery replays every session log (what a tier already holds is skipped). A missing file with
   * session logs beside it was deleted or lost: replaying only a recent day would leave older turns
   * no tier holds out of memory for good.
   */
  replayAll: boolean;
}

/** Events always kept by prune, newest first (recency bias). */
export const PROTECTED_RECENT = 10;
/** Sources whose pruned events are dropped rather than archived. */
export const NOT_ARCHIVED_SOURCES: readonly string[] = ['agentcli', 'terminal'];

interface EventVectors {
  text: string;
  tokens: string[];
  vec?: StoredVector;
}

/** One event with its relevance to a query. */
export interface ScoredEvent {
  event: ContextEvent;
  score: number;
}

/**
 * The context window (T-2, seed RelevanceContext): time-ordered events with a vector each.
 * `prune(query)` keeps the 10 newest plus the `topK − 10` events most similar to the query
 * (cosine in the shared dense space, TF-IDF cosine without a model), archives the others, and
 * re-sorts by time. Persisted to `context.json` with a debounced atomic write.
 */
export class RelevanceContext implements ContextWindow {
  private list: ContextEvent[] = [];
  private readonly vectors = new Map<string, EventVectors>();
  private readonly pending = new Set<string>();
  private dirty = false;
  private timer: unknown;
  private writing: Promise<void> = Promise.resolve();
  private embedding: Promise<void> | undefined;
  private started = false;
  private readonly log: EmbedderLog;
  private readonly clock: () => number;
  private readonly timers: ContextTimers;
  private readonly cleaners: CleanerLookup | undefined;
  private offModel: (() => void) | undefined;
  private readonly marks = new Map<string, TurnMark>();
  private loaded: ContextLoad = { status: 'missing', marks: false, replayAll: false };
  private aside: { file: string; at: number } | undefined;

  constructor(private readonly opts: RelevanceContextOptions) {
    this.log = opts.log ?? { info: () => {}, warn: () => {} };
    this.clock = opts.clock ?? Date.now;
    this.timers = opts.timers ?? { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };
    const c = opts.cleaners;
    this.cleaners = c === undefined ? undefined : typeof c === 'function' ? c : c instanceof Map ? (t) => c.get(t) : (t) => c[t];
  }

  /** Path of the persisted window. */
  get file(): string {
    return join(this.opts.home, 'context.json');
  }

  /**
   * Loads `context.json`. A corrupt file is renamed aside (`context.json.corrupt-<ts>`), logged,
   * and the window starts empty: the daemon always starts. A file with invalid events (a field of
   * the wrong type) is copied aside as it was and its valid events are loaded; either way
   * `loadedFrom.replayAll` tells recovery that the turn marks cannot be trusted, so every session
   * log is replayed (what a tier already holds is skipped) and nothing is lost at the next save.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.aside = undefined;
    const r = await readContextFile(this.file);
    if (r.status === 'corrupt') {
      const at = this.clock();
      const aside = `${this.file}.corrupt-${at}`;
      const moved = await rename(this.file, aside).then(() => true, () => false);
      if (moved) this.aside = { file: aside, at };
      this.log.warn(`context: ${this.file} is corrupt (${r.reason}); kept aside as ${aside}, starting with an empty context; every session log is replayed into memory`);
    } else if (r.status === 'ok') {
      if (r.dropped > 0) {
        // The next save rewrites the file without them: keep it as it was first (a copy: the
        // file stays in place until the atomic write replaces it).
        const at = this.clock();
        const aside = `${this.file}.corrupt-${at}`;
        const copied = await copyFile(this.file, aside).then(() => true, (e: unknown) => {
          this.log.warn(`context: could not keep ${this.file} aside: ${(e as Error).message}`);
          return false;
        });
        if (copied) this.aside = { file: aside, at };
        this.log.warn(`context: ${r.dropped} invalid events in ${this.file}${copied ? `; the file as it was is kept as ${aside}` : ''}; every session log is replayed into memory`);
      }
      this.list = r.events.sort((a, b) => a.timestamp - b.timestamp);
      for (const e of this.list) this.vectorise(e);
      for (const [sid, m] of Object.entries(r.turns ?? {})) this.marks.set(sid, m);
    }
    // Files of older versions carry no save time: their modification time stands in.
    const savedAt = r.status === 'ok' ? (r.savedAt ?? (await stat(this.file).then((s) => s.mtimeMs).catch(() => undefined))) : undefined;
    this.loaded = { status: r.status, marks: r.status === 'ok' && r.turns !== undefined, savedAt, replayAll: r.status !== 'ok' || r.dropped > 0 };
    this.offModel = this.opts.embedder.onModelChange(() => {
      for (const e of this.list) this.vectorise(e);
    });
  }

  /** Flushes and stops listening. Idempotent. */
  async stop(): Promise<void> {
    this.offModel?.();
    this.offModel = undefined;
    await this.flush();
    this.started = false;
  }

  /**
   * What start() found: the file's status, whether it carried turn marks (files of older versions
   * do not), when it was saved, and whether recovery must replay every session log.
   */
  get loadedFrom(): ContextLoad {
    return this.loaded;
  }

  /** The copy of `context.json` kept aside at this start (corrupt, or with invalid events), if any. */
  get setAside(): { file: string; at: number } | undefined {
    return this.aside;
  }

  /** The turn mark of a session (see `TurnMark`). */
  turnMark(sessionId: string): TurnMark | undefined {
    return this.marks.get(sessionId);
  }

  /** Records that the window reflects a session up to `mark` (after replaying its log). */
  setTurnMark(sessionId: string, mark: TurnMark): void {
    this.marks.set(sessionId, mark);
    this.scheduleSave();
  }

  /**
   * Appends an event at its timestamp (default now), keeping time order; schedules a save. An
   * event whose id is already in the window is not added twice (the one present is returned); nor
   * is a turn's message or reply that the window (the one present is returned) or another tier
   * (`held`) already has — the copy stored first, at the time it was said, stays the only one.
   */
  append(event: NewContextEvent): ContextEvent {
    if (typeof event !== 'object' || event === null || !['user', 'agent', 'cold_storage', 'system'].includes(event.kind)) {
      throw new ValidationError('context event needs a kind of user | agent | cold_storage | system', { kind: (event as { kind?: unknown })?.kind });
    }
    const ts = event.timestamp ?? this.clock();
    if (!Number.isFinite(ts)) throw new ValidationError('context event timestamp must be a finite number', { timestamp: ts });
    if (event.id !== undefined) {
      const present = this.list.find((x) => x.id === event.id);
      if (present) return present;
    }
    const turnId = event.refs?.[0];
    if (turnId && (event.kind === 'user' || event.kind === 'agent')) {
      const present = this.list.find((x) => x.kind === event.kind && x.refs?.[0] === turnId);
      if (present) return present;
    }
    const e: ContextEvent = {
      ...event,
      id: event.id ?? randomUUID(),
      timestamp: ts,
      input: event.input ?? '',
      response: event.response ?? '',
      source: event.source ?? '',
      channel: event.channel ?? '',
      sessionId: event.sessionId ?? '',
    };
    if (this.opts.admit && !this.opts.admit(e)) {
      this.opts.onRefused?.(e);
      return e;
    }
    this.markTurn(e);
    if (turnId && (e.kind === 'user' || e.kind === 'agent') && this.opts.held?.(turnId, e.kind)) return e;
    // Usually the newest: insert from the end to keep the list sorted (stable for equal times).
    let i = this.list.length;
    while (i > 0 && this.list[i - 1].timestamp > ts) i--;
    this.list.splice(i, 0, e);
    this.vectorise(e);
    this.scheduleSave();
    this.opts.onAppended?.(e);
    return e;
  }

  /** Events in time order (oldest first). */
  events(): readonly ContextEvent[] {
    return this.list;
  }

  /** Removes events by id (not archived); returns how many went. */
  removeIds(ids: Iterable<string>): number {
    const drop = new Set(ids);
    const before = this.list.length;
    this.list = this.list.filter((e) => !drop.has(e.id));
    for (const id of drop) {
      this.vectors.delete(id);
      this.pending.delete(id);
    }
    if (this.list.length !== before) this.scheduleSave();
    return before - this.list.length;
  }

  /**
   * Removes every event of the given turns (first ref), not archived: the seam of forget (K-2),
   * one call per tier removes a turn everywhere. Returns how many events went.
   */
  deleteByTurnIds(turnIds: readonly string[]): number {
    const want = new Set(turnIds);
    return this.removeIds(this.list.filter((e) => e.refs?.[0] !== undefined && want.has(e.refs[0])).map((e) => e.id));
  }

  /** Keeps the per-session turn mark current (kernel turn ids are `<session>#<n>`). */
  private markTurn(e: ContextEvent): void {
    if (e.kind !== 'user' && e.kind !== 'agent') return;
    const n = kernelTurnNumber(e.sessionId, e.refs?.[0]);
    if (n === undefined) return;
    const m = this.marks.get(e.sessionId);
    if (e.kind === 'user' && (!m || n > m.turn)) this.marks.set(e.sessionId, { turn: n, done: false });
    if (e.kind === 'agent' && (!m || n >= m.turn)) this.marks.set(e.sessionId, { turn: n, done: true });
  }

  /** The text an event was vectorised from (after cleaners and whitespace normalisation). */
  vectorText(id: string): string | undefined {
    return this.vectors.get(id)?.text;
  }

  /** Relevance of every event to the query (the scoring prune uses), best first. */
  async score(query: string, events: readonly ContextEvent[] = this.list): Promise<ScoredEvent[]> {
    await this.whenVectorised();
    const emb = this.opts.embedder;
    const model = emb.modelId();
    const qv = emb.dense ? (await emb.embed([query]))[0] : null;
    const lexical = tfidfCosineScores(
      emb.tokenize(query),
      events.map((e) => this.vectors.get(e.id)?.tokens ?? []),
    );
    const out = events.map((event, i) => {
      const v = this.vectors.get(event.id)?.vec;
      // A vector of another model/dimension is never compared: that event falls back to TF-IDF.
      const dense = qv && v && v.modelId === model && v.vector.length === qv.length ? cosine(qv, v.vector) : undefined;
      return { event, score: dense ?? lexical[i] };
    });
    return out.sort((a, b) => b.score - a.score || b.event.timestamp - a.event.timestamp);
  }

  /**
   * T-2 prune: when there are more than topK events, keep the 10 newest and the best
   * `max(0, topK − 10)` of the rest by similarity to `query`, re-sorted by time. Pruned events of
   * sources other than agentcli/terminal are archived with their original timestamps; if the
   * archive fails or refuses them (`false`) they stay in the window (nothing is lost).
   */
  async prune(query: string): Promise<void> {
    const topK = this.topK();
    if (this.list.length <= topK) return;
    const snapshot = this.list;
    const recent = snapshot.slice(-PROTECTED_RECENT);
    const candidates = snapshot.slice(0, Math.max(0, snapshot.length - PROTECTED_RECENT));
    const keepN = Math.max(0, topK - PROTECTED_RECENT);
    const scored = await this.score(query, candidates);
    const kept = new Set(scored.slice(0, keepN).map((s) => s.event.id));
    for (const e of recent) kept.add(e.id);
    const pruned = snapshot.filter((e) => !kept.has(e.id));
    const toArchive = pruned.filter((e) => !NOT_ARCHIVED_SOURCES.includes(e.source));
    if (toArchive.length > 0 && this.opts.archive) {
      try {
        // `false`: no tier can take them now (the sink logged why); the window keeps them.
        if ((await this.opts.archive(toArchive)) === false) return;
      } catch (e) {
        this.log.warn(`context: archiving ${toArchive.length} pruned events failed (${(e as Error).message}); keeping them in the window`);
        return;
      }
    }
    const prunedIds = new Set(pruned.map((e) => e.id));
    // Events appended while scoring are kept: filter the live list, not the snapshot.
    this.list = this.list.filter((e) => !prunedIds.has(e.id));
    for (const id of prunedIds) {
      this.vectors.delete(id);
      this.pending.delete(id);
    }
    this.scheduleSave();
  }

  /**
   * The window as `context.json` would hold it now (events and turn marks), without writing: what
   * an export takes, at one instant, whatever the save debounce has not written yet.
   */
  snapshot(): string {
    return serialiseContext(this.list, this.marks, this.clock());
  }

  /** Writes the window now if it changed (atomic). Call on shutdown. */
  async flush(): Promise<void> {
    if (this.timer !== undefined) {
      this.timers.clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (!this.dirty) return this.writing;
    this.dirty = false;
    const data = serialiseContext(this.list, this.marks, this.clock());
    this.writing = this.writing.then(() =>
      writeFileAtomic(this.file, data).catch((e: unknown) => {
        this.dirty = true;
        this.log.warn(`context: saving ${this.file} failed: ${(e as Error).message}`);
      }),
    );
    return this.writing;
  }

  private topK(): number {
    return posInt(this.opts.topK ?? this.cfg('core.context.top_k'), 40);
  }

  private scheduleSave(): void {
    this.dirty = true;
    if (this.timer !== undefined) return;
    const ms = this.opts.saveDebounceMs ?? posInt(this.cfg('core.context.save_debounce_ms'), 5_000, true);
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, ms);
  }

  private cfg(key: string): unknown {
    try {
      return this.opts.config?.get(key);
    } catch {
      return undefined;
    }
  }

  private vectorise(e: ContextEvent): void {
    const emb = this.opts.embedder;
    const text = textForVector(e, this.cleaners, (tool, err) => this.log.warn(`context: cleaner of ${tool} failed (${(err as Error).message}); using its raw output`));
    const entry: EventVectors = { text, tokens: emb.tokenize(text) };
    this.vectors.set(e.id, entry);
    if (!emb.dense) return;
    const v = emb.embedSync(text);
    if (v) entry.vec = { vector: v, modelId: emb.modelId() };
    else if (!emb.modelId().startsWith('static:')) {
      this.pending.add(e.id);
      this.drain();
    }
  }

  private whenVectorised(): Promise<void> {
    return this.embedding ?? Promise.resolve();
  }

  private drain(): void {
    if (this.embedding) return;
    this.embedding = (async () => {
      try {
        while (this.pending.size > 0) {
          const emb = this.opts.embedder;
          const model = emb.modelId();
          const ids = [...this.pending].slice(0, 64);
          for (const id of ids) this.pending.delete(id);
          const vs = await emb.embed(ids.map((id) => this.vectors.get(id)?.text ?? ''));
          if (emb.modelId() !== model) continue;
          ids.forEach((id, i) => {
            const entry = this.vectors.get(id);
            const v = vs[i];
            if (entry && v) entry.vec = { vector: v, modelId: model };
          });
        }
      } finally {
        this.embedding = undefined;
      }
    })();
  }
}

/** `webui:1#7` → 7 when the turn id belongs to `sessionId`. */
export function kernelTurnNumber(sessionId: string, turnId: string | undefined): number | undefined {
  if (!turnId || !turnId.startsWith(`${sessionId}#`)) return undefined;
  const n = Number(turnId.slice(sessionId.length + 1));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function posInt(v: unknown, d: number, allowZero = false): number {
  return typeof v === 'number' && Number.isFinite(v) && (allowZero ? v >= 0 : v > 0) ? Math.floor(v) : d;
}
