import type { ContextEvent, Triple } from '../../spec/index.js';
import type { ControlTiers } from './control-tiers.js';
import { deletedFactHash, factHash } from './tombstone-hash.js';
import { holdForReplaced } from './turn-replacement.js';

/**
 * The gate every ingest path consults, synchronously (M-9, K-2, decision 0550): the context window
 * (`admitEvent` / `holdEvent`), the graph (`admitTriples`), crash replay and reindex (`blocks`). What
 * an excluded turn or a pending replacement would bring is held with it; what a forgotten or
 * replaced turn would bring is dropped.
 */
export class IngestGate {
  constructor(
    private readonly t: ControlTiers,
    private readonly forgotten: (turnId: string) => boolean,
  ) {}

  /** True when ingest must skip a turn: excluded, replaced (decision 0550), or forgotten. */
  blocks(turnId: string): boolean {
    return this.t.db.isExcluded(turnId) || this.t.db.isReplaced(turnId) || this.forgotten(turnId);
  }

  /** The context window's gate: an event of an excluded or forgotten turn does not enter it. */
  admitEvent(e: ContextEvent): boolean {
    const turn = e.refs?.[0];
    return !turn || !this.blocks(turn);
  }

  /** An event refused by the gate: kept with its excluded turn, or its turn's pending replacement (a forgotten one is dropped). */
  holdEvent(e: ContextEvent): void {
    const turn = e.refs?.[0];
    if (!turn || holdForReplaced(this.t, turn, { event: e }) || !this.t.db.isExcluded(turn)) return;
    const held = this.t.db.held(turn);
    if (!held.events.some((x) => x.id === e.id)) held.events.push(e);
    this.t.db.setHeld(turn, held);
  }

  /**
   * The graph's gate: facts citing an excluded turn are held with it; facts citing a forgotten turn,
   * and forgotten facts distilled again from what was said before the forget, are dropped.
   */
  admitTriples<T extends Triple>(triples: T[]): T[] {
    const db = this.t.db;
    return triples.filter((tr) => {
      const refs = tr.refs ?? [];
      // A replaced turn's first (decision 0550): one both excluded and replaced is not coming back.
      const replaced = refs.find((r) => db.isReplaced(r));
      if (replaced) {
        holdForReplaced(this.t, replaced, { triple: tr });
        return false;
      }
      const excluded = refs.find((r) => db.isExcluded(r));
      if (excluded) {
        const held = db.held(excluded);
        held.triples.push(tr);
        db.setHeld(excluded, held);
        return false;
      }
      if (refs.some((r) => this.forgotten(r))) return false;
      // Forgotten, or deleted by the person (decision 0490): only what is said after that comes back.
      const said = tr.validFrom ?? this.t.now();
      const at = db.hotTombstone(factHash(tr.subject, tr.predicate, tr.object));
      const deleted = db.hotTombstone(deletedFactHash(tr.subject, tr.predicate, tr.object));
      return (at === undefined || said > at) && (deleted === undefined || said > deleted);
    });
  }
}
