import type { MemoryRecord } from './memory-file.js';

/** What graph and related recall need from the library index. */
export interface LinkIndex {
  get(id: string): MemoryRecord | undefined;
  backlinks(id: string): string[];
  /** Memories whose composedOf contains `id`. */
  composedInto(id: string): string[];
  all(): MemoryRecord[];
}

export type GraphEdgeKind = 'link' | 'composedOf' | 'backlink';

export interface GraphNode {
  id: string;
  title: string;
  tags: string[];
  impressions: string[];
  enabled: boolean;
  updatedAt: string;
  /** The start of the memory's text, on one line (what hovering the node shows). */
  preview: string;
  /** Who said it, when the memory records it. */
  speaker?: { id: string; name?: string };
  /** Hops from the focus (focus view only). */
  depth?: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  kind: GraphEdgeKind;
}

export interface MemoryGraph {
  mode: 'overview' | 'focus';
  focus?: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** Characters of a memory's text a graph node carries: a hover's worth, kept short for graphs of thousands. */
export const GRAPH_PREVIEW_CHARS = 100;

function node(r: MemoryRecord, depth?: number): GraphNode {
  const text = r.snapshot.replace(/\s+/g, ' ').trim();
  const chars = Array.from(text);
  const preview = chars.length > GRAPH_PREVIEW_CHARS ? `${chars.slice(0, GRAPH_PREVIEW_CHARS).join('')}…` : text;
  const n: GraphNode = { id: r.id, title: r.title, tags: r.tags, impressions: r.impressions, enabled: r.enabled, updatedAt: r.updatedAt, preview };
  if (r.speaker) n.speaker = r.speaker;
  if (depth !== undefined) n.depth = depth;
  return n;
}

/**
 * Related recall (M-4): breadth-first over `links` and backlinks from `id`, nearest first,
 * without the start itself. Dangling links are skipped.
 */
export function relatedOf(index: LinkIndex, id: string, depth = 2, limit = 20): { id: string; distance: number }[] {
  const seen = new Set([id]);
  const out: { id: string; distance: number }[] = [];
  let frontier = [id];
  for (let d = 1; d <= depth && frontier.length; d++) {
    const next: string[] = [];
    for (const cur of frontier) {
      const rec = index.get(cur);
      const neighbours = [...(rec?.links ?? []), ...index.backlinks(cur)];
      for (const n of neighbours) {
        if (seen.has(n) || !index.get(n)) continue;
        seen.add(n);
        out.push({ id: n, distance: d });
        next.push(n);
        if (out.length >= limit) return out;
      }
    }
    frontier = next;
  }
  return out;
}

/** The overview graph: the latest `limit` memories (by updatedAt) and the edges among them. */
export function overviewGraph(index: LinkIndex, limit = 200): MemoryGraph {
  const recs = index
    .all()
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id))
    .slice(0, Math.max(0, limit));
  const ids = new Set(recs.map((r) => r.id));
  const edges: GraphEdge[] = [];
  for (const r of recs) {
    for (const l of r.links) if (ids.has(l)) edges.push({ from: r.id, to: l, kind: 'link' });
    for (const c of r.composedOf) if (ids.has(c)) edges.push({ from: r.id, to: c, kind: 'composedOf' });
  }
  return { mode: 'overview', nodes: recs.map((r) => node(r)), edges };
}

/**
 * The focus graph: the memory `focus` and its 1–2 hop neighbourhood over links, composedOf and
 * backlinks. A backlink edge points from the memory that links to the node it links to.
 */
export function focusGraph(index: LinkIndex, focus: string, hops: 1 | 2 = 1): MemoryGraph {
  const start = index.get(focus);
  if (!start) return { mode: 'focus', focus, nodes: [], edges: [] };
  const depthOf = new Map([[focus, 0]]);
  const edges: GraphEdge[] = [];
  const edgeKeys = new Set<string>();
  const addEdge = (from: string, to: string, kind: GraphEdgeKind) => {
    const linkKey = `${from}>${to}`;
    if (edgeKeys.has(`${kind}:${linkKey}`)) return;
    if (kind === 'backlink' && edgeKeys.has(`link:${linkKey}`)) return;
    if (kind === 'link' && edgeKeys.has(`backlink:${linkKey}`)) return;
    edgeKeys.add(`${kind}:${linkKey}`);
    edges.push({ from, to, kind });
  };
  let frontier = [focus];
  for (let d = 1; d <= hops; d++) {
    const next: string[] = [];
    for (const cur of frontier) {
      const rec = index.get(cur);
      if (!rec) continue;
      const visit = (other: string, from: string, to: string, kind: GraphEdgeKind) => {
        if (!index.get(other)) return;
        addEdge(from, to, kind);
        if (!depthOf.has(other)) {
          depthOf.set(other, d);
          next.push(other);
        }
      };
      for (const l of rec.links) visit(l, cur, l, 'link');
      for (const c of rec.composedOf) visit(c, cur, c, 'composedOf');
      for (const b of index.backlinks(cur)) visit(b, b, cur, 'backlink');
      for (const p of index.composedInto(cur)) visit(p, p, cur, 'composedOf');
    }
    frontier = next;
  }
  const nodes = [...depthOf].map(([id, depth]) => node(index.get(id) as MemoryRecord, depth));
  return { mode: 'focus', focus, nodes, edges };
}
