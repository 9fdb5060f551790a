import { importNote, type Tombstone } from '../spec/index.js';
import { TURN_STONE, type ForgottenTurns } from './forgotten-turns.js';
import type { MergeContext } from './merge-context.js';

/**
 * The archive's tombstones to record here, and the report's words on the turns left out as
 * forgotten (decisions 0320, 0350, 0540).
 */
export function mergeTombstones(c: MergeContext, theirTombs: readonly Tombstone[], forgotten: ForgottenTurns): Tombstone[] {
  const { notes, plan } = c;
  const forgottenTurns = forgotten.leftOut;
  const theirTurnStones = forgotten.theirTurnStones;
  // Only the tombstones new here are recorded, and only they are applied to what is here (0320
  // review fix 2): one recorded here already is a forget made here (or an earlier import's, applied
  // then), which acted here exactly. (\`isForgotten\` is asked of a turn or item id; a ref is
  // compared with the ledger's own refs.)
  // The archive's turn-id tombstones are not among them (decision 0350, above).
  const have = new Set(theirTombs.length ? c.ledger.tombstones().map((t) => t.ref) : []);
  const tombstones = theirTombs.filter((t) => !t.ref.startsWith(TURN_STONE) && !have.has(t.ref) && !c.ledger.isForgotten(t.ref));
  if (forgottenTurns.here.size) notes.push(importNote.forgottenHereLeftOut(forgottenTurns.here.size));
  if (forgottenTurns.there.size) notes.push(importNote.forgottenThereLeftOut(forgottenTurns.there.size));
  if (theirTurnStones.size) notes.push(importNote.turnTombstones(theirTurnStones.size));
  if (theirTombs.length) {
    plan('tombstones').added = tombstones.length;
    // Those recorded here already (this install's own forgets, an archive of it imported back).
    plan('tombstones').same = theirTombs.filter((t) => !t.ref.startsWith(TURN_STONE) && (have.has(t.ref) || c.ledger.isForgotten(t.ref))).length;
  }
  return tombstones;
}
