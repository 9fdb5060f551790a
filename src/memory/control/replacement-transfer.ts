import { ValidationError } from '../../spec/index.js';
import type { ControlTiers } from './control-tiers.js';
import { sessionOfTurn } from './text-match.js';
import { TURN_ID } from './tombstone-match.js';
import { sweepTurn } from './turn-exclusion.js';

/*
 * Replacements in an export and an import (decision 0620). A finished replacement (decision 0550)
 * travels as its two turn ids; the import (which has checked them against the session log that
 * comes in) records it here as finished, through the same `commitReplacement` a resend uses, so
 * the gate keeps the old turn out of every tier and each open of the tiers sweeps it again.
 */

/** A finished replacement: `turnId` was said again as `byTurn`. */
export interface ReplacementRow {
  turnId: string;
  byTurn: string;
}

/** Every finished replacement (a pending one is not: its row holds the turn, which may yet come back). */
export function finishedReplacements(t: ControlTiers): ReplacementRow[] {
  return t.db.committedReplacements();
}

/**
 * Records the replacements an import brought. One of a turn with a replacement here (pending or
 * done) is left as it is: this install's own record wins. The old turn's copies leave the tiers
 * that are open now (during an import they are closed; their reopening sweeps every finished
 * replacement). Returns how many were new.
 */
export async function addImportedReplacements(t: ControlTiers, rows: readonly ReplacementRow[]): Promise<number> {
  const ok = (id: unknown): id is string => typeof id === 'string' && id.length <= 400 && TURN_ID.test(id);
  for (const r of rows) {
    if (!ok(r.turnId) || !ok(r.byTurn) || r.turnId === r.byTurn || sessionOfTurn(r.turnId) !== sessionOfTurn(r.byTurn)) {
      throw new ValidationError(`invalid replacement ${JSON.stringify(String(r.turnId).slice(0, 80))} → ${JSON.stringify(String(r.byTurn).slice(0, 80))}`, { key: 'replacements' });
    }
  }
  const added: string[] = [];
  for (const r of rows) {
    if (t.db.replacement(r.turnId)) continue;
    t.db.commitReplacement(r.turnId, sessionOfTurn(r.turnId), r.byTurn);
    added.push(r.turnId);
  }
  for (const id of added) {
    try {
      await sweepTurn(t, id, { hold: null, skipFailingTiers: true });
    } catch (e) {
      t.log.warn(`memory control: the copies of imported replaced turn ${id} are taken out at the tiers' next open: ${(e as Error).message}`);
    }
  }
  return added.length;
}
