import type { ControlTiers } from './control-tiers.js';
import { contentHash, deletedFactHash, distinctiveContent, distinctivePair, docHash, factHash, pairHash, turnHash } from './tombstone-hash.js';

/** A tombstone as an export carries it: its kind and the SHA-256 of what was forgotten. */
export const TOMBSTONE_REF = /^sha256:(turn|content|pair|document|fact|deleted-fact):([0-9a-f]{64})$/;

/** Tombstone refs (`sha256:<kind>:<hex>`) as `<kind>:<hex>` keys; anything else is skipped. */
export function refSet(refs: readonly string[]): Set<string> {
  const set = new Set<string>();
  for (const ref of refs) {
    const m = typeof ref === 'string' ? TOMBSTONE_REF.exec(ref) : null;
    if (m) set.add(`${m[1]}:${m[2]}`);
  }
  return set;
}

/**
 * What was forgotten (K-2), asked by hash: turn ids, what was said, a message with its reply,
 * documents and facts — and the facts the person deleted (decision 0490). Hashes only, never text;
 * an export carries them as `sha256:<kind>:<hex>` refs.
 */
export class ControlTombstones {
  constructor(private readonly t: ControlTiers) {}

  isTombstoned(turnId: string): boolean {
    return typeof turnId === 'string' && this.t.db.hotTombstone(turnHash(turnId)) !== undefined;
  }

  isTombstonedContent(text: string): boolean {
    // A short text is never matched alone (tombstones of such texts recorded by earlier versions included).
    return distinctiveContent(text) && this.t.db.tombstone(contentHash(text)) !== undefined;
  }

  isTombstonedPair(message: string, reply: string): boolean {
    // A reply alone is never matched: only the same reply to the same message (decision 0320).
    return distinctivePair(message, reply) && this.t.db.tombstone(pairHash(message, reply)) !== undefined;
  }

  isTombstonedDocument(id: string): boolean {
    return typeof id === 'string' && this.t.db.hotTombstone(docHash(id)) !== undefined;
  }

  isTombstonedFact(subject: string, predicate: string, object: string): boolean {
    return [subject, predicate, object].every((x) => typeof x === 'string') && this.t.db.hotTombstone(factHash(subject, predicate, object)) !== undefined;
  }

  /**
   * Records that the person deleted a fact (decision 0490): distilled again from words said before
   * now, it is not committed; said again after, it is. Kept with the tombstones and carried by an
   * export as one (`sha256:deleted-fact:…`).
   */
  markDeletedFact(subject: string, predicate: string, object: string): void {
    this.t.db.markDeletedFact(deletedFactHash(subject, predicate, object), this.t.now());
  }

  tombstoneRefs(): { ref: string; at: number }[] {
    return this.t.db.listTombstones().map((s) => ({ ref: `sha256:${s.kind}:${s.hash}`, at: s.at }));
  }

  addTombstoneRefs(items: readonly { ref: string; at: number }[]): number {
    const stones: { hash: string; kind: string; at: number }[] = [];
    for (const it of items) {
      const m = typeof it?.ref === 'string' ? TOMBSTONE_REF.exec(it.ref) : null;
      if (!m) continue;
      const at = Number.isFinite(it.at) && it.at > 0 ? Math.floor(it.at) : this.t.now();
      stones.push({ kind: m[1], hash: m[2], at });
    }
    return stones.length ? this.t.db.addTombstones(stones) : 0;
  }
}
