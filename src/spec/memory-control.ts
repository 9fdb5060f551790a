/**
 * Memory the user controls (M-9, K-2, K-3): which turns are excluded from every memory tier, what
 * was forgotten (tombstones), and the history of every change to memory with undo. The memory
 * subsystem implements it and the daemon offers it as `host.memory-control`; the memory manager
 * feeds it the turns a person excludes, records the library's and the plan's changes in it and
 * takes part in forget (library memories) and undo (its own kinds).
 */
import type { Disposer } from './tool.js';

/** Who made a change to memory. */
export type ChangeActor = 'user' | 'agent' | 'heartbeat' | 'import' | 'mcp' | 'plugin';

/** What a change touched. */
export type ChangeKind = 'relation' | 'entity' | 'memory' | 'document' | 'knowledge' | 'plan' | 'exclusion' | 'forget' | 'replacement';

/**
 * The key of an input's `meta` that names the turn the input replaces (regenerate, edit-and-resend;
 * decision 0550). The kernel logs an input's meta with the message, so the session log says which
 * turn a message replaced: a replacement cut off by a kill is finished, or undone, from it.
 */
export const REPLACES_META_KEY = 'replaces';

/** Who, through what and in which turn (given by the caller; the memory subsystem fills its own). */
export interface ChangeMeta {
  actor?: ChangeActor;
  /** The tool or surface (`memory_commit`, `library_save`, `webui`, `waiter`, `archive` …). */
  tool?: string;
  /** The turn the change came from (`<session>#<n>`). */
  turnId?: string;
}

/** One recorded change (K-3). `before`/`after` hold what undo needs; a forgotten change holds neither. */
export interface MemoryChange {
  id: string;
  /** Epoch ms. */
  at: number;
  actor: ChangeActor;
  tool?: string;
  turnId?: string;
  kind: ChangeKind;
  /** The changed thing: `relation:12`, `entity:Anna`, a memory id, a document id, `plan`, a turn id. */
  target: string;
  /** Names a person can look history up by (entity names, a memory's title …). */
  subjects: string[];
  /** `create`, `update`, `delete`, `merge`, `supersede`, `exclude`, `restore`, `undo`, `forget` … */
  op: string;
  /** One line for people: `user lives_in 杭州 (until 2025-03-01)`. */
  summary: string;
  before?: unknown;
  after?: unknown;
  /** When it was undone (then `undoneBy` names the change that undid it). */
  undoneAt?: number;
  undoneBy?: string;
  /** The change this one undid. */
  undoOf?: string;
  /** Its text was removed by a forget: shown as a trace, cannot be undone. */
  redacted?: boolean;
}

/** A change as recorded by a caller (the memory manager for the library and the plan). */
export interface NewMemoryChange extends ChangeMeta {
  kind: ChangeKind;
  target: string;
  subjects?: string[];
  op: string;
  summary: string;
  before?: unknown;
  after?: unknown;
}

/** A history query: by subject (entity name, memory title, word of the summary) or by exact target. */
export interface HistoryQuery {
  subject?: string;
  target?: string;
  kind?: ChangeKind;
  limit?: number;
  /** Only changes before this id's time (paging back). */
  before?: number;
}

/** What a forget can be asked to remove: a query, or the very things a dialog showed. */
export interface ForgetRequest {
  /** Words the forgotten things contain (every word, case-insensitive). */
  query?: string;
  turnIds?: string[];
  /** Graph facts by relation id. */
  relationIds?: number[];
  /** Documents and archived turns without a turn id (notes from doc_commit), by tier and id. */
  documents?: { tier: 'document' | 'archive' | 'context'; id: string }[];
  /** Library memories (removed only when listed here: the person was asked). */
  memoryIds?: string[];
  /**
   * Turns the preview listed as quoting what was said (`ForgetPlan.quoting`) that the person keeps
   * (decision 0450): their events in the session logs and the text log are not redacted for the
   * quote. Not one of `turnIds`.
   */
  keepTurnIds?: string[];
  /**
   * Facts made from the turns being forgotten that the person keeps (decision 0520): each stays in
   * the graph without those turns — its source sentence and its links to them go, and it cites
   * {@link keptFactSource} instead. Each must be a fact that cites one of `turnIds` or an event or
   * document of theirs (else a `ValidationError`; an unknown id is a `NotFoundError`), and not one
   * of `relationIds`. Checked before anything goes: a bad keep forgets nothing.
   */
  keepRelationIds?: number[];
}

/** One turn a forget would remove, with where it lives now. */
export interface ForgetTurn {
  turnId: string;
  sessionId: string;
  /** Epoch ms of its first event. */
  at: number;
  /** Its user message and reply, shortened. */
  text: string;
  /** `context`, `document`, `archive`, `held` (excluded), `session-log`. */
  places: string[];
}

/** What a forget will remove: shown to the person before anything goes. */
export interface ForgetPlan {
  query?: string;
  turns: ForgetTurn[];
  /**
   * Facts that go: asked for, whose only sources are the turns above, or that mention the words.
   * `fact`, when known, is the triple (so a page can say it as a sentence). `withTurns`: every source
   * it cites is one of the turns above, so it goes with them — unless the person keeps it
   * (`ForgetRequest.keepRelationIds`, decision 0520); a fact without it is kept by leaving it out of
   * `relationIds`.
   */
  facts: { id: number; text: string; reason: 'asked' | 'only-source' | 'matches'; fact?: { subject: string; predicate: string; object: string }; withTurns?: boolean }[];
  documents: { tier: string; id: string; text: string }[];
  /**
   * Library memories that mention it: removed only when the person includes them. Those made from
   * what goes (`madeFrom`: a summary of the turns above, a message saved from them, or a memory
   * composed of one that goes) are included unless the person keeps them (decision 0430): the
   * WebUI ticks them, `waiter` and `memory_forget` include them.
   */
  memories: { id: string; title: string; preview: string; madeFrom?: boolean }[];
  /** How many files the turns' messages brought go with them (decision 0370); absent = none. */
  files?: number;
  /**
   * Other turns that quote what the person said in the turns above ("As I said: my locker code
   * is …", decision 0450): not part of the forget unless the person includes them (as `turnIds`).
   * The WebUI ticks them, `waiter` includes them unless `--keep`, `memory_forget` lists them in the
   * dialog and includes them. Absent = none.
   */
  quoting?: ForgetTurn[];
}

/** What a forget removed, by place. */
export interface ForgetResult {
  turns: number;
  contextEvents: number;
  documents: number;
  archived: number;
  relations: number;
  entities: number;
  held: number;
  memories: number;
  sessionEvents: number;
  textLogLines: number;
  historyRedacted: number;
  tombstones: number;
  /** Copies set aside as damaged (session logs, `context.json`) in which a forgotten text was blanked. */
  asideCopies: number;
  /** Files the forgotten turns' messages brought (both copies of a chat app's file) that were deleted. */
  files: number;
  /** Pinned messages, reminders and other items of participants (the library, timers) dropped because they held what went. */
  elsewhere?: number;
  /** The daemon's log files (`logs/*.log`) in which a quote of what went was blanked (decision 0430). */
  daemonLogs?: number;
  /** Facts made from the forgotten turns that stay because the person kept them (decision 0520); absent = none. */
  keptFacts?: number;
  /**
   * What could not be finished (decision 0400): a participant that failed to scrub, a database file
   * a reader held while its freed pages were to be emptied. Absent when everything was done.
   */
  unfinished?: { part: string; message: string }[];
}

/** What a kept fact's source says before its time (decision 0520). */
const KEPT_PREFIX = 'kept:';

/**
 * The one source a fact kept by a forget cites in place of the turns that went (decision 0520):
 * `kept:<epoch ms of the forget>`. It names no turn, session or word of them — only that the person
 * kept the fact when the turns it came from were forgotten, and when.
 */
export function keptFactSource(at: number): string {
  return `${KEPT_PREFIX}${Math.max(0, Math.floor(at))}`;
}

/** When a fact was kept by a forget (epoch ms), from its sources or refs; undefined when none says so. */
export function keptFactAt(refs: readonly string[] | undefined): number | undefined {
  for (const r of refs ?? []) {
    if (typeof r !== 'string' || !r.startsWith(KEPT_PREFIX)) continue;
    const at = Number(r.slice(KEPT_PREFIX.length));
    if (Number.isSafeInteger(at) && at >= 0) return at;
  }
  return undefined;
}

/**
 * The counts of a forget that are not zero, as `name n, …` (`nothing` when all are): what a CLI or a
 * tool prints. Facts kept are not among them (they were not forgotten: `keptFacts`, said apart).
 */
export function forgetCounts(res: ForgetResult): string {
  const counts = Object.entries(res).filter((e): e is [string, number] => e[0] !== 'keptFacts' && typeof e[1] === 'number' && e[1] > 0);
  return counts.map(([k, v]) => `${k} ${v}`).join(', ') || 'nothing';
}

/**
 * A participant in forget that the memory subsystem cannot reach itself (the library of the
 * memory manager): it finds what mentions a query and removes what the person chose.
 */
export interface ForgetParticipant {
  /** What mentions every word of `query`. */
  find(query: string, limit: number): Promise<{ id: string; title: string; preview: string }[]>;
  /** Titles and previews of named items (a dialog opened on one memory). */
  describe(ids: string[]): Promise<{ id: string; title: string; preview: string }[]>;
  /** Removes them without a history entry of their text; returns the texts they held (scrubbed elsewhere). */
  remove(ids: string[], meta: ChangeMeta): Promise<{ removed: number; texts: string[] }>;
  /**
   * Drops other things that hold one of `texts` (pinned messages, one-shot items) or were made in
   * one of the forgotten turns `turnIds` (a reminder set there); returns how many.
   */
  scrub?(texts: string[], turnIds: string[]): Promise<number>;
  /**
   * Items made from the turns a forget takes — a summary of a session whose events `sources` names
   * (decision 0430): listed in the preview as made from them, ticked (they go unless the person
   * keeps them).
   */
  madeFrom?(sources: TurnSource[]): Promise<{ id: string; title: string; preview: string }[]>;
  /**
   * Items made of these items of its own (a library memory composed of them, and one composed of
   * that): each holds their text, so it is listed with them as made from what is forgotten, ticked.
   */
  madeOf?(ids: string[]): Promise<{ id: string; title: string; preview: string }[]>;
  /**
   * Holds nothing across a restart (a buffer in memory): a forget finished at the next start owes
   * it nothing (decision 0420).
   */
  inMemoryOnly?: boolean;
}

/** The events of forgotten turns in one session log, by seq (what a library memory's `source` names). */
export interface TurnSource {
  sessionId: string;
  seqs: number[];
}

/** Undoes one recorded change of a kind the memory subsystem does not own (`memory`, `plan`). */
export type UndoHandler = (change: MemoryChange) => Promise<void>;

/** `host.memory-control`. */
export interface MemoryControlService {
  /** Turn ids excluded now (M-9). */
  excluded(): string[];
  isExcluded(turnId: string): boolean;
  /**
   * Excludes turns from every memory tier: what the tiers hold of them is taken out and kept aside
   * (not searchable, not distilled, not prompted) until restored. Idempotent.
   */
  exclude(turnIds: string[], meta?: ChangeMeta): Promise<{ turns: number; held: number }>;
  /** Brings excluded turns back where they were (M-9 restore). */
  restore(turnIds: string[], meta?: ChangeMeta): Promise<{ turns: number; restored: number }>;
  /**
   * Regenerate and edit-and-resend (decision 0550): `turnId` is said again as a new turn, which
   * `send` records — it must log the message with `meta` (`{replaces: turnId}`) and resolve with
   * the new turn's id once the message is in the session log. What the memory tiers hold of
   * `turnId` (the context window, documents, the cold archive, the graph's sources: a fact only it
   * supports goes) leaves them for good; the library is left alone, and nothing is excluded. It is
   * taken out before `send` (so the new turn does not recall it) and put back if `send` fails; a
   * kill in between is settled at the next start by the session log. Memory that cannot take part
   * does not stop the send (the old copy then stays, or the next start finishes the replacement).
   * Resolves with the new turn's id, whether the replacement is done (`replaced`) and how many
   * items left the tiers; rejects with `send`'s error (or a `ValidationError` for a malformed id),
   * never for memory's own failures.
   */
  replaceTurn?(turnId: string, send: (meta: Record<string, unknown>) => Promise<string>, meta?: ChangeMeta): Promise<{ turnId: string; replaced: boolean; removed: number }>;
  /** The finished replacements (old turn, the turn that said it again), for an export (decision 0620). */
  replacedTurns?(): { turnId: string; byTurn: string }[];
  /**
   * Records replacements an import brought as finished (decision 0620) — one of a turn replaced
   * here already is left as it is — and takes the old turns' copies out of the open tiers.
   * Resolves with how many were new. Ids are checked like `replaceTurn`'s (`ValidationError`).
   */
  addReplacements?(rows: readonly { turnId: string; byTurn: string }[]): Promise<number>;
  /** What a forget would remove (nothing changes). */
  forgetPreview(request: ForgetRequest): Promise<ForgetPlan>;
  /** Removes every trace of what is named (not of `query`: name what the preview showed). */
  forget(request: Omit<ForgetRequest, 'query'>, meta?: ChangeMeta): Promise<ForgetResult>;
  /** True when a turn was forgotten: reindex and import must not bring it back. */
  isTombstoned(turnId: string): boolean;
  /**
   * True when this text was forgotten: what a person said (a message, a note, the sentence of a
   * fact forgotten by hand) — and, recorded before decision 0320, any text of a forgotten turn.
   * Never for a text under 12 characters ("ok", "Noted.", a CJK character counting twice): it goes
   * with its turn.
   */
  isTombstonedContent(text: string): boolean;
  /**
   * True when this message with this reply was forgotten (a pair tombstone, decision 0320): the
   * same answer to the same message. A reply alone is never matched ("Sorry, this turn failed: …").
   */
  isTombstonedPair(message: string, reply: string): boolean;
  /** True when a document, archived row or context event of this id was forgotten (by its id, or with its turn). */
  isTombstonedDocument(id: string): boolean;
  /** True when this fact was forgotten (an import must not bring it back; case-insensitive names). */
  isTombstonedFact(subject: string, predicate: string, object: string): boolean;
  /**
   * The tombstones as an export carries them: `sha256:<kind>:<hex>` refs (hashes only, nothing of
   * what was forgotten) with the time of the forget.
   */
  tombstoneRefs(): { ref: string; at: number }[];
  /**
   * Adds tombstones an import brought (refs as {@link tombstoneRefs} gives them; anything else is
   * skipped). Deletes nothing: their data was never imported. Returns how many were new.
   */
  addTombstoneRefs(items: readonly { ref: string; at: number }[]): number;
  /**
   * Forgets what is still held of the tombstones (after an import added some): turns whose id or
   * text, facts and notes whose hash was forgotten elsewhere. Undefined when nothing matched.
   * `opts.refs` (`sha256:<kind>:<hex>`): match by these tombstones only — what an import brought
   * that was not recorded here before (a forget made here acted here already, exactly).
   */
  applyTombstones(meta?: ChangeMeta, opts?: { refs?: readonly string[] }): Promise<ForgetResult | undefined>;
  /** What `applyTombstones` would forget here once these refs (an archive's tombstones) are recorded: counts only, nothing changes. */
  previewTombstones(refs: readonly string[]): Promise<{ turns: number; facts: number; documents: number }>;
  /** Records a change the caller made (library, plan); returns it with its id. */
  record(change: NewMemoryChange): MemoryChange;
  /**
   * Runs `fn` as `meta`'s actor: every change recorded inside it, across awaits, says who made it
   * (a plugin's agent tools run as `agent` with their turn; outside any, the user).
   */
  runAs<T>(meta: ChangeMeta, fn: () => T): T;
  history(query?: HistoryQuery): MemoryChange[];
  /** Undoes a change (recorded itself as an `undo` change); a later change of the same thing → ConflictError. */
  undo(id: string, meta?: ChangeMeta): Promise<MemoryChange>;
  registerUndo(kind: 'memory' | 'plan', handler: UndoHandler): Disposer;
  registerForgetParticipant(name: string, participant: ForgetParticipant): Disposer;
  /**
   * Resolves once what a forget finished at start owed participant `name` has been given to it
   * (decision 0420); at once when nothing was owed. Await it after registering, before delivering
   * or injecting anything that could hold what was forgotten.
   */
  settled?(name: string): Promise<void>;
  /** Listens to exclusions and restores (the memory manager mirrors them in its plan files). */
  onExclusionChange(fn: (e: { turnIds: string[]; excluded: boolean }) => void): Disposer;
}

declare module './plugin.js' {
  interface ServiceMap {
    'host.memory-control': MemoryControlService;
  }
}
