import { randomUUID } from 'node:crypto';
import type { ChangeMeta, ContextEvent, Disposer, ForgetParticipant, ForgetPlan, ForgetRequest, ForgetResult, HistoryQuery, MemoryChange, MemoryControlService, NewMemoryChange, Triple, UndoHandler } from '../../spec/index.js';
import { ConflictError, HomeAgentError, keptFactAt, NotFoundError, REPLACES_META_KEY, ValidationError } from '../../spec/index.js';
import { factText } from '../recall/index.js';
import type { MemoryDocument } from '../documents/index.js';
import type { GraphChange, GraphState } from '../graph/index.js';
import { currentChangeActor, withChangeActor } from './change-actor.js';
import { ALL, type ControlTiers } from './control-tiers.js';
import { deleteForgottenFiles } from './forget-files.js';
import { filesOfTurns, planForget } from './forget-plan.js';
import { addForgetResult, owedOfPending, redactMemoryCopies, runForget, unfinished, type OwedForget, type PendingForget } from './forget-run.js';
import type { CompactOutcome } from '../../fs/sqlite/index.js';
import { packVector, unpackVector, type HeldVector } from './held-turn.js';
import { sessionOfTurn } from './text-match.js';
import { contentHash, contentKey, deletedFactHash, distinctiveContent, distinctivePair, docHash, factHash, pairHash, pairKey, turnHash } from './tombstone-hash.js';
import { findTombstoned, TURN_ID } from './tombstone-match.js';
import { putBack, sweepTurn } from './turn-exclusion.js';
import { commitReplaced, holdForReplaced, holdReplaced, putReplacedBack, reconcileReplacements } from './turn-replacement.js';
import type { HistoryInsert } from './control-db.js';


/** The turn a change came from: a kernel turn id among its refs, else the caller's. */
function turnOf(refs: readonly string[], fallback?: string): string | undefined {
  return refs.find((r) => TURN_ID.test(r)) ?? fallback;
}

/** A document as history keeps it (with its vector, so undo of a delete brings it back whole). */
interface DocumentState {
  doc: MemoryDocument;
  vec?: HeldVector;
}

/** A tombstone as an export carries it: its kind and the SHA-256 of what was forgotten. */
const TOMBSTONE_REF = /^sha256:(turn|content|pair|document|fact|deleted-fact):([0-9a-f]{64})$/;

/**
 * Memory the user controls (M-9, K-2, K-3): the exclusion gate every tier and ingest path consults,
 * forget with tombstones, and the history of changes with undo — `host.memory-control`. Lives in
 * the memory subsystem because it works on every tier; the memory manager feeds it exclusions,
 * records its library and plan changes in it, and takes part in forget and undo.
 */
export class MemoryControl implements MemoryControlService {
  private readonly undoers = new Map<string, UndoHandler>();
  private readonly participants = new Map<string, ForgetParticipant>();
  /** A participant's debt being paid (decision 0420), by name: `settled` waits for it. */
  private readonly paying = new Map<string, Promise<void>>();
  private readonly exclusionListeners = new Set<(e: { turnIds: string[]; excluded: boolean }) => void>();
  private readonly recordedListeners = new Set<(changes: readonly MemoryChange[]) => void>();
  /** Serializes exclusion, restore, forget, undo and the steps of a replacement: each reads and rewrites several tiers. */
  private chain: Promise<unknown> = Promise.resolve();
  /** Turns being replaced by a run in this process (decision 0550): `reconcile` leaves their rows to it. */
  private readonly replacing = new Set<string>();

  constructor(private readonly t: ControlTiers) {}

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const job = this.chain.then(fn);
    this.chain = job.catch(() => undefined);
    return job;
  }

  private get db() {
    return this.t.db;
  }

  /**
   * At open: the files a forget committed to deleting are deleted (a kill cut it off); turns
   * excluded before a kill may still sit in a tier, they are swept again; replacements not done
   * are settled or swept (decisions 0550, 0600). Returns how many replaced turns were swept.
   */
  async reconcile(): Promise<{ replacements: number }> {
    // Files a committed forget had not deleted yet when it was cut off (decision 0370).
    const left = this.db.forgetFiles();
    if (left.length) this.t.log.info(`memory control: deleted ${deleteForgottenFiles(this.t, left)} file(s) of a forget that was cut off`);
    await this.finishPendingForgets();
    // Replacements a kill cut off are settled by the session log; committed ones not done yet are
    // swept again (0550); done ones are left alone (0600).
    const replacements = await this.serial(() =>
      reconcileReplacements(this.t, {
        busy: (id) => this.replacing.has(id),
        forgotten: (ref) => this.isTombstoned(ref),
        committed: (id, by) => this.recordReplacement(id, by, REPLACER),
      }),
    ).catch((e: Error) => (this.t.log.error(`memory control: settling replaced turns failed: ${e.message}`), 0));
    for (const id of this.db.excluded()) {
      try {
        await sweepTurn(this.t, id);
      } catch (e) {
        this.t.log.error(`memory control: sweeping excluded turn ${id} failed: ${(e as Error).message}`);
      }
    }
    return { replacements };
  }

  /**
   * The tiers' files were swapped (an import, K-5): what they hold now was never swept, so every
   * replacement is unfinished again (decision 0600) — recorded before they reopen, so a kill in the
   * middle of the sweep that follows leaves the rest to the next start.
   */
  tiersSwapped(): void {
    this.db.unfinishAll();
  }

  /**
   * Once per start (not at an import's reopen): what finished forgets owe a participant that has
   * not registered in three starts (a plugin switched off or removed) is given up — the record
   * holds the forgotten texts (decision 0420).
   */
  ageOwed(): void {
    try {
      for (const name of this.db.ageOwed(3)) this.t.log.warn(`memory control: the ${name} participant did not start in three starts; what it holds of a forgotten text stays there`);
    } catch (e) {
      this.t.log.error(`memory control: ageing what forgets owe failed: ${(e as Error).message}`);
    }
  }

  // ---------- exclusion (M-9) ----------

  excluded(): string[] {
    return this.db.excluded();
  }

  isExcluded(turnId: string): boolean {
    return this.db.isExcluded(turnId);
  }

  /** True when ingest must skip a turn: excluded, replaced (decision 0550), or forgotten. */
  blocks(turnId: string): boolean {
    return this.db.isExcluded(turnId) || this.db.isReplaced(turnId) || this.isTombstoned(turnId);
  }

  async exclude(turnIds: string[], meta: ChangeMeta = {}): Promise<{ turns: number; held: number }> {
    const ids = checkTurnIds(turnIds);
    return this.serial(async () => {
      // A turn that does not exist is refused, not recorded: an exclusion of `cli:default#99` would
      // otherwise wait for that turn and take it out of memory the day it is said.
      const unknown: string[] = [];
      for (const id of ids) if (!(await this.turnKnown(id))) unknown.push(id);
      if (unknown.length) throw new NotFoundError('turn', unknown.slice(0, 5).join(', '));
      return this.excludeNow(ids, meta, true);
    });
  }

  /** Whether a turn is in its session's log or in a memory tier (or already excluded). */
  private async turnKnown(id: string): Promise<boolean> {
    if (this.db.isExcluded(id)) return true;
    const events = this.t.sessions ? await this.t.sessions.events(sessionOfTurn(id), ALL).catch(() => []) : [];
    if (events.some((e) => e.turnId === id)) return true;
    if (this.t.context()?.events().some((e) => e.refs?.includes(id))) return true;
    return (this.t.docs()?.idsOfTurn(id).length ?? 0) > 0 || (this.t.archive()?.rowsOfTurn(id).length ?? 0) > 0;
  }

  private async excludeNow(ids: string[], meta: ChangeMeta, record: boolean): Promise<{ turns: number; held: number }> {
    const added: string[] = [];
    for (const id of ids) if (this.db.addExclusion(id, sessionOfTurn(id))) added.push(id);
    let held = 0;
    for (const id of ids) held += await sweepTurn(this.t, id);
    if (added.length) {
      this.emitExclusion(added, true);
      if (record) this.recordMany(added.map((id) => ({ ...meta, kind: 'exclusion' as const, target: id, op: 'exclude', summary: `excluded turn ${id}`, before: { excluded: false }, after: { excluded: true } })));
    }
    return { turns: added.length, held };
  }

  async restore(turnIds: string[], meta: ChangeMeta = {}): Promise<{ turns: number; restored: number }> {
    const ids = checkTurnIds(turnIds);
    return this.serial(() => this.restoreNow(ids, meta, true));
  }

  private async restoreNow(ids: string[], meta: ChangeMeta, record: boolean): Promise<{ turns: number; restored: number }> {
    const done: string[] = [];
    const failed: string[] = [];
    let restored = 0;
    let firstError: Error | undefined;
    for (const id of ids) {
      if (!this.db.isExcluded(id)) continue;
      const held = this.db.held(id);
      // The gate lifts first (the window would refuse the events), the row goes last: a kill in
      // between leaves the turn excluded, and the next open sweeps it aside again.
      this.db.liftGate(id);
      try {
        // A turn replaced while excluded held nothing since (decision 0550), and is not archived from its log either.
        restored += await putBack(this.t, id, held, (ref) => this.isTombstoned(ref), { fromLog: !this.db.isReplaced(id) });
      } catch (e) {
        // What is held is not dropped (it was, with the row): the turn stays excluded, and what was
        // already put back is swept aside again, merged with what is held (or at the next open).
        this.db.closeGate(id);
        await sweepTurn(this.t, id, { skipFailingTiers: true }).catch((err: Error) => this.t.log.warn(`memory control: re-sweeping ${id} after a failed restore failed: ${err.message}`));
        failed.push(id);
        firstError ??= e instanceof Error ? e : new Error(String(e));
        continue;
      }
      this.db.removeExclusion(id);
      done.push(id);
    }
    if (done.length) {
      this.emitExclusion(done, false);
      if (record) this.recordMany(done.map((id) => ({ ...meta, kind: 'exclusion' as const, target: id, op: 'restore', summary: `restored turn ${id}`, before: { excluded: true }, after: { excluded: false } })));
    }
    if (failed.length) throw new HomeAgentError('RESTORE_FAILED', `could not restore ${failed.length} turn(s) (${failed.slice(0, 5).join(', ')}): ${firstError?.message}; they stay excluded, nothing is lost — try again`, { details: { failed, restored: done } });
    return { turns: done.length, restored };
  }

  onExclusionChange(fn: (e: { turnIds: string[]; excluded: boolean }) => void): Disposer {
    this.exclusionListeners.add(fn);
    return () => void this.exclusionListeners.delete(fn);
  }

  private emitExclusion(turnIds: string[], excluded: boolean): void {
    for (const fn of this.exclusionListeners) {
      try {
        fn({ turnIds, excluded });
      } catch (e) {
        this.t.log.warn('memory control: an exclusion listener failed', { error: (e as Error).message });
      }
    }
  }

  // ---------- replacement (decision 0550) ----------

  /**
   * Regenerate and edit-and-resend: `turnId` leaves every tier for good — held in its pending row
   * first, so the new turn does not recall it — then `send` logs the new message (tagged with
   * `meta`), then the replacement is committed and recorded. `send` failing puts it back; a kill in
   * between is settled at the next open from the log. Memory that cannot take part never stops the
   * send: it is logged, and the old copy stays.
   */
  async replaceTurn(turnId: string, send: (meta: Record<string, unknown>) => Promise<string>, meta: ChangeMeta = {}): Promise<{ turnId: string; replaced: boolean; removed: number }> {
    const [id] = checkTurnIds([turnId]);
    const who = { ...REPLACER, ...currentChangeActor(), ...meta };
    const forgotten = (ref: string) => this.isTombstoned(ref);
    this.replacing.add(id);
    try {
      let removed = 0;
      let held = false;
      try {
        removed = await this.serial(() => withChangeActor(who, () => holdReplaced(this.t, id)));
        held = true;
      } catch (e) {
        this.t.log.warn(`memory control: ${id} could not be taken out of memory before it is said again; it stays there: ${(e as Error).message}`);
        await this.serial(() => putReplacedBack(this.t, id, forgotten)).catch(() => undefined);
      }
      let by: string;
      try {
        by = await send({ [REPLACES_META_KEY]: id });
      } catch (e) {
        if (held) await this.serial(() => withChangeActor(who, () => putReplacedBack(this.t, id, forgotten))).catch((err: Error) => this.t.log.error(`memory control: ${id} could not be put back after its resend failed; the next start does it: ${err.message}`));
        throw e;
      }
      let replaced = false;
      if (held) {
        try {
          removed += await this.serial(() =>
            withChangeActor(who, () =>
              commitReplaced(this.t, id, by, () => {
                replaced = true;
                this.recordReplacement(id, by, who);
              }),
            ),
          );
        } catch (e) {
          this.t.log.error(`memory control: the replacement of ${id} by ${by} could not be finished now; the next start finishes it: ${(e as Error).message}`);
        }
      }
      return { turnId: by, replaced, removed };
    } finally {
      this.replacing.delete(id);
    }
  }

  private recordReplacement(turnId: string, byTurn: string, meta: ChangeMeta): void {
    this.recordMany([{ ...meta, turnId: byTurn, kind: 'replacement', target: turnId, op: 'replace', summary: `replaced turn ${turnId} with ${byTurn}`, after: { byTurn } }]);
  }

  /** The context window's gate: an event of an excluded or forgotten turn does not enter it. */
  admitEvent(e: ContextEvent): boolean {
    const turn = e.refs?.[0];
    return !turn || !this.blocks(turn);
  }

  /** An event refused by the gate: kept with its excluded turn, or its turn's pending replacement (a forgotten one is dropped). */
  holdEvent(e: ContextEvent): void {
    const turn = e.refs?.[0];
    if (!turn || holdForReplaced(this.t, turn, { event: e }) || !this.db.isExcluded(turn)) return;
    const held = this.db.held(turn);
    if (!held.events.some((x) => x.id === e.id)) held.events.push(e);
    this.db.setHeld(turn, held);
  }

  /**
   * The graph's gate: facts citing an excluded turn are held with it; facts citing a forgotten turn,
   * and forgotten facts distilled again from what was said before the forget, are dropped.
   */
  admitTriples<T extends Triple>(triples: T[]): T[] {
    return triples.filter((tr) => {
      const refs = tr.refs ?? [];
      // A replaced turn's first (decision 0550): one both excluded and replaced is not coming back.
      const replaced = refs.find((r) => this.db.isReplaced(r));
      if (replaced) {
        holdForReplaced(this.t, replaced, { triple: tr });
        return false;
      }
      const excluded = refs.find((r) => this.db.isExcluded(r));
      if (excluded) {
        const held = this.db.held(excluded);
        held.triples.push(tr);
        this.db.setHeld(excluded, held);
        return false;
      }
      if (refs.some((r) => this.isTombstoned(r))) return false;
      // Forgotten, or deleted by the person (decision 0490): only what is said after that comes back.
      const said = tr.validFrom ?? this.t.now();
      const at = this.db.hotTombstone(factHash(tr.subject, tr.predicate, tr.object));
      const deleted = this.db.hotTombstone(deletedFactHash(tr.subject, tr.predicate, tr.object));
      return (at === undefined || said > at) && (deleted === undefined || said > deleted);
    });
  }

  // ---------- forget (K-2) ----------

  async forgetPreview(request: ForgetRequest): Promise<ForgetPlan> {
    if (request.query !== undefined && (typeof request.query !== 'string' || request.query.length > 2000)) throw new ValidationError('query must be text of at most 2000 characters', { key: 'query' });
    if (!request.query?.trim() && !request.turnIds?.length && !request.relationIds?.length && !request.documents?.length && !request.memoryIds?.length) {
      throw new ValidationError('say what to forget: words, or turns, facts, documents or memories', { key: 'query' });
    }
    return planForget(this.t, request, this.participants);
  }

  forget(request: Omit<ForgetRequest, 'query'>, meta: ChangeMeta = {}): Promise<ForgetResult> {
    return this.serial(() => this.forgetNow(request, { ...currentChangeActor(), ...meta }));
  }

  /**
   * One forget, inside `serial`. Recorded in `forget_pending` with its tombstones and dropped when
   * done (decision 0410); `resume` is that record, when a forget cut off is finished at open.
   */
  private async forgetNow(request: Omit<ForgetRequest, 'query'>, meta: ChangeMeta, resume?: { key: string; body: PendingForget }): Promise<ForgetResult> {
    const key = resume?.key ?? randomUUID();
    let res: ForgetResult | undefined;
    try {
      res = await runForget(this.t, request, meta, this.participants, { key, ...(resume ? { resume: resume.body } : {}) });
    } finally {
      // After its commit point (the tombstones), also when a later step failed: what the
      // forget listed goes now, not at the next start (decision 0370).
      const files = this.db.forgetFiles();
      const n = files.length ? deleteForgottenFiles(this.t, files) : 0;
      if (res) res.files = n;
    }
    const n = res.turns + res.relations + res.documents + res.archived + res.memories;
    // A resumed forget is recorded whatever it still found: its first run was cut off before this.
    const entry: NewMemoryChange[] = [{ ...meta, kind: 'forget' as const, target: 'forget', op: 'forget', summary: `forgot ${count(res.turns, 'turn')}, ${count(res.relations, 'fact')}, ${count(res.documents + res.archived, 'document')}, ${count(res.memories, 'memory', 'memories')}`, subjects: [] }].filter(() => n > 0 || res.tombstones > 0 || resume !== undefined);
    // Each fact the person kept (decision 0520): a line of its own, naming the fact and nothing of
    // the turns it came from (its earlier entries, which held them, were redacted by the run).
    entry.push(...this.keptEntries(request.keepRelationIds ?? [], meta));
    // The entries and the drop of the record in one transaction: a kill between them would have
    // recorded the forget twice at the next open.
    this.recorded(this.db.finishForget(key, this.inserts(entry)));
    this.compactAfterForget(res);
    return res;
  }

  /**
   * The history entries of the facts a forget kept (decision 0520): `keep`, with the fact's line and
   * its names, no before or after (nothing of it changed that undo could put back but its sources,
   * and those were the forgotten turns'). Only facts that cite the kept source now.
   */
  private keptEntries(ids: readonly number[], meta: ChangeMeta): NewMemoryChange[] {
    const graph = this.t.graph();
    if (!graph || !ids.length) return [];
    const out: NewMemoryChange[] = [];
    for (const id of new Set(ids)) {
      const r = graph.relation(id);
      if (!r || keptFactAt(graph.sourcesOf(id).map((s) => s.ref)) === undefined) continue;
      out.push({ ...meta, kind: 'relation', target: `relation:${id}`, subjects: [r.subject, r.object], op: 'keep', summary: `kept ${factText(r)} (the turn it came from was forgotten)` });
    }
    return out;
  }

  /**
   * Finishes the forgets a kill or a failing step cut off after their commit point (decision 0410):
   * each runs again from its record — the tiers it had emptied give nothing, the logs, history and
   * copies set aside are redacted with the texts it recorded. One that fails three times is given
   * up (logged; its tombstones still keep what it forgot out of every tier).
   */
  private finishPendingForgets(): Promise<void> {
    // One job in `serial`: a forget in flight (tiers reopened by an import) has dropped its record
    // before the rows are read here.
    return this.serial(async () => {
      try {
        await this.finishEach();
      } catch (e) {
        // A full disk here (the tries are counted by a write) must not stop the daemon's start.
        this.t.log.error(`memory control: forgets that were cut off could not be finished now; the next start tries again: ${(e as Error).message}`);
      }
    });
  }

  private async finishEach(): Promise<void> {
    for (const p of this.db.pendingForgets()) {
      let body: PendingForget;
      try {
        body = JSON.parse(p.body) as PendingForget;
      } catch {
        body = undefined as unknown as PendingForget;
      }
      if (!body?.request || p.tries >= 3) {
        // Given up, a readable record still gives the plugins not started yet their part: owed,
        // taken when they register (a run that failed three times never reached that step).
        const absent = body?.request ? (body.participants ?? []).filter((name) => !this.participants.has(name)) : [];
        if (absent.length) this.db.addOwed(p.key, absent, JSON.stringify(owedOfPending(body)));
        this.db.dropPendingForget(p.key);
        this.t.log.error(`memory control: gave up finishing a forget that was cut off (${body?.request ? 'it failed three times' : 'its record is unreadable'}); its tombstones stay in effect${absent.length ? `; what ${absent.join(', ')} hold of it is owed to them` : ''}`);
        continue;
      }
      try {
        await this.forgetNow(body.request, body.meta ?? {}, { key: p.key, body });
        this.t.log.info('memory control: finished a forget that was cut off');
      } catch (e) {
        this.t.log.error(`memory control: finishing a forget that was cut off failed; the next start tries again: ${(e as Error).message}`);
      }
    }
  }

  /**
   * Gives a participant that registered after a forget was finished at open what that forget owed
   * it (decision 0420): the memories the person ticked are removed, and what holds a forgotten text
   * or was made in a forgotten turn is dropped. A debt that fails three times is given up (logged).
   */
  private async payOwed(name: string, p: ForgetParticipant): Promise<void> {
    if (this.participants.get(name) !== p) return;
    let rows: { key: string; body: string; tries: number }[];
    try {
      rows = this.db.owedTo(name);
    } catch (e) {
      this.t.log.error(`memory control: what forgets owe the ${name} participant could not be read: ${(e as Error).message}`);
      return;
    }
    for (const row of rows) {
      let owed: OwedForget | undefined;
      try {
        owed = JSON.parse(row.body) as OwedForget;
      } catch {
        owed = undefined;
      }
      try {
        if (!owed || !Array.isArray(owed.quotes) || row.tries >= 3) {
          this.db.dropOwed(name, row.key);
          this.t.log.error(`memory control: gave up giving the ${name} participant its part of a forget (${owed ? 'it failed three times' : 'its record is unreadable'})`);
          continue;
        }
        let removed = 0;
        let texts: string[] = [...(owed.memoryTexts ?? [])];
        if (owed.memoryIds?.length) {
          const r = await p.remove(owed.memoryIds, owed.meta ?? {});
          removed = r.removed;
          texts = [...new Set([...texts, ...r.texts])];
          // Kept with the debt before anything can fail: a retry's remove finds the memories gone.
          if (r.texts.length) this.db.addOwed(row.key, [name], JSON.stringify({ ...owed, memoryIds: [], memoryTexts: texts, memoryTextsOf: [...new Set([...(owed.memoryTextsOf ?? []), ...owed.memoryIds])] } satisfies OwedForget));
        }
        // What the removed memories said, in copies of memory (tool calls, injections) and the
        // history: the forget that owed them could not know it (its participant was not there).
        const ids = [...new Set([...(owed.memoryIds ?? []), ...(owed.memoryTextsOf ?? [])])];
        const copies = texts.length || ids.length ? await redactMemoryCopies(this.t, texts, ids) : { sessionEvents: 0, historyRedacted: 0 };
        const dropped = p.scrub ? await p.scrub(owed.quotes, owed.turnIds ?? []) : 0;
        this.db.dropOwed(name, row.key);
        this.t.log.info(`memory control: the ${name} participant took its part of a forget finished at start (${count(removed, 'memory', 'memories')} removed, ${count(dropped, 'item')} dropped, ${count(copies.sessionEvents + copies.historyRedacted, 'copy', 'copies')} of their texts redacted)`);
      } catch (e) {
        this.t.log.error(`memory control: the ${name} participant could not take its part of a forget; it is tried again when it next registers: ${(e as Error).message}`);
      }
    }
  }

  /**
   * Every memory file rebuilt and its WAL emptied after a forget (decision 0400): the rows went
   * with secure delete; a rebuild also takes copies an install wrote before secure delete was on
   * for good. A file a reader held is reported in `unfinished` (its next checkpoint empties it).
   */
  private compactAfterForget(res: ForgetResult): void {
    const stores: [string, { compact(): CompactOutcome } | undefined][] = [
      ['documents', this.t.docs()],
      ['archive', this.t.archive()],
      ['graph', this.t.graph()],
      ['memory-control', this.db],
    ];
    for (const [part, store] of stores) {
      if (!store) continue;
      const outcome = store.compact();
      if (outcome === 'busy') unfinished(res, part, 'the file was busy: removed rows are zeroed, and its write-ahead log is emptied at the next checkpoint');
      else if (outcome === 'too-large') this.t.log.info(`forget: ${part} is too large to rebuild after a forget; its removed rows were zeroed in place`);
    }
  }

  /**
   * Forgets what this install still holds of its tombstones — after an import brought tombstones
   * of forgets made elsewhere: turns whose id or text was forgotten (every tier, index and log, as
   * any forget), facts forgotten by hand, and notes without a turn (warm documents, the archive, the
   * context window) forgotten by id or by text. So a forget on one install reaches the copy another
   * install already had. Nothing when nothing matches (then nothing is recorded). `byContent:
   * false` matches by turn id, fact and document id only (a salvage at start, decision 0280).
   * `refs` (`sha256:<kind>:<hex>`, what an import brought that was not recorded here before)
   * matches by those tombstones only: a forget made here already acted here, exactly — matched
   * again by its texts, it would take the person's other turns that said the same (a second "hi"
   * with the same answer), which that forget, knowing the turn ids, had kept (0320 review fix 2).
   */
  async applyTombstones(meta: ChangeMeta = {}, opts: { byContent?: boolean; refs?: readonly string[] } = {}): Promise<ForgetResult | undefined> {
    const byContent = opts.byContent ?? true;
    const only = opts.refs === undefined ? undefined : refSet(opts.refs);
    if (only && !only.size) return undefined;
    // Every text of every tier is asked about — a message in the log, the window and a document —
    // so the text tombstones are read once, and each text is hashed once.
    const texts = !byContent ? new Set<string>() : only ? new Set([...only].filter((k) => k.startsWith('content:') || k.startsWith('pair:')).map((k) => k.slice(k.indexOf(':') + 1))) : this.db.tombstoneSet(['content', 'pair']);
    const seen = new Map<string, boolean>();
    const once = (key: string, ask: () => boolean) => {
      let v = seen.get(key);
      if (v === undefined) seen.set(key, (v = ask()));
      return v;
    };
    const found = await findTombstoned(this.t, {
      turn: (id) => (only ? only.has(`turn:${turnHash(id)}`) : this.isTombstoned(id)),
      content: (text) => texts.size > 0 && once(`c\u0000${text}`, () => texts.has(contentKey(text) ?? '')),
      pair: (message, reply) => texts.size > 0 && once(`p\u0000${message}\u0000${reply}`, () => texts.has(pairKey(message, reply) ?? '')),
      fact: (s, p, o) => (only ? only.has(`fact:${factHash(s, p, o)}`) : this.isTombstonedFact(s, p, o)),
      doc: (id) => (only ? only.has(`document:${docHash(id)}`) : this.isTombstonedDocument(id)),
    });
    if (!found.turnIds.length && !found.relationIds.length && !found.documents.length) return undefined;
    // A forget request takes at most 5,000 of each: larger sets go in batches.
    let total: ForgetResult | undefined;
    const B = 5000;
    const { turnIds, relationIds, documents } = found;
    for (let i = 0; i < Math.max(turnIds.length, relationIds.length, documents.length); i += B) {
      const [t, r, d] = [turnIds.slice(i, i + B), relationIds.slice(i, i + B), documents.slice(i, i + B)];
      const res = await this.forget({ ...(t.length ? { turnIds: t } : {}), ...(r.length ? { relationIds: r } : {}), ...(d.length ? { documents: d } : {}) }, meta);
      if (!total) total = res;
      else addForgetResult(total, res);
    }
    return total;
  }

  /** What {@link applyTombstones} would forget here if these refs (`sha256:<kind>:<hex>`, an archive's) were recorded: counts only. */
  async previewTombstones(refs: readonly string[]): Promise<{ turns: number; facts: number; documents: number; files: number }> {
    const set = refSet(refs);
    if (!set.size) return { turns: 0, facts: 0, documents: 0, files: 0 };
    const found = await findTombstoned(this.t, {
      turn: (id) => set.has(`turn:${turnHash(id)}`),
      content: (text) => distinctiveContent(text) && set.has(`content:${contentHash(text)}`),
      pair: (message, reply) => distinctivePair(message, reply) && set.has(`pair:${pairHash(message, reply)}`),
      fact: (s, p, o) => set.has(`fact:${factHash(s, p, o)}`),
      doc: (id) => set.has(`document:${docHash(id)}`),
    });
    // The files those turns' messages brought go with them too (decision 0370).
    const files = await filesOfTurns(this.t, new Set(found.turnIds));
    return { turns: found.turnIds.length, facts: found.relationIds.length, documents: found.documents.length, files };
  }

  isTombstoned(turnId: string): boolean {
    return typeof turnId === 'string' && this.db.hotTombstone(turnHash(turnId)) !== undefined;
  }

  isTombstonedContent(text: string): boolean {
    // A short text is never matched alone (tombstones of such texts recorded by earlier versions included).
    return distinctiveContent(text) && this.db.tombstone(contentHash(text)) !== undefined;
  }

  isTombstonedPair(message: string, reply: string): boolean {
    // A reply alone is never matched: only the same reply to the same message (decision 0320).
    return distinctivePair(message, reply) && this.db.tombstone(pairHash(message, reply)) !== undefined;
  }

  isTombstonedDocument(id: string): boolean {
    return typeof id === 'string' && this.db.hotTombstone(docHash(id)) !== undefined;
  }

  isTombstonedFact(subject: string, predicate: string, object: string): boolean {
    return [subject, predicate, object].every((x) => typeof x === 'string') && this.db.hotTombstone(factHash(subject, predicate, object)) !== undefined;
  }

  /**
   * Records that the person deleted a fact (decision 0490): distilled again from words said before
   * now, it is not committed; said again after, it is. Kept with the tombstones and carried by an
   * export as one (`sha256:deleted-fact:…`).
   */
  markDeletedFact(subject: string, predicate: string, object: string): void {
    this.db.markDeletedFact(deletedFactHash(subject, predicate, object), this.t.now());
  }

  tombstoneRefs(): { ref: string; at: number }[] {
    return this.db.listTombstones().map((t) => ({ ref: `sha256:${t.kind}:${t.hash}`, at: t.at }));
  }

  addTombstoneRefs(items: readonly { ref: string; at: number }[]): number {
    const stones: { hash: string; kind: string; at: number }[] = [];
    for (const it of items) {
      const m = typeof it?.ref === 'string' ? TOMBSTONE_REF.exec(it.ref) : null;
      if (!m) continue;
      const at = Number.isFinite(it.at) && it.at > 0 ? Math.floor(it.at) : this.t.now();
      stones.push({ kind: m[1], hash: m[2], at });
    }
    return stones.length ? this.db.addTombstones(stones) : 0;
  }

  registerForgetParticipant(name: string, participant: ForgetParticipant): Disposer {
    this.participants.set(name, participant);
    // A forget finished at open before this participant registered owes it its part (decision 0420).
    let owes = false;
    try {
      owes = this.db.owes(name);
    } catch (e) {
      this.t.log.error(`memory control: what forgets owe the ${name} participant could not be read: ${(e as Error).message}`);
    }
    if (owes) this.paying.set(name, this.serial(() => this.payOwed(name, participant)).catch(() => undefined));
    return () => {
      if (this.participants.get(name) === participant) this.participants.delete(name);
    };
  }

  /**
   * Resolves once what forgets finished at open owed `name` has been given to it (decision 0420) —
   * at once when nothing was owed. A plugin awaits it after registering its participant, before it
   * delivers or injects anything (a reminder missed while stopped, a memory).
   */
  settled(name: string): Promise<void> {
    return this.paying.get(name) ?? Promise.resolve();
  }

  // ---------- history (K-3) ----------

  record(change: NewMemoryChange): MemoryChange {
    return this.recordMany([change])[0];
  }

  runAs<T>(meta: ChangeMeta, fn: () => T): T {
    return withChangeActor(meta, fn);
  }

  /**
   * Listens to every change recorded in the history (K-3), as recorded: the feed of
   * `memory_changed` (decision 0260) hears them here — the one place every memory change passes.
   */
  onRecorded(fn: (changes: readonly MemoryChange[]) => void): Disposer {
    this.recordedListeners.add(fn);
    return () => void this.recordedListeners.delete(fn);
  }

  private recorded(changes: MemoryChange[]): MemoryChange[] {
    if (changes.length) {
      for (const fn of this.recordedListeners) {
        try {
          fn(changes);
        } catch (e) {
          this.t.log.warn('memory control: a change listener failed', { error: (e as Error).message });
        }
      }
    }
    return changes;
  }

  private recordMany(changes: NewMemoryChange[]): MemoryChange[] {
    if (!changes.length) return [];
    return this.recorded(this.db.insertChanges(this.inserts(changes)));
  }

  /** History rows of new changes: now, by whoever is acting unless a change says. */
  private inserts(changes: readonly NewMemoryChange[]): HistoryInsert[] {
    const who = currentChangeActor();
    return changes.map((c) => ({
      at: this.t.now(),
      actor: c.actor ?? who.actor,
      tool: c.tool ?? who.tool,
      turnId: c.turnId ?? who.turnId,
      kind: c.kind,
      target: c.target,
      subjects: c.subjects ?? [],
      op: c.op,
      summary: c.summary,
      before: c.before,
      after: c.after,
    }));
  }

  /** GraphDB's change listener: every committed graph write, with who made it. */
  onGraphChanges(changes: readonly GraphChange[]): void {
    const who = currentChangeActor();
    this.recorded(
      this.db.insertChanges(
        changes.map((c) => ({ at: this.t.now(), actor: who.actor, tool: who.tool, turnId: turnOf(c.refs, who.turnId), kind: c.kind, target: c.target, subjects: c.subjects, op: c.op, summary: c.summary, before: c.before, after: c.after })),
      ),
    );
  }

  /** A document added or deleted by a person or a tool (doc_commit, `waiter memory add-doc`, the WebUI). */
  recordDocument(op: 'create' | 'delete', doc: MemoryDocument, vec: Parameters<typeof packVector>[0], meta: ChangeMeta = {}): void {
    const state: DocumentState = { doc, ...(vec ? { vec: packVector(vec)! } : {}) };
    this.record({ ...meta, turnId: meta.turnId ?? turnOf(doc.refs), kind: 'document', target: doc.id, subjects: doc.title ? [doc.title] : [], op, summary: `${op === 'create' ? 'added' : 'deleted'} document: ${doc.content.slice(0, 80)}`, before: op === 'delete' ? state : undefined, after: op === 'create' ? state : undefined });
  }

  /** A knowledge-base entry created, edited or deleted by anyone but forget (K-3), with its text before and after. */
  recordKnowledge(c: { op: 'create' | 'update' | 'delete'; name: string; before?: string; after?: string }): void {
    const verb = c.op === 'create' ? 'created' : c.op === 'update' ? 'edited' : 'deleted';
    this.record({ kind: 'knowledge', target: `knowledge:${c.name}`, subjects: [c.name], op: c.op, summary: `${verb} knowledge entry "${c.name}"`, before: c.before === undefined ? undefined : { content: c.before }, after: c.after === undefined ? undefined : { content: c.after } });
  }

  history(query: HistoryQuery = {}): MemoryChange[] {
    return this.db.history(query);
  }

  registerUndo(kind: 'memory' | 'plan', handler: UndoHandler): Disposer {
    this.undoers.set(kind, handler);
    return () => {
      if (this.undoers.get(kind) === handler) this.undoers.delete(kind);
    };
  }

  undo(id: string, meta: ChangeMeta = {}): Promise<MemoryChange> {
    return this.serial(async () => {
      const c = this.db.change(String(id));
      if (!c) throw new NotFoundError('change', String(id).slice(0, 40));
      if (c.redacted) throw new ConflictError('this change was forgotten: there is nothing to undo', { id: c.id });
      if (c.undoneAt !== undefined) throw new ConflictError(`change ${c.id} was undone already (by ${c.undoneBy})`, { id: c.id });
      if (c.kind === 'forget') throw new ConflictError('a forget cannot be undone: nothing of it was kept', { id: c.id });
      if (c.op === 'keep') throw new ConflictError('a fact kept while its turn was forgotten has nothing to undo: its turn is gone for good; forget the fact itself to remove it', { id: c.id });
      if (c.op === 'import') throw new ConflictError('an import is not undone item by item: forget what it brought, or import the earlier export again', { id: c.id });
      if (c.kind === 'replacement') throw new ConflictError('a replaced turn does not come back: its message was said again, and the new turn is remembered', { id: c.id });
      switch (c.kind) {
        case 'relation':
        case 'entity': {
          const graph = this.t.graph();
          if (!graph) throw new HomeAgentError('MEMORY_UNAVAILABLE', 'the memory graph is not available', { retryable: true });
          const before = asState(c.before);
          const after = asState(c.after);
          graph.applyUndo(before, after);
          // Undoing the person's delete of a fact takes back its mark (decision 0490): left, the
          // next reindex or import would drop the fact they asked to have back.
          const gone = new Set(after.relations.map((r) => r.id));
          for (const r of before.relations) {
            if (gone.has(r.id)) continue;
            const back = graph.relation(r.id);
            if (back) this.db.clearDeletedFact(deletedFactHash(back.subject, back.predicate, back.object));
          }
          break;
        }
        case 'document':
          this.undoDocument(c);
          break;
        case 'knowledge':
          await this.undoKnowledge(c);
          break;
        case 'exclusion': {
          const want = (c.before as { excluded?: boolean } | undefined)?.excluded === true;
          if (want) await this.excludeNow([c.target], meta, false);
          else await this.restoreNow([c.target], meta, false);
          break;
        }
        case 'memory':
        case 'plan': {
          const h = this.undoers.get(c.kind);
          if (!h) throw new HomeAgentError('UNAVAILABLE', 'the memory library (memory-manager) is not running', { retryable: true });
          await h(c);
          break;
        }
      }
      const [u] = this.recordMany([{ ...meta, kind: c.kind, target: c.target, subjects: c.subjects, op: 'undo', summary: `undid #${c.id}: ${c.summary}`, before: c.after, after: c.before }]);
      this.db.linkUndo(c.id, u.id);
      return this.db.change(u.id)!;
    });
  }

  /** Puts an entry back as it was before the change — only if it is still as the change left it. */
  private async undoKnowledge(c: MemoryChange): Promise<void> {
    const kb = this.t.knowledge?.();
    if (!kb) throw new HomeAgentError('KNOWLEDGE_UNAVAILABLE', 'the knowledge base is not available', { retryable: true });
    const name = c.target.slice('knowledge:'.length);
    const before = (c.before as { content?: unknown } | undefined)?.content;
    const after = (c.after as { content?: unknown } | undefined)?.content;
    if (kb.contentOf(name) !== (typeof after === 'string' ? after : undefined)) {
      throw new ConflictError(`knowledge entry "${name}" was changed since: undo the later changes first`, { id: c.id });
    }
    if (typeof before === 'string') await kb.create(name, before, { overwrite: true, quiet: true });
    else await kb.delete(name, { quiet: true });
  }

  private undoDocument(c: MemoryChange): void {
    const docs = this.t.docs();
    if (!docs) throw new HomeAgentError('MEMORY_UNAVAILABLE', 'the documents are not available', { retryable: true });
    const before = c.before as DocumentState | undefined;
    const after = c.after as DocumentState | undefined;
    if (after?.doc) {
      if (!docs.has(after.doc.id)) throw new ConflictError(`document ${after.doc.id} is gone already`, { id: after.doc.id });
      docs.remove(after.doc.id);
    }
    if (before?.doc) {
      if (docs.has(before.doc.id)) throw new ConflictError(`document ${before.doc.id} exists again`, { id: before.doc.id });
      docs.restore([before.doc], [unpackVector(before.vec)]);
    }
  }
}

/** Who replaces a turn unless the caller says: the person, resending a message (decision 0550). */
const REPLACER: ChangeMeta = { actor: 'user', tool: 'resend' };

/** Tombstone refs (`sha256:<kind>:<hex>`) as `<kind>:<hex>` keys; anything else is skipped. */
function refSet(refs: readonly string[]): Set<string> {
  const set = new Set<string>();
  for (const ref of refs) {
    const m = typeof ref === 'string' ? TOMBSTONE_REF.exec(ref) : null;
    if (m) set.add(`${m[1]}:${m[2]}`);
  }
  return set;
}

function asState(v: unknown): GraphState {
  const s = v as Partial<GraphState> | undefined;
  return { entities: Array.isArray(s?.entities) ? s.entities : [], relations: Array.isArray(s?.relations) ? s.relations : [] };
}

function checkTurnIds(ids: unknown): string[] {
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > 1000) throw new ValidationError('turnIds must be a list of 1–1000 turn ids', { key: 'turnIds' });
  for (const id of ids) if (typeof id !== 'string' || !TURN_ID.test(id) || id.length > 400) throw new ValidationError(`invalid turn id ${JSON.stringify(String(id).slice(0, 80))}`, { key: 'turnIds' });
  return [...new Set(ids as string[])];
}

/** `1 turn`, `2 turns` (a history summary people read). */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
