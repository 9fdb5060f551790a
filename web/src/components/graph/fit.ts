import type { View } from '../../lib/view-cache';
import { labelsFit, labelText, LABEL_DEPTH, MAX_LABELS, type CanvasNode } from './scene';

/** Screen pixels kept free around the graph when it is fitted. */
export const FIT_MARGIN = 24;
const MIN_K = 0.05;
const MAX_K = 2.2;

/**
 * The view that shows the whole graph in a `w`×`h` canvas: every node, and — when the graph is small
 * enough for its labels to be drawn at that scale — every label whole. Labels keep their screen size
 * at any zoom (12 px), so a label at the edge needs room that does not shrink with the graph: a fit
 * by node positions alone cut the titles of the outermost memories in half.
 *
 * `labelWidth` measures a label's text in screen pixels. A label counts for at most a quarter of the
 * canvas on each side, so a few very long titles on a phone cannot shrink the graph to a dot.
 */
export function fitView(nodes: readonly Pick<CanvasNode, 'x' | 'y' | 'r' | 'label'>[], w: number, h: number, labelWidth: (text: string) => number): View {
  if (!nodes.length) return { k: 1, tx: w / 2, ty: h / 2 };
  const innerW = Math.max(1, w - 2 * FIT_MARGIN);
  const innerH = Math.max(1, h - 2 * FIT_MARGIN);
  // Measured only when labels count (thousands of nodes at a small scale draw none).
  let half: number[] | undefined;
  const extents = (k: number, labels: boolean) => {
    let x0 = Infinity;
    let x1 = -Infinity;
    let y0 = Infinity;
    let y1 = -Infinity;
    nodes.forEach((n, i) => {
      const r = (n.r ?? 6) * k;
      const side = labels ? Math.max(r, (half ??= nodes.map((m) => Math.min(labelWidth(labelText(m)) / 2 + 2, innerW / 4)))[i]) : r;
      x0 = Math.min(x0, n.x * k - side);
      x1 = Math.max(x1, n.x * k + side);
      y0 = Math.min(y0, n.y * k - r);
      y1 = Math.max(y1, n.y * k + r + (labels ? LABEL_DEPTH : 0));
    });
    return { x0, x1, y0, y1 };
  };
  const fits = (k: number, labels: boolean) => {
    const e = extents(k, labels);
    return e.x1 - e.x0 <= innerW && e.y1 - e.y0 <= innerH;
  };
  // The extents grow with k (each side is a maximum of lines through its value at k = 0): the
  // largest k that fits is found by halving.
  const largest = (labels: boolean) => {
    if (fits(MAX_K, labels)) return MAX_K;
    let lo = MIN_K;
    let hi = MAX_K;
    for (let i = 0; i < 40; i++) {
      const mid = (lo + hi) / 2;
      if (fits(mid, labels)) lo = mid;
      else hi = mid;
    }
    return lo;
  };
  let k = largest(false);
  // Where labels are drawn at that scale (few nodes, or zoomed in), they must fit too.
  const labels = labelsFit(nodes.length, MAX_LABELS, k);
  if (labels) k = largest(true);
  const e = extents(k, labels);
  return { k, tx: w / 2 - (e.x0 + e.x1) / 2, ty: h / 2 - (e.y0 + e.y1) / 2 };
}
