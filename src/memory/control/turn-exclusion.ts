import type { ContextEvent } from '../../spec/index.js';
import { eventDocument, type MemoryDocument } from '../documents/index.js';
import { loggedTurnEvents } from '../recovery/index.js';
import type { ControlTiers } from './control-tiers.js';
import { heldIsEmpty, packVector, unpackVector, type HeldTurn } from './held-turn.js';
import { sessionOfTurn } from './text-match.js';

const byId = <T>(list: T[], id: (x: T) => string): T[] => {
  const seen = new Map<string, T>();
  for (const x of list) seen.set(id(x), x);
  return [...seen.values()];
};

/** The texts of some events and documents (what a detached fact's sentence may have been said in). */
function textsOf(events: readonly ContextEvent[], docs: readonly MemoryDocument[]): string[] {
  return [...events.flatMap((e) => [e.input, e.response]), ...docs.flatMap((d) => [d.content, d.input, d.response])].filter((t) => t && t.trim());
}

/** Where a swept turn's items are kept aside: an exclusion's row, or a pending replacement's (decision 0550). */
export interface HeldStore {
  get(): HeldTurn;
  set(held: HeldTurn): void;
}

/** The held payload of an excluded turn (its row in `exclusions`). */
export const exclusionHold = (t: ControlTiers, turnId: string): HeldStore => ({ get: () => t.db.held(turnId), set: (h) => t.db.setHeld(turnId, h) });

/**
 * Takes what the tiers hold of an excluded turn out of them and keeps it aside (M-9): its context
 * events, warm documents and archived rows (with vectors), and its sources in the graph (a fact
 * only it supports goes, a fact others support loses it and a sentence said in it). The held
 * payload is written first and merged with what was held before, so this is idempotent and a kill
 * at any point loses nothing: the next open sweeps again. Returns how many items were taken out.
 * `hold`: where they are kept (the exclusion's row unless said); `null`: nowhere — a replaced turn
 * whose new turn is in the log (decision 0550) leaves memory for good.
 */
export async function sweepTurn(t: ControlTiers, turnId: string, o: { skipFailingTiers?: boolean; hold?: HeldStore | null } = {}): Promise<number> {
  // After a failed restore a tier may be failing: the others are swept all the same (skipFailingTiers).
  const usable = <T>(tier: T | undefined, probe: (x: T) => unknown): T | undefined => {
    if (!tier || !o.skipFailingTiers) return tier;
    try {
      probe(tier);
      return tier;
    } catch {
      return undefined;
    }
  };
  const context = usable(t.context(), (c) => c.events());
  const docs = usable(t.docs(), (d) => d.idsOfTurn(turnId));
  const archive = usable(t.archive(), (a) => a.rowsOfTurn(turnId));
  const graph = usable(t.graph(), (g) => g.peekRefs([turnId]));
  const events = context ? context.events().filter((e) => e.refs?.[0] === turnId) : [];
  const docIds = docs ? docs.idsOfTurn(turnId) : [];
  const warm = docIds.map((id) => ({ doc: docs!.get(id), vec: packVector(docs!.vectorOf(id)) })).filter((x): x is { doc: MemoryDocument; vec: ReturnType<typeof packVector> } => x.doc !== undefined);
  const cold = archive ? archive.rowsOfTurn(turnId) : [];
  // The ids of the turn's items an earlier sweep took out too: a fact that names only one of them
  // (written back by an undo, decision 0700) is the turn's as much as one naming the turn.
  const items = [...events.map((e) => e.id), ...docIds, ...cold.map((r) => r.doc.id)];
  const refs = [...new Set([turnId, ...items, ...t.db.turnRefs(turnId)])];
  const before = graph ? graph.peekRefs(refs) : { entities: [], relations: [] };
  const found = events.length + warm.length + cold.length + before.relations.length;
  if (!found) return 0;
  // Tied to the turn before they are taken out: once they are gone, nothing else says whose they were.
  if (items.length) t.db.addTurnRefs(turnId, items);
  const hold = o.hold === undefined ? exclusionHold(t, turnId) : o.hold;
  if (hold) {
    const held = hold.get();
    held.events = byId([...held.events, ...events], (e) => e.id);
    held.docs = byId([...held.docs, ...warm.map((w) => ({ doc: w.doc, ...(w.vec ? { vec: w.vec } : {}) }))], (d) => d.doc.id);
    held.archived = byId([...held.archived, ...cold.map((r) => ({ doc: r.doc, ...(r.vec ? { vec: packVector(r.vec)! } : {}) }))], (d) => d.doc.id);
    if (before.relations.length) held.graph.push({ before, refs });
    // Kept aside before anything is taken out: a kill in between leaves a copy in both places.
    hold.set(held);
  }
  if (events.length) context!.removeIds(events.map((e) => e.id));
  if (docIds.length) docs!.removeMany(docIds);
  if (cold.length) archive!.deleteIds(cold.map((r) => r.doc.id));
  if (before.relations.length) graph!.detachRefs(refs, textsOf(events, [...warm.map((w) => w.doc), ...cold.map((r) => r.doc)]));
  if (events.length) await context!.flush();
  return found;
}

/**
 * Puts an excluded turn back where it was (M-9 restore): context events into the window at their
 * time, documents and archived rows with their vectors, its sources back into the graph (merged
 * with what was learned meanwhile), facts committed while it was excluded. What the tiers never
 * held of it (a turn excluded before it reached them) is archived from the session log. The gate
 * must already be lifted. Returns how many items came back.
 */
export async function putBack(t: ControlTiers, turnId: string, held: HeldTurn, forgotten: (ref: string) => boolean, o: { fromLog?: boolean } = {}): Promise<number> {
  const context = t.context();
  const docs = t.docs();
  const archive = t.archive();
  const graph = t.graph();
  let n = 0;
  if (context) {
    for (const e of held.events) context.append(e);
    n += held.events.length;
  }
  if (docs && held.docs.length) {
    docs.restore(held.docs.map((d) => d.doc), held.docs.map((d) => unpackVector(d.vec)));
    n += held.docs.length;
  }
  if (archive && held.archived.length) {
    archive.putMany(held.archived.map((d) => d.doc), { vectors: held.archived.map((d) => unpackVector(d.vec)) });
    n += held.archived.length;
  }
  if (graph) {
    for (const g of held.graph) n += graph.reattach(g.before, g.refs.filter((r) => !forgotten(r)));
    if (held.triples.length) n += graph.commit(held.triples);
  }
  if (heldIsEmpty(held) && archive && t.sessions && o.fromLog !== false) n += await archiveFromLog(t, turnId);
  if (context && held.events.length) await context.flush();
  return n;
}

/** Archives a turn's logged user message and reply when no tier holds them (restore of a turn that never reached the tiers). */
async function archiveFromLog(t: ControlTiers, turnId: string): Promise<number> {
  const sid = sessionOfTurn(turnId);
  const info = (await t.sessions!.list()).find((s) => s.id === sid);
  if (!info) return 0;
  const docs = t.docs();
  const archive = t.archive()!;
  const present = (kind: string) => (docs?.hasTurn(turnId, kind) ?? false) || archive.hasTurn(turnId, kind) || (t.context()?.events().some((e) => e.refs?.[0] === turnId && e.kind === kind) ?? false);
  const out = loggedTurnEvents(info, await t.sessions!.events(sid))
    .filter((x) => x.turnId === turnId && !present(x.event.kind))
    .map((x) => eventDocument(x.event, t.now()));
  return out.length ? archive.putMany(out) : 0;
}
