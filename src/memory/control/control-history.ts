import type { ChangeMeta, Disposer, MemoryChange, NewMemoryChange, HistoryQuery } from '../../spec/index.js';
import type { MemoryDocument } from '../documents/index.js';
import type { GraphChange } from '../graph/index.js';
import { currentChangeActor, withChangeActor } from './change-actor.js';
import type { HistoryInsert } from './control-db.js';
import type { ControlTiers } from './control-tiers.js';
import { packVector, type HeldVector } from './held-turn.js';
import { TURN_ID } from './tombstone-match.js';

/** The turn a change came from: a kernel turn id among its refs, else the caller's. */
function turnOf(refs: readonly string[], fallback?: string): string | undefined {
  return refs.find((r) => TURN_ID.test(r)) ?? fallback;
}

/** A document as history keeps it (with its vector, so undo of a delete brings it back whole). */
export interface DocumentState {
  doc: MemoryDocument;
  vec?: HeldVector;
}

/**
 * The history of changes to memory (K-3): every change recorded with who made it (the acting
 * {@link withChangeActor}, unless the change says), when and from which turn; and the listeners that
 * hear each change as it is recorded — the `memory_changed` feed (decision 0260).
 */
export class ControlHistory {
  private readonly listeners = new Set<(changes: readonly MemoryChange[]) => void>();

  constructor(private readonly t: ControlTiers) {}

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
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  /** Tells the listeners of changes just written; returns them. */
  recorded(changes: MemoryChange[]): MemoryChange[] {
    if (changes.length) {
      for (const fn of this.listeners) {
        try {
          fn(changes);
        } catch (e) {
          this.t.log.warn('memory control: a change listener failed', { error: (e as Error).message });
        }
      }
    }
    return changes;
  }

  recordMany(changes: NewMemoryChange[]): MemoryChange[] {
    if (!changes.length) return [];
    return this.recorded(this.t.db.insertChanges(this.inserts(changes)));
  }

  /** History rows of new changes: now, by whoever is acting unless a change says. */
  inserts(changes: readonly NewMemoryChange[]): HistoryInsert[] {
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
      this.t.db.insertChanges(
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
    return this.t.db.history(query);
  }
}
