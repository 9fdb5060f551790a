import type { ChangeMeta, Disposer, MemoryChange, UndoHandler } from '../../spec/index.js';
import { ConflictError, HomeAgentError, NotFoundError } from '../../spec/index.js';
import type { GraphState } from '../graph/index.js';
import type { ControlHistory, DocumentState } from './control-history.js';
import type { ControlQueue } from './control-queue.js';
import type { ControlTiers } from './control-tiers.js';
import type { ExclusionControl } from './exclusion-control.js';
import { unpackVector } from './held-turn.js';
import { deletedFactHash } from './tombstone-hash.js';
import { TURN_ID } from './tombstone-match.js';

/** The ids that tie a document to a turn: its own (an archived event's is the event's) and its refs. */
function documentIds(doc: { id?: unknown; refs?: unknown } | undefined): string[] {
  if (!doc) return [];
  const refs = Array.isArray(doc.refs) ? doc.refs.filter((r): r is string => typeof r === 'string') : [];
  return typeof doc.id === 'string' ? [doc.id, ...refs] : refs;
}

function asState(v: unknown): GraphState {
  const s = v as Partial<GraphState> | undefined;
  return { entities: Array.isArray(s?.entities) ? s.entities : [], relations: Array.isArray(s?.relations) ? s.relations : [] };
}

/**
 * Undo of one recorded change (K-3): graph rows, documents, knowledge entries and exclusions here;
 * the library's and the plan's kinds by the handler the memory manager registers. A forget, a kept
 * fact, an import and a replacement are refused (nothing of them can be put back).
 */
export class ControlUndo {
  private readonly undoers = new Map<string, UndoHandler>();

  constructor(
    private readonly t: ControlTiers,
    private readonly queue: ControlQueue,
    private readonly history: ControlHistory,
    private readonly exclusions: ExclusionControl,
  ) {}

  registerUndo(kind: 'memory' | 'plan', handler: UndoHandler): Disposer {
    this.undoers.set(kind, handler);
    return () => {
      if (this.undoers.get(kind) === handler) this.undoers.delete(kind);
    };
  }

  undo(id: string, meta: ChangeMeta = {}): Promise<MemoryChange> {
    return this.queue.run(async () => {
      const c = this.t.db.change(String(id));
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
            if (back) this.t.db.clearDeletedFact(deletedFactHash(back.subject, back.predicate, back.object));
          }
          this.unfinishSweptIn(before.relations.flatMap((r) => graph.sourcesOf(r.id).map((x) => x.ref)));
          break;
        }
        case 'document':
          this.undoDocument(c);
          this.unfinishSweptIn(documentIds((c.before as DocumentState | undefined)?.doc));
          break;
        case 'knowledge':
          await this.undoKnowledge(c);
          break;
        case 'exclusion': {
          const want = (c.before as { excluded?: boolean } | undefined)?.excluded === true;
          if (want) await this.exclusions.excludeNow([c.target], meta, false);
          else await this.exclusions.restoreNow([c.target], meta, false);
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
      const [u] = this.history.recordMany([{ ...meta, kind: c.kind, target: c.target, subjects: c.subjects, op: 'undo', summary: `undid #${c.id}: ${c.summary}`, before: c.after, after: c.before }]);
      this.t.db.linkUndo(c.id, u.id);
      return this.t.db.change(u.id)!;
    });
  }

  /**
   * An undo writes rows back past the ingest gate: a fact or a document it brings back may come from
   * a turn replaced since (decision 0550), whose replacement is done (decision 0600), or excluded
   * since, whose exclusion is swept (decision 0700). That one is made unfinished, so the next open
   * sweeps the turn out again. A ref ties it to the turn by the turn's id, or by the id of one of
   * its window events, documents or archived rows that a sweep recorded (`turn_refs`).
   */
  private unfinishSweptIn(refs: readonly string[]): void {
    const turns = new Set<string>();
    for (const ref of new Set(refs)) {
      const turn = TURN_ID.test(ref) ? ref : this.t.db.turnOfRef(ref);
      if (turn) turns.add(turn);
    }
    for (const turn of turns) {
      if (this.t.db.isReplacementDone(turn)) this.t.db.unfinishReplacement(turn);
      if (this.t.db.isExclusionSwept(turn)) this.t.db.unsweepExclusion(turn);
    }
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
