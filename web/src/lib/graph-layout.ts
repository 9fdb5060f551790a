import { forceCenter, forceCollide, forceLink, forceManyBody, forceSimulation, type SimulationLinkDatum, type SimulationNodeDatum } from 'd3-force';

export interface LayoutNode {
  id: string;
  depth?: number;
}
export interface LayoutEdge {
  from: string;
  to: string;
}
export type Positions = Record<string, { x: number; y: number }>;

/** Colors of memory tags (seed 001): convention blue, 会话总结 green, 复盘 orange, others gray. */
export function tagColor(tags: string[] | undefined): string {
  const t = tags ?? [];
  if (t.includes('convention')) return '#3b82f6';
  if (t.includes('会话总结')) return '#22a559';
  if (t.includes('复盘')) return '#f08c2e';
  return '#8a94a6';
}

/**
 * Deterministic radial layout of a focus neighbourhood: the focus at the centre, 1-hop nodes
 * evenly on an inner ring (sorted by id), 2-hop nodes on an outer ring next to the 1-hop node
 * they hang from. Same input → same positions.
 */
export function radialLayout(nodes: LayoutNode[], edges: LayoutEdge[], focus: string, radius = 180): Positions {
  const pos: Positions = {};
  pos[focus] = { x: 0, y: 0 };
  const adj = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!adj.has(e.from)) adj.set(e.from, new Set());
    if (!adj.has(e.to)) adj.set(e.to, new Set());
    adj.get(e.from)!.add(e.to);
    adj.get(e.to)!.add(e.from);
  }
  const depthOf = (n: LayoutNode) => (n.id === focus ? 0 : n.depth ?? (adj.get(focus)?.has(n.id) ? 1 : 2));
  const ring1 = nodes.filter((n) => depthOf(n) === 1).map((n) => n.id).sort();
  const ring2 = nodes.filter((n) => depthOf(n) >= 2).map((n) => n.id).sort();
  const angle1 = new Map<string, number>();
  ring1.forEach((id, i) => {
    const a = (2 * Math.PI * i) / Math.max(ring1.length, 1) - Math.PI / 2;
    angle1.set(id, a);
    pos[id] = { x: round(Math.cos(a) * radius), y: round(Math.sin(a) * radius) };
  });
  // Each 2-hop node sits in the sector of its parent (the first 1-hop neighbour by id).
  const parentOf = (id: string) => [...(adj.get(id) ?? [])].filter((p) => angle1.has(p)).sort()[0];
  const groups = new Map<string, string[]>();
  for (const id of ring2) {
    const p = parentOf(id) ?? '';
    groups.set(p, [...(groups.get(p) ?? []), id]);
  }
  const sector = (2 * Math.PI) / Math.max(ring1.length, 1);
  for (const [parent, ids] of groups) {
    const base = parent ? angle1.get(parent)! : -Math.PI / 2;
    const width = parent ? sector * 0.9 : 2 * Math.PI;
    ids.forEach((id, j) => {
      const a = parent ? base + (j - (ids.length - 1) / 2) * (width / Math.max(ids.length, 1)) : base + (j * width) / ids.length;
      pos[id] = { x: round(Math.cos(a) * radius * 2), y: round(Math.sin(a) * radius * 2) };
    });
  }
  return pos;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

type SimNode = SimulationNodeDatum & { id: string };

/**
 * Force-directed layout (d3-force), run for a fixed number of iterations (160) without animation.
 * `onProgress` is called with the share done (0…1) every 10 iterations. With `known` (positions of
 * an earlier layout), the nodes it holds stay exactly where they are and only the others are laid
 * out, starting beside the placed nodes they link to — the graph a person is looking at does not
 * move when a memory is added.
 */
export function forceLayout(nodes: LayoutNode[], edges: LayoutEdge[], iterations = 160, onProgress?: (done: number) => void, known?: Positions): Positions {
  const simNodes: SimNode[] = nodes.map((n) => ({ id: n.id }));
  const ids = new Set(simNodes.map((n) => n.id));
  const links: SimulationLinkDatum<SimNode>[] = edges.filter((e) => ids.has(e.from) && ids.has(e.to) && e.from !== e.to).map((e) => ({ source: e.from, target: e.to }));
  const pinned = known ? placeAround(simNodes, edges, known) : 0;
  const big = nodes.length > 600;
  const sim = forceSimulation(simNodes)
    .force('link', forceLink<SimNode, SimulationLinkDatum<SimNode>>(links).id((d) => d.id).distance(60).strength(0.4))
    .force('charge', forceManyBody().strength(big ? -30 : -140).theta(0.9).distanceMax(big ? 250 : 600))
    .force('collide', forceCollide(big ? 6 : 14))
    .stop();
  // Centring would pull the new nodes toward the middle while the placed ones cannot follow.
  if (!pinned) sim.force('center', forceCenter(0, 0));
  for (let i = 0; i < iterations; i++) {
    sim.tick();
    if (onProgress && (i + 1) % 10 === 0) onProgress((i + 1) / iterations);
  }
  const out: Positions = {};
  for (const n of simNodes) out[n.id] = known?.[n.id] ? { ...known[n.id] } : { x: round(n.x ?? 0), y: round(n.y ?? 0) };
  return out;
}

/**
 * Pins the nodes `known` places there, and starts each other one beside the placed nodes it links
 * to (or on a ring just outside the placed graph), in a deterministic order. Returns how many were pinned.
 */
function placeAround(simNodes: SimNode[], edges: LayoutEdge[], known: Positions): number {
  const placed = simNodes.filter((n) => known[n.id]);
  for (const n of placed) {
    n.x = n.fx = known[n.id].x;
    n.y = n.fy = known[n.id].y;
  }
  if (!placed.length) return 0;
  let cx = 0;
  let cy = 0;
  for (const n of placed) {
    cx += n.x!;
    cy += n.y!;
  }
  cx /= placed.length;
  cy /= placed.length;
  const reach = Math.max(60, ...placed.map((n) => Math.hypot(n.x! - cx, n.y! - cy)));
  const fresh = simNodes.filter((n) => !known[n.id]);
  fresh.forEach((n, i) => {
    const next = edges.flatMap((e) => (e.from === n.id ? [e.to] : e.to === n.id ? [e.from] : [])).filter((id) => known[id]);
    // Spread around a point so two new nodes never start on the same spot.
    const a = i * 2.39996; // the golden angle
    if (next.length) {
      const x = next.reduce((s, id) => s + known[id].x, 0) / next.length;
      const y = next.reduce((s, id) => s + known[id].y, 0) / next.length;
      n.x = x + Math.cos(a) * 40;
      n.y = y + Math.sin(a) * 40;
    } else {
      n.x = cx + Math.cos(a) * (reach + 40);
      n.y = cy + Math.sin(a) * (reach + 40);
    }
  });
  return placed.length;
}

/** What a graph's new data needs: the old positions as they are, a layout of the new nodes only, or a whole new layout. */
export type RelayoutPlan = { kind: 'keep'; positions: Positions } | { kind: 'add'; known: Positions; fresh: number } | { kind: 'full' };

/** Past this many new nodes (and this share of the graph) the graph is laid out anew instead of around what is there. */
export const ADD_AT_MOST = 10;
export const ADD_AT_MOST_SHARE = 0.25;

/**
 * How a graph already laid out (`previous`) takes new data: nothing new → the same positions (a
 * title changed, a node left); a few new nodes → only they are laid out (forceLayout's `known`);
 * many, or none of the old ones left → a new layout.
 */
export function relayoutPlan(previous: Positions | undefined, nodes: readonly LayoutNode[]): RelayoutPlan {
  if (!previous) return { kind: 'full' };
  const known: Positions = {};
  let fresh = 0;
  for (const n of nodes) {
    const p = previous[n.id];
    if (p) known[n.id] = p;
    else fresh++;
  }
  const kept = nodes.length - fresh;
  if (kept === 0) return { kind: 'full' };
  if (fresh === 0) return { kind: 'keep', positions: known };
  return fresh <= Math.max(ADD_AT_MOST, nodes.length * ADD_AT_MOST_SHARE) ? { kind: 'add', known, fresh } : { kind: 'full' };
}
