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
 * `onProgress` is called with the share done (0…1) every 10 iterations.
 */
export function forceLayout(nodes: LayoutNode[], edges: LayoutEdge[], iterations = 160, onProgress?: (done: number) => void): Positions {
  const simNodes: SimNode[] = nodes.map((n) => ({ id: n.id }));
  const ids = new Set(simNodes.map((n) => n.id));
  const links: SimulationLinkDatum<SimNode>[] = edges.filter((e) => ids.has(e.from) && ids.has(e.to) && e.from !== e.to).map((e) => ({ source: e.from, target: e.to }));
  const big = nodes.length > 600;
  const sim = forceSimulation(simNodes)
    .force('link', forceLink<SimNode, SimulationLinkDatum<SimNode>>(links).id((d) => d.id).distance(60).strength(0.4))
    .force('charge', forceManyBody().strength(big ? -30 : -140).theta(0.9).distanceMax(big ? 250 : 600))
    .force('collide', forceCollide(big ? 6 : 14))
    .force('center', forceCenter(0, 0))
    .stop();
  for (let i = 0; i < iterations; i++) {
    sim.tick();
    if (onProgress && (i + 1) % 10 === 0) onProgress((i + 1) / iterations);
  }
  const out: Positions = {};
  for (const n of simNodes) out[n.id] = { x: round(n.x ?? 0), y: round(n.y ?? 0) };
  return out;
}
