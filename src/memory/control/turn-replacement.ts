import type { ContextEvent, Triple } from '../../spec/index.js';
import { REPLACES_META_KEY } from '../../spec/index.js';
import { eventDocument } from '../documents/index.js';
import { loggedTurnEvents } from '../recovery/index.js';
import { ALL, everyTierUp, type ControlTiers } from './control-tiers.js';
import { emptyHeld } from './held-turn.js';
import { sessionOfTurn } from './text-match.js';
import { putBack, sweepTurn, type HeldStore } from './turn-exclusion.js';

/*
 * A turn replaced by a regenerate or an edit-and-resend (decision 0550) leaves the memory tiers for
 * good, and the new turn says the message once. In three steps, each one durable:
 *
 *  1. hold     the gate closes on the turn; what the tiers hold of it is written to its pending row
 *              in `replacements`, then taken out (the new turn does not recall it).
 *  2. send     the new turn's message is logged with `meta.replaces` (the caller's part).
 *  3. commit   the row names the new turn and drops what it held; whatever reached a tier meanwhile
 *              goes too. The row stays: it is the gate that keeps the turn out of every tier. Once
 *              that sweep has run with every tier up, the row is marked done (decision 0600): the
 *              gate keeps the turn out from then on, so no later open sweeps it again.
 *
 * The send fails: what was held is put back and the row goes. A kill between 1 and 3 leaves a
 * pending row: the next open settles it by the session log (`reconcileReplacements`) — the new
 * message is there: commit; it is not: put back. Either the old state or the new, never a turn
 * remembered nowhere.
 */

/** What a pending replacement holds (its row in `replacements`). */
function replacementHold(t: ControlTiers, turnId: string): HeldStore {
  return {
    get: () => t.db.replacement(turnId)?.held ?? emptyHeld(),
    set: (h) => {
      // Nothing is taken out of a tier that is not kept first.
      if (!t.db.setReplacementHeld(turnId, h)) throw new Error(`no pending replacement of ${turnId} to keep its items in`);
    },
  };
}

/** Step 1: the gate closes on `turnId` and what the tiers hold of it is kept in its row, then taken out. Returns how many items. */
export async function holdReplaced(t: ControlTiers, turnId: string): Promise<number> {
  t.db.beginReplacement(turnId, sessionOfTurn(turnId));
  return sweepTurn(t, turnId, { hold: replacementHold(t, turnId) });
}

/**
 * Step 3: `byTurn` is in the session log. What was held goes (`committed` is told then: the
 * replacement is done), then anything a tier took meanwhile — a sweep the next open repeats. Last,
 * the new message is distilled by today's rules, so a fact the old turn gave ("I live in …") is not
 * missing — nor the value it had superseded current again — until the rule distiller's next tick.
 */
export async function commitReplaced(t: ControlTiers, turnId: string, byTurn: string, committed: () => void): Promise<number> {
  t.db.commitReplacement(turnId, sessionOfTurn(turnId), byTurn);
  committed();
  const n = await sweepCommitted(t, turnId);
  try {
    await distillNew(t, byTurn);
  } catch (e) {
    t.log.warn(`memory control: the message of ${byTurn} could not be distilled now (the rule distiller will): ${(e as Error).message}`);
  }
  return n;
}

/**
 * The last step of a committed replacement: whatever a tier still holds of the old turn goes, and
 * when every tier was up for it the row is marked done — a kill before the mark leaves it to the
 * next open, which sweeps it again (decision 0600).
 */
async function sweepCommitted(t: ControlTiers, turnId: string): Promise<number> {
  const whole = everyTierUp(t);
  const n = await sweepTurn(t, turnId, { hold: null });
  if (whole) t.db.markReplacementDone(turnId);
  return n;
}

/** The logged message of a new turn, through today's rules (as a reindex distils what it brings back). */
async function distillNew(t: ControlTiers, byTurn: string): Promise<void> {
  if (!t.distill || !t.sessions) return;
  const sid = sessionOfTurn(byTurn);
  const info = (await t.sessions.list()).find((s) => s.id === sid);
  if (!info) return;
  const said = loggedTurnEvents(info, await t.sessions.events(sid)).filter((x) => x.turnId === byTurn && x.event.kind === 'user');
  if (said.length) await t.distill(said.map((x) => eventDocument(x.event, t.now())));
}

/**
 * The new turn never came (the send failed, or the log has no message replacing it): what was held
 * is put back where it was and the row goes — unless the turn was forgotten meanwhile. Anything a
 * kill left in a tier as well as in the row is gathered into the row first, so nothing is doubled.
 */
export async function putReplacedBack(t: ControlTiers, turnId: string, forgotten: (ref: string) => boolean): Promise<number> {
  const row = t.db.replacement(turnId);
  if (!row || row.byTurn) return 0;
  const hold = replacementHold(t, turnId);
  await sweepTurn(t, turnId, { hold });
  const held = hold.get();
  // A turn also excluded: the put-back writes the documents and the archive past the exclusion's
  // gate, so its exclusion is swept again at the next open (decision 0700) — recorded first.
  t.db.unsweepExclusion(turnId);
  t.db.liftReplacedGate(turnId);
  let n = 0;
  try {
    if (!forgotten(turnId)) n = await putBack(t, turnId, held, forgotten, { fromLog: false });
  } catch (e) {
    // The row still holds it: the gate closes again and what was put back is gathered again.
    t.db.closeReplacedGate(turnId);
    await sweepTurn(t, turnId, { hold, skipFailingTiers: true }).catch(() => undefined);
    throw e;
  }
  t.db.dropReplacement(turnId);
  return n;
}

/** The turn whose logged message says it replaces `turnId` (`meta.replaces`), if its session's log holds one. */
export async function loggedReplacement(t: ControlTiers, turnId: string): Promise<string | undefined> {
  const events = await t.sessions!.events(sessionOfTurn(turnId), ALL);
  const by = events.find((e) => e.kind === 'user' && !e.data?.redacted && (e.data?.meta as Record<string, unknown> | undefined)?.[REPLACES_META_KEY] === turnId);
  return by?.turnId;
}

/**
 * At open (and when the tiers reopen after an import): a pending replacement a kill cut off is
 * settled by the session log; a committed one not marked done — a kill came before its last sweep
 * finished, a tier was down for it, or an import swapped the tiers — is swept again and marked.
 * A done one is not read at all (decision 0600): the work here is what is unfinished, not every
 * replacement ever made. `busy`: replacements in flight in this process, left to their run.
 * `committed` is told of each one this finished (for the history). Returns how many were swept.
 */
export async function reconcileReplacements(
  t: ControlTiers,
  o: { busy: (turnId: string) => boolean; forgotten: (ref: string) => boolean; committed: (turnId: string, byTurn: string) => void },
): Promise<number> {
  let swept = 0;
  for (const r of t.db.unfinishedReplacements()) {
    if (o.busy(r.turnId)) continue;
    swept++;
    try {
      if (r.byTurn) {
        await sweepCommitted(t, r.turnId);
        continue;
      }
      let by: string | undefined;
      try {
        by = t.sessions ? await loggedReplacement(t, r.turnId) : undefined;
      } catch (e) {
        // A log that cannot be read says nothing: the turn is put back (at worst said twice, as
        // before decision 0550), never left nowhere.
        t.log.warn(`memory control: the log of ${r.sessionId} could not be read to settle the replacement of ${r.turnId}: ${(e as Error).message}`);
      }
      if (by) {
        await commitReplaced(t, r.turnId, by, () => o.committed(r.turnId, by));
        t.log.info(`memory control: finished replacing ${r.turnId} with ${by} (cut off by a stop)`);
      } else {
        await putReplacedBack(t, r.turnId, o.forgotten);
        t.log.info(`memory control: ${r.turnId} was not replaced (its new message never reached the log); it is back in memory`);
      }
    } catch (e) {
      t.log.error(`memory control: settling the replacement of ${r.turnId} failed; the next start tries again: ${(e as Error).message}`);
    }
  }
  return swept;
}

/**
 * The gate's part for a replaced turn: an event or fact of a pending replacement is kept with it
 * (put back with it if the new turn never comes); of a finished one, dropped. True when `turnId`
 * is replaced (then the caller admits nothing of it).
 */
export function holdForReplaced(t: ControlTiers, turnId: string, item: { event?: ContextEvent; triple?: Triple }): boolean {
  if (!t.db.isReplaced(turnId)) return false;
  const r = t.db.replacement(turnId);
  if (r && !r.byTurn) {
    if (item.event && !r.held.events.some((x) => x.id === item.event!.id)) r.held.events.push(item.event);
    if (item.triple) r.held.triples.push(item.triple);
    t.db.setReplacementHeld(turnId, r.held);
  }
  return true;
}
