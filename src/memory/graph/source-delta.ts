import type { GraphState, RelationState, SourceDelta } from './graph-state.js';

/** Relations with at most this many sources are kept whole in a change's history. */
export const WHOLE_SOURCES_MAX = 8;

/**
 * Keeps a change of facts said again small in the history (K-3). A fact said for the hundredth
 * time gains one source, yet its rows before and after hold all hundred: recorded whole, every
 * saying would cost the whole list twice and the history would grow with the square of how often a
 * fact is said (and a forget of one turn would have to rewrite every entry naming it). A relation
 * present before and after, with more than {@link WHOLE_SOURCES_MAX} sources, is kept as a delta:
 * the before-row without its sources, the after-row with what the change added and removed and how
 * many sources it left; the refs column likewise when it can be rebuilt exactly (else kept whole).
 * `undoState` rebuilds the before-row from today's row, which must still be the after-row.
 */
export function compactSourceChange(before: GraphState, after: GraphState): { before: GraphState; after: GraphState } {
  const prior = new Map(before.relations.map((r) => [r.id, r]));
  const keptBefore = new Map<number, RelationState>();
  const relations = after.relations.map((r) => {
    const b = prior.get(r.id);
    if (!b || Math.max(b.sources.length, r.sources.length) <= WHOLE_SOURCES_MAX) return r;
    const had = new Set(b.sources.map((s) => s.ref));
    const has = new Set(r.sources.map((s) => s.ref));
    const delta: SourceDelta = {
      sourcesAdded: r.sources.filter((s) => !had.has(s.ref)),
      sourcesRemoved: b.sources.filter((s) => !has.has(s.ref)),
      sourceCount: r.sources.length,
    };
    const refsBefore = parseRefs(b.refs);
    const refsAfter = parseRefs(r.refs);
    let refsKept = b.refs;
    if (refsBefore && refsAfter) {
      const added = refsAfter.filter((x) => !refsBefore.includes(x));
      const dropped = refsBefore.filter((x) => !refsAfter.includes(x));
      const rebuilt = JSON.stringify([...dropped, ...refsAfter.filter((x) => !added.includes(x))]);
      if (rebuilt === b.refs) {
        delta.refsAdded = added;
        delta.refsDropped = dropped;
        refsKept = '';
      }
    }
    keptBefore.set(r.id, { ...b, sources: [], refs: refsKept, delta: {} });
    return { ...r, sources: [], refs: refsKept === '' ? '' : r.refs, delta };
  });
  return {
    before: { ...before, relations: before.relations.map((r) => keptBefore.get(r.id) ?? r) },
    after: { ...after, relations },
  };
}

function parseRefs(text: string): string[] | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined;
  } catch {
    return undefined;
  }
}
