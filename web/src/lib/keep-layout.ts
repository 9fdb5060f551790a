import { relayoutPlan, type LayoutEdge, type LayoutNode, type Positions } from './graph-layout';
import { layoutInWorker } from './layout-client';

/** Iterations for placing a few new nodes around pinned ones; a whole layout takes layoutInWorker's 160. */
const ADD_ITERATIONS = 80;

/**
 * Places a graph's new data the way the graph on screen should take it (decisions 0610, 0690) — the
 * memory graph's overview and the knowledge graph alike: `previous`, the positions shown, keep every
 * node still there where it stands; nothing new → those positions, no layout; a few new nodes → only
 * they are laid out (in the worker, the others pinned); a graph mostly new, or none shown before → a
 * whole layout, announced by `whole()` first (the page may say "computing layout…") and followed by
 * `progress`.
 */
export function layoutKeeping(
  previous: Positions | undefined,
  nodes: readonly LayoutNode[],
  edges: LayoutEdge[],
  on: { whole?: () => void; progress?: (done: number) => void } = {},
): Promise<Positions> {
  const plan = relayoutPlan(previous, nodes);
  const ids = nodes.map((n) => ({ id: n.id }));
  if (plan.kind === 'keep') return Promise.resolve(plan.positions);
  if (plan.kind === 'add') return layoutInWorker(ids, edges, ADD_ITERATIONS, undefined, plan.known);
  on.whole?.();
  return layoutInWorker(ids, edges, 160, on.progress);
}
