/**
 * Drawing the graph on a 2D canvas whose transform already maps world → device pixels. No DOM:
 * the same code runs on the page and in the render worker (render-worker.ts).
 * `drawBase` is the whole graph (cached as a bitmap by GraphCanvas); `drawHighlight` is the cheap
 * layer drawn on top every frame: the hovered or selected node with its neighbours, the rest dimmed.
 */

/** Both kinds of 2D context draw the graph: the page's canvas and a render worker's OffscreenCanvas. */
export type Ctx2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

export interface CanvasNode {
  id: string;
  label: string;
  color: string;
  x: number;
  y: number;
  r?: number;
  faded?: boolean;
}
export interface CanvasEdge {
  from: string;
  to: string;
  style: 'solid' | 'dashed' | 'dotted';
  label?: string;
}

export interface SceneColors {
  edge: string;
  text: string;
  bg: string;
}

export interface Scene {
  nodes: CanvasNode[];
  edges: CanvasEdge[];
  byId: Map<string, CanvasNode>;
}

/** A world-space rectangle (what is visible, for label culling). */
export interface WorldBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

const LIT = '#6d83f2';
/** Labels are the expensive part of a frame: at most this many per render, only inside `visible`. */
export const MAX_LABELS = 300;
/** Screen pixels from a node's disc to its label's baseline, and the label's whole height below the disc. */
export const LABEL_BASELINE = 13;
export const LABEL_DEPTH = 17;
/** The font of node labels at `px` world units (12 screen pixels at any zoom). */
export const labelFont = (px: number) => `${px}px system-ui, "WenQuanYi Micro Hei", sans-serif`;

/**
 * Node labels are drawn when zoomed in far enough to read them (or when there are few nodes in the
 * rendered area — two thirds of the label budget, about 200 on one screen); otherwise only the
 * highlighted ones are labelled.
 */
export function labelsFit(nodesInArea: number, maxLabels: number, k: number): boolean {
  return nodesInArea <= (maxLabels * 2) / 3 || k > 0.9;
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * Greedy label placement: in node order (the newest memories first), a label is kept only when its
 * box overlaps no `obstacle` (the node discs) and no label kept before, so dense areas show some
 * readable titles instead of a smear, and no label hides a node. Returns the kept indices.
 * Boxes are in world units; a uniform grid keeps the overlap test near O(1).
 */
export function placeLabels(items: Box[], max: number, obstacles: Box[] = []): number[] {
  const kept: number[] = [];
  if (items.length === 0) return kept;
  const cell = Math.max(...items.slice(0, 50).map((b) => Math.max(b.w, b.h)), 1);
  const grid = new Map<string, Box[]>();
  const span = (b: Box, fn: (key: string) => boolean | void) => {
    const cx1 = Math.floor((b.x + b.w) / cell);
    const cy1 = Math.floor((b.y + b.h) / cell);
    for (let cx = Math.floor(b.x / cell); cx <= cx1; cx++) for (let cy = Math.floor(b.y / cell); cy <= cy1; cy++) if (fn(`${cx},${cy}`) === false) return false;
    return true;
  };
  // Boxes that overlap share at least one cell, so looking in a box's own cells is enough.
  const add = (b: Box) => {
    span(b, (k) => {
      const g = grid.get(k);
      if (g) g.push(b);
      else grid.set(k, [b]);
    });
  };
  const hits = (b: Box, o: Box) => b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h;
  for (const o of obstacles) add(o);
  for (let i = 0; i < items.length && kept.length < max; i++) {
    const b = items[i];
    if (!span(b, (k) => !(grid.get(k) ?? []).some((o) => hits(b, o)))) continue;
    kept.push(i);
    add(b);
  }
  return kept;
}

/** The text under a node: long titles end in an ellipsis. */
export function labelText(n: Pick<CanvasNode, 'label'>): string {
  return n.label.length > 24 ? `${n.label.slice(0, 23)}…` : n.label;
}

function dash(ctx: Ctx2D, style: CanvasEdge['style'], k: number) {
  ctx.setLineDash(style === 'dashed' ? [6 / k, 4 / k] : style === 'dotted' ? [1.5 / k, 3 / k] : []);
}

function strokeEdges(ctx: Ctx2D, scene: Scene, list: CanvasEdge[]) {
  ctx.beginPath();
  for (const e of list) {
    const a = scene.byId.get(e.from);
    const b = scene.byId.get(e.to);
    if (!a || !b) continue;
    ctx.moveTo(a.x, a.y);
    ctx.lineTo(b.x, b.y);
  }
  ctx.stroke();
}

function fillNodes(ctx: Ctx2D, list: CanvasNode[]) {
  ctx.beginPath();
  for (const n of list) {
    const r = n.r ?? 6;
    ctx.moveTo(n.x + r, n.y);
    ctx.arc(n.x, n.y, r, 0, Math.PI * 2);
  }
  ctx.fill();
}

/** One stroke per edge style (solid / dashed / dotted) with the current stroke style. */
function strokeByStyle(ctx: Ctx2D, scene: Scene, edges: CanvasEdge[], k: number) {
  for (const [style, list] of groupBy(edges, (e) => e.style)) {
    dash(ctx, style as CanvasEdge['style'], k);
    strokeEdges(ctx, scene, list);
  }
  ctx.setLineDash([]);
}

/** One fill per node colour; disabled (faded) nodes at `fadedAlpha`. */
function fillByColour(ctx: Ctx2D, nodes: CanvasNode[], fadedAlpha: number) {
  for (const [key, list] of groupBy(nodes, (n) => `${n.faded ? 1 : 0}${n.color}`)) {
    ctx.globalAlpha = key[0] === '1' ? fadedAlpha : 1;
    ctx.fillStyle = key.slice(1);
    fillNodes(ctx, list);
  }
  ctx.globalAlpha = 1;
}

function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const g = m.get(k);
    if (g) g.push(it);
    else m.set(k, [it]);
  }
  return m;
}

function drawLabel(ctx: Ctx2D, n: CanvasNode, k: number) {
  ctx.fillText(labelText(n), n.x, n.y + (n.r ?? 6) + LABEL_BASELINE / k);
}

function inBox(n: { x: number; y: number }, box: WorldBox): boolean {
  return n.x >= box.x0 && n.x <= box.x1 && n.y >= box.y0 && n.y <= box.y1;
}

/** The whole graph: one stroke per edge style, one fill per node colour, labels when they fit. */
export function drawBase(ctx: Ctx2D, scene: Scene, k: number, visible: WorldBox, colors: SceneColors, maxLabels = MAX_LABELS): void {
  // One CSS pixel: at a device-pixel ratio of 1 that is a hairline, which software rasterizers draw
  // ~30× faster than a 1.2 px stroke (bench/webui-graph.bench.ts: 2,000 nodes, 3,262 edges).
  ctx.lineWidth = 1 / k;
  ctx.strokeStyle = colors.edge;
  ctx.globalAlpha = 0.75;
  strokeByStyle(ctx, scene, scene.edges, k);
  fillByColour(ctx, scene.nodes, 0.35);
  ctx.fillStyle = colors.text;
  ctx.textAlign = 'center';
  const inArea = scene.nodes.filter((n) => inBox(n, visible));
  if (labelsFit(inArea.length, maxLabels, k)) {
    ctx.font = labelFont(12 / k);
    // Each label's box (centred under its node, 2 px of air around it), then only those that fit.
    const boxes = inArea.map((n) => {
      const w = ctx.measureText(labelText(n)).width + 4 / k;
      return { x: n.x - w / 2, y: n.y + (n.r ?? 6) + 1 / k, w, h: 16 / k };
    });
    const discs = inArea.map((n) => {
      const r = n.r ?? 6;
      return { x: n.x - r, y: n.y - r, w: 2 * r, h: 2 * r };
    });
    for (const i of placeLabels(boxes, maxLabels, discs)) drawLabel(ctx, inArea[i], k);
  }
  if (k > 1.2) {
    ctx.globalAlpha = 0.8;
    ctx.font = `${10 / k}px system-ui, sans-serif`;
    for (const e of scene.edges) {
      if (!e.label) continue;
      const a = scene.byId.get(e.from);
      const b = scene.byId.get(e.to);
      if (!a || !b || !(inBox(a, visible) || inBox(b, visible))) continue;
      ctx.fillText(e.label, (a.x + b.x) / 2, (a.y + b.y) / 2 - 3 / k);
    }
    ctx.globalAlpha = 1;
  }
}

/** The highlighted node and its direct neighbours. */
export function neighbourhood(edges: CanvasEdge[], id: string): Set<string> {
  const s = new Set([id]);
  for (const e of edges) {
    if (e.from === id) s.add(e.to);
    if (e.to === id) s.add(e.from);
  }
  return s;
}

/**
 * The highlight layer: the base is dimmed by a veil of the background colour, then the lit edges,
 * the neighbourhood and its labels are drawn again at full strength, and the selection ringed.
 * `veil` is called with the transform to device pixels already reset.
 */
export function drawHighlight(ctx: Ctx2D, scene: Scene, k: number, hl: string | undefined, selected: string | undefined, colors: SceneColors, veil: () => void): void {
  if (hl && scene.byId.has(hl)) {
    veil();
    const near = neighbourhood(scene.edges, hl);
    const lit = scene.edges.filter((e) => e.from === hl || e.to === hl);
    ctx.lineWidth = 1.6 / k;
    ctx.strokeStyle = LIT;
    ctx.globalAlpha = 1;
    strokeByStyle(ctx, scene, lit, k);
    const nodes = [...near].map((id) => scene.byId.get(id)).filter((n): n is CanvasNode => !!n);
    fillByColour(ctx, nodes, 0.5);
    ctx.fillStyle = colors.text;
    ctx.textAlign = 'center';
    ctx.font = labelFont(12 / k);
    for (const n of nodes.slice(0, MAX_LABELS)) drawLabel(ctx, n, k);
    ctx.globalAlpha = 0.85;
    ctx.font = `${10 / k}px system-ui, sans-serif`;
    for (const e of lit) {
      if (!e.label) continue;
      const a = scene.byId.get(e.from)!;
      const b = scene.byId.get(e.to)!;
      if (a && b) ctx.fillText(e.label, (a.x + b.x) / 2, (a.y + b.y) / 2 - 3 / k);
    }
    ctx.globalAlpha = 1;
  }
  const sel = selected ? scene.byId.get(selected) : undefined;
  if (sel) {
    ctx.globalAlpha = 1;
    ctx.strokeStyle = colors.text;
    ctx.lineWidth = 2 / k;
    ctx.beginPath();
    ctx.arc(sel.x, sel.y, (sel.r ?? 6) + 1 / k, 0, Math.PI * 2);
    ctx.stroke();
  }
}
