import { importNote, REPLACES_META_KEY, type SessionEvent, type TransferPartPlan, type TransferReplacement } from '../spec/index.js';
import { kernelTurnNumber, SESSION_ID_RE } from '../sessions/index.js';
import { sessionOfRef, type RefMap } from './ref-map.js';

/**
 * The archive's replacements (decision 0620) that an import records here: which of its turns a
 * regenerate or an edit-and-resend replaced, so that the old copy — in this archive's tiers, or in
 * an older archive imported before or after — stays out of memory here, as it does there.
 *
 * A turn id names a turn of one install (`cli:default#3` here is another turn than there), and
 * recording a replacement takes the turn out of every tier here. So one is taken only when
 *  - both ids are turns of one session, and the archive's log of it says so: the new turn's message
 *    carries `meta.replaces` naming the old turn (what the resend logs; what 0550's settling reads);
 *  - that log is the one here after the import — the session is new here, the same as ours or
 *    extended by the archive's, or imported beside ours under a new id (then both ids are renamed
 *    with it). Where ours was kept instead (a conflict skipped), the ids would name our turns: left out;
 *  - neither turn is forgotten (here, or in the archive).
 * A hostile archive can thus only mark replaced what the log that stays here says was replaced.
 * One replaced here already keeps this install's record (counted `same`).
 */
export function mergeReplacements(o: {
  theirs: readonly TransferReplacement[];
  /** The archive's sessions whose log is the one here after the import: their id here. */
  landed: ReadonlyMap<string, string>;
  /** The events of each of the archive's session logs, as the archive holds them. */
  logs: ReadonlyMap<string, readonly SessionEvent[]>;
  refs: RefMap;
  /** Turns replaced here already. */
  here: ReadonlySet<string>;
  plan: () => TransferPartPlan;
  notes: string[];
}): TransferReplacement[] {
  const out: TransferReplacement[] = [];
  const seen = new Set<string>();
  let invalid = 0;
  let kept = 0;
  for (const r of o.theirs) {
    if (seen.has(r.turnId)) continue;
    seen.add(r.turnId);
    const p = o.plan();
    const session = sessionOfRef(r.turnId);
    const valid =
      session !== undefined &&
      SESSION_ID_RE.test(session) &&
      kernelTurnNumber(session, r.turnId) !== undefined &&
      kernelTurnNumber(session, r.byTurn) !== undefined &&
      r.turnId !== r.byTurn &&
      saysReplaced(o.logs.get(session), r);
    if (!valid) {
      invalid++;
      p.skipped++;
      continue;
    }
    if (o.refs.forgotten(r.turnId) || o.refs.forgotten(r.byTurn)) {
      p.forgotten++;
      continue;
    }
    if (!o.landed.has(session)) {
      kept++;
      p.skipped++;
      continue;
    }
    const row = { turnId: o.refs.ref(r.turnId)!, byTurn: o.refs.ref(r.byTurn)! };
    if (o.here.has(row.turnId)) {
      p.same++;
      continue;
    }
    p.added++;
    out.push(row);
  }
  if (invalid) o.notes.push(importNote.replacementsInvalid(invalid));
  if (kept) o.notes.push(importNote.replacementsOfKeptSessions(kept));
  return out;
}

/** True when the log holds `byTurn`'s message, logged as the one that replaces `turnId` (and not forgotten). */
function saysReplaced(events: readonly SessionEvent[] | undefined, r: TransferReplacement): boolean {
  return !!events?.some((e) => e.turnId === r.byTurn && e.kind === 'user' && e.data?.redacted !== true && (e.data?.meta as Record<string, unknown> | undefined)?.[REPLACES_META_KEY] === r.turnId);
}
