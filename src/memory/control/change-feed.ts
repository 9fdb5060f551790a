import type { ChangeActor, Disposer, MemoryChange, MemoryChangedEvent, MemoryChangedKind, MemoryChangeNotice, PluginLogger } from '../../spec/index.js';
import { MEMORY_CHANGED_KINDS } from '../../spec/index.js';
import { currentChangeActor } from './change-actor.js';

/** Default coalescing window: short enough to feel live, long enough that a burst is one event. */
export const CHANGE_FEED_WINDOW_MS = 300;
/** More ids than this in one window: the event names none (a view reads the kind again anyway). */
export const CHANGE_FEED_MAX_IDS = 20;

/** Kinds whose ids are opaque (generated, not typed by a person): only these travel with an event. */
const ID_KINDS: ReadonlySet<MemoryChangedKind> = new Set(['memory', 'relation', 'document']);
/** An id that can travel: short, printable, no white space. */
const OPAQUE_ID = /^[\w.:#@%-]{1,200}$/;
const ACTORS: ReadonlySet<ChangeActor> = new Set(['user', 'agent', 'heartbeat', 'import', 'mcp', 'plugin']);
/** An import replaces whole stores: every view of content reads again. */
const IMPORT_KINDS: readonly MemoryChangedKind[] = ['relation', 'entity', 'memory', 'document', 'knowledge', 'plan'];

interface Pending {
  actors: ChangeActor[];
  /** undefined once an id could not be named (or there were too many). */
  ids: Set<string> | undefined;
  at: number;
  timer: ReturnType<typeof setTimeout>;
}

/** Timers (tests pass their own clock). */
export interface FeedTimers {
  set(fn: () => void, ms: number): ReturnType<typeof setTimeout>;
  clear(t: ReturnType<typeof setTimeout>): void;
}

export interface MemoryChangeFeedOptions {
  /** Coalescing window in ms (default {@link CHANGE_FEED_WINDOW_MS}). */
  windowMs?: number;
  now?: () => number;
  timers?: FeedTimers;
  log?: PluginLogger;
}

const realTimers: FeedTimers = {
  set: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clear: (t) => clearTimeout(t),
};

/**
 * The one source of `memory_changed` (decision 0260): every change to memory is noted here — what
 * the memory control records (K-3), graph and knowledge writes while the control is down, documents
 * the loops move, the memory manager's writes and hand edits, the people registry — and leaves as
 * at most one event per kind per window, at the window's end (trailing edge: the event follows the
 * last write of a burst it can see, so a view reading on it sees the burst). The event carries the
 * kind, who and opaque ids; never text (it goes to every client of the event stream).
 */
export class MemoryChangeFeed {
  private readonly pending = new Map<MemoryChangedKind, Pending>();
  private readonly listeners = new Set<(e: MemoryChangedEvent) => void>();
  private readonly windowMs: number;
  private readonly timers: FeedTimers;

  constructor(private readonly opts: MemoryChangeFeedOptions = {}) {
    this.windowMs = Math.max(0, opts.windowMs ?? CHANGE_FEED_WINDOW_MS);
    this.timers = opts.timers ?? realTimers;
  }

  /** Listens to the coalesced events (the daemon puts them on the bus). */
  on(fn: (e: MemoryChangedEvent) => void): Disposer {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  /** Notes one change (the actor defaults to the current change context's). */
  notify(change: MemoryChangeNotice): void {
    // A plugin reports here: an unknown kind or actor is not passed on.
    if (!MEMORY_CHANGED_KINDS.includes(change?.kind)) return;
    const actor = change.actor !== undefined && ACTORS.has(change.actor) ? change.actor : currentChangeActor().actor;
    this.note(change.kind, actor, Array.isArray(change.ids) ? change.ids : undefined);
  }

  /** Notes changes the memory control recorded: their kind, actor and (for opaque kinds) target. */
  noteRecorded(changes: readonly MemoryChange[]): void {
    for (const c of changes) {
      if (c.op === 'import') for (const k of IMPORT_KINDS) this.note(k, c.actor, undefined);
      else this.note(c.kind, c.actor, [targetId(c.kind, c.target)]);
    }
  }

  private note(kind: MemoryChangedKind, actor: ChangeActor, ids: readonly (string | undefined)[] | undefined): void {
    let p = this.pending.get(kind);
    if (!p) {
      p = { actors: [], ids: new Set(), at: 0, timer: this.timers.set(() => this.fire(kind), this.windowMs) };
      this.pending.set(kind, p);
    }
    p.at = (this.opts.now ?? Date.now)();
    if (!p.actors.includes(actor)) p.actors.push(actor);
    if (p.ids) {
      const named = ID_KINDS.has(kind) && ids !== undefined && ids.length > 0 ? ids : undefined;
      if (!named || named.some((id) => typeof id !== 'string' || !OPAQUE_ID.test(id))) p.ids = undefined;
      else {
        for (const id of named as string[]) p.ids.add(id);
        if (p.ids.size > CHANGE_FEED_MAX_IDS) p.ids = undefined;
      }
    }
  }

  private fire(kind: MemoryChangedKind): void {
    const p = this.pending.get(kind);
    if (!p) return;
    this.pending.delete(kind);
    const e: MemoryChangedEvent = { kind, actors: p.actors, ...(p.ids?.size ? { ids: [...p.ids] } : {}), at: p.at };
    for (const fn of [...this.listeners]) {
      try {
        fn(e);
      } catch (err) {
        this.opts.log?.warn('memory_changed: a listener failed', { error: (err as Error).message });
      }
    }
  }

  /** Sends what is pending now (before a stop, in tests). */
  flush(): void {
    for (const [kind, p] of [...this.pending]) {
      this.timers.clear(p.timer);
      this.fire(kind);
    }
  }

  /** Drops what is pending (memory closing: nobody is left to read again). Safe twice. */
  cancel(): void {
    for (const p of this.pending.values()) this.timers.clear(p.timer);
    this.pending.clear();
  }
}

/** The opaque id of a recorded change's target, if its kind has one (`relation:12` → `12`). */
function targetId(kind: MemoryChangedKind, target: string): string | undefined {
  if (kind === 'relation') {
    const m = /^relation:(\d+)$/.exec(target);
    return m ? m[1] : undefined;
  }
  return ID_KINDS.has(kind) ? target : undefined;
}
