import type { ChangeMeta, ContextEvent, Disposer, ForgetParticipant, ForgetPlan, ForgetRequest, ForgetResult, HistoryQuery, MemoryChange, MemoryControlService, NewMemoryChange, Triple, UndoHandler } from '../../spec/index.js';
import type { MemoryDocument } from '../documents/index.js';
import type { GraphChange } from '../graph/index.js';
import { ControlHistory } from './control-history.js';
import { ControlQueue } from './control-queue.js';
import type { ControlTiers } from './control-tiers.js';
import { ControlTombstones } from './control-tombstones.js';
import { ControlUndo } from './control-undo.js';
import { ExclusionControl } from './exclusion-control.js';
import { deleteForgottenFiles } from './forget-files.js';
import { ForgetControl } from './forget-control.js';
import type { packVector } from './held-turn.js';
import { IngestGate } from './ingest-gate.js';
import { ReplacementControl } from './replacement-control.js';
import { applyTombstones, previewTombstones } from './tombstone-apply.js';
import { addImportedReplacements, finishedReplacements, type ReplacementRow } from './replacement-transfer.js';

/**
 * Memory the user controls (M-9, K-2, K-3): the exclusion gate every tier and ingest path consults,
 * forget with tombstones, and the history of changes with undo — `host.memory-control`. Lives in
 * the memory subsystem because it works on every tier; the memory manager feeds it exclusions,
 * records its library and plan changes in it, and takes part in forget and undo.
 *
 * A facade: each concept is its own part — {@link ExclusionControl}, {@link ReplacementControl}
 * (decision 0550), {@link IngestGate}, {@link ForgetControl}, {@link ControlTombstones},
 * {@link ControlHistory}, {@link ControlUndo} — and the writes of all of them share one
 * {@link ControlQueue}: each reads and rewrites several tiers.
 */
export class MemoryControl implements MemoryControlService {
  private readonly queue = new ControlQueue();
  private readonly stones: ControlTombstones;
  private readonly log: ControlHistory;
  private readonly gate: IngestGate;
  private readonly exclusions: ExclusionControl;
  private readonly replacements: ReplacementControl;
  private readonly forgets: ForgetControl;
  private readonly undos: ControlUndo;

  constructor(private readonly t: ControlTiers) {
    this.stones = new ControlTombstones(t);
    const forgotten = (ref: string) => this.stones.isTombstoned(ref);
    this.log = new ControlHistory(t);
    this.gate = new IngestGate(t, forgotten);
    this.exclusions = new ExclusionControl(t, this.queue, this.log, forgotten);
    this.replacements = new ReplacementControl(t, this.queue, this.log, forgotten);
    this.forgets = new ForgetControl(t, this.queue, this.log);
    this.undos = new ControlUndo(t, this.queue, this.log, this.exclusions);
  }

  /**
   * At open: the files a forget committed to deleting are deleted (a kill cut it off); forgets cut
   * off are finished; replacements not done are settled or swept (decisions 0550, 0600); excluded
   * turns not swept since they were excluded or something could bring them back are swept
   * (decision 0700). Returns how many replaced and excluded turns were swept.
   */
  async reconcile(): Promise<{ replacements: number; exclusions: number }> {
    // Files a committed forget had not deleted yet when it was cut off (decision 0370).
    const left = this.t.db.forgetFiles();
    if (left.length) this.t.log.info(`memory control: deleted ${deleteForgottenFiles(this.t, left)} file(s) of a forget that was cut off`);
    await this.forgets.finishPendingForgets();
    const replacements = await this.replacements.reconcile();
    const exclusions = await this.exclusions.sweepUnswept();
    return { replacements, exclusions };
  }

  /**
   * The tiers' files were swapped (an import, K-5): what they hold now was never swept, so every
   * replacement and every exclusion is unfinished again (decisions 0600, 0700) — recorded before they reopen, so a kill in the
   * middle of the sweep that follows leaves the rest to the next start.
   */
  tiersSwapped(): void {
    this.t.db.unfinishAll();
  }

  /**
   * Once per start (not at an import's reopen): what finished forgets owe a participant that has
   * not registered in three starts (a plugin switched off or removed) is given up — the record
   * holds the forgotten texts (decision 0420).
   */
  ageOwed(): void {
    this.forgets.ageOwed();
  }

  // ---------- exclusion (M-9) ----------

  excluded(): string[] {
    return this.exclusions.excluded();
  }

  isExcluded(turnId: string): boolean {
    return this.exclusions.isExcluded(turnId);
  }

  exclude(turnIds: string[], meta: ChangeMeta = {}): Promise<{ turns: number; held: number }> {
    return this.exclusions.exclude(turnIds, meta);
  }

  restore(turnIds: string[], meta: ChangeMeta = {}): Promise<{ turns: number; restored: number }> {
    return this.exclusions.restore(turnIds, meta);
  }

  onExclusionChange(fn: (e: { turnIds: string[]; excluded: boolean }) => void): Disposer {
    return this.exclusions.onExclusionChange(fn);
  }

  // ---------- replacement (decision 0550) ----------

  /** Regenerate and edit-and-resend: see {@link ReplacementControl.replaceTurn}. */
  replaceTurn(turnId: string, send: (meta: Record<string, unknown>) => Promise<string>, meta: ChangeMeta = {}): Promise<{ turnId: string; replaced: boolean; removed: number }> {
    return this.replacements.replaceTurn(turnId, send, meta);
  }

  /** Finished replacements, for an export (decision 0620). */
  replacedTurns(): ReplacementRow[] {
    return finishedReplacements(this.t);
  }

  /** Replacements an import brought, recorded (decision 0620); unfinished, so the tiers' next open sweeps them (decision 0600). */
  addReplacements(rows: readonly ReplacementRow[]): Promise<number> {
    return this.queue.run(() => addImportedReplacements(this.t, rows));
  }

  // ---------- the ingest gate ----------

  /** True when ingest must skip a turn: excluded, replaced (decision 0550), or forgotten. */
  blocks(turnId: string): boolean {
    return this.gate.blocks(turnId);
  }

  /** The context window's gate: an event of an excluded or forgotten turn does not enter it. */
  admitEvent(e: ContextEvent): boolean {
    return this.gate.admitEvent(e);
  }

  /** An event refused by the gate: kept with its excluded turn, or its turn's pending replacement (a forgotten one is dropped). */
  holdEvent(e: ContextEvent): void {
    this.gate.holdEvent(e);
  }

  /**
   * The graph's gate: facts citing an excluded turn are held with it; facts citing a forgotten turn,
   * and forgotten facts distilled again from what was said before the forget, are dropped.
   */
  admitTriples<T extends Triple>(triples: T[]): T[] {
    return this.gate.admitTriples(triples);
  }

  // ---------- forget (K-2) ----------

  forgetPreview(request: ForgetRequest): Promise<ForgetPlan> {
    return this.forgets.forgetPreview(request);
  }

  forget(request: Omit<ForgetRequest, 'query'>, meta: ChangeMeta = {}): Promise<ForgetResult> {
    return this.forgets.forget(request, meta);
  }

  registerForgetParticipant(name: string, participant: ForgetParticipant): Disposer {
    return this.forgets.registerForgetParticipant(name, participant);
  }

  /** Resolves once what forgets finished at open owed `name` has been given to it (decision 0420). */
  settled(name: string): Promise<void> {
    return this.forgets.settled(name);
  }

  /** Forgets what this install still holds of its tombstones: see {@link applyTombstones}. */
  applyTombstones(meta: ChangeMeta = {}, opts: { byContent?: boolean; refs?: readonly string[] } = {}): Promise<ForgetResult | undefined> {
    return applyTombstones(this.t, this.stones, (request, m) => this.forget(request, m), meta, opts);
  }

  /** What {@link applyTombstones} would forget here if these refs (`sha256:<kind>:<hex>`, an archive's) were recorded: counts only. */
  previewTombstones(refs: readonly string[]): Promise<{ turns: number; facts: number; documents: number; files: number }> {
    return previewTombstones(this.t, refs);
  }

  // ---------- tombstones ----------

  isTombstoned(turnId: string): boolean {
    return this.stones.isTombstoned(turnId);
  }

  isTombstonedContent(text: string): boolean {
    return this.stones.isTombstonedContent(text);
  }

  isTombstonedPair(message: string, reply: string): boolean {
    return this.stones.isTombstonedPair(message, reply);
  }

  isTombstonedDocument(id: string): boolean {
    return this.stones.isTombstonedDocument(id);
  }

  isTombstonedFact(subject: string, predicate: string, object: string): boolean {
    return this.stones.isTombstonedFact(subject, predicate, object);
  }

  /** Records that the person deleted a fact (decision 0490): see {@link ControlTombstones.markDeletedFact}. */
  markDeletedFact(subject: string, predicate: string, object: string): void {
    this.stones.markDeletedFact(subject, predicate, object);
  }

  tombstoneRefs(): { ref: string; at: number }[] {
    return this.stones.tombstoneRefs();
  }

  addTombstoneRefs(items: readonly { ref: string; at: number }[]): number {
    return this.stones.addTombstoneRefs(items);
  }

  // ---------- history (K-3) ----------

  record(change: NewMemoryChange): MemoryChange {
    return this.log.record(change);
  }

  runAs<T>(meta: ChangeMeta, fn: () => T): T {
    return this.log.runAs(meta, fn);
  }

  /** Listens to every change recorded in the history (K-3): the `memory_changed` feed (decision 0260). */
  onRecorded(fn: (changes: readonly MemoryChange[]) => void): Disposer {
    return this.log.onRecorded(fn);
  }

  /** GraphDB's change listener: every committed graph write, with who made it. */
  onGraphChanges(changes: readonly GraphChange[]): void {
    this.log.onGraphChanges(changes);
  }

  /** A document added or deleted by a person or a tool (doc_commit, `waiter memory add-doc`, the WebUI). */
  recordDocument(op: 'create' | 'delete', doc: MemoryDocument, vec: Parameters<typeof packVector>[0], meta: ChangeMeta = {}): void {
    this.log.recordDocument(op, doc, vec, meta);
  }

  /** A knowledge-base entry created, edited or deleted by anyone but forget (K-3), with its text before and after. */
  recordKnowledge(c: { op: 'create' | 'update' | 'delete'; name: string; before?: string; after?: string }): void {
    this.log.recordKnowledge(c);
  }

  history(query: HistoryQuery = {}): MemoryChange[] {
    return this.log.history(query);
  }

  // ---------- undo (K-3) ----------

  registerUndo(kind: 'memory' | 'plan', handler: UndoHandler): Disposer {
    return this.undos.registerUndo(kind, handler);
  }

  undo(id: string, meta: ChangeMeta = {}): Promise<MemoryChange> {
    return this.undos.undo(id, meta);
  }
}
