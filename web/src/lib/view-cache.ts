/**
 * Geometry of the graph canvas's bitmap cache (W-3 "smooth with 2,000 nodes").
 *
 * The base scene (all edges, nodes, labels) is rendered once into an off-screen bitmap that covers
 * the viewport plus a margin, for one view `{k, tx, ty}`. Panning and zooming then only copy that
 * bitmap (translated, or scaled while a zoom gesture runs); the scene is rendered again when the
 * bitmap no longer covers what is visible, when a zoom gesture settles, or when the data changes.
 * Everything here is pure so it can be tested without a browser.
 */

/** Screen = world × k + t (CSS pixels). */
export interface View {
  k: number;
  tx: number;
  ty: number;
}

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** World-space bounds of the drawn content (node centres). */
export interface WorldBounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** What a cache bitmap holds: the screen rectangle `rect` (CSS px) as seen under `view`. */
export interface CacheFrame {
  view: View;
  rect: Rect;
  /** Shrunk to the pixel budget: it may not cover the viewport, so frames are drawn directly. */
  limited?: boolean;
}

/**
 * Screen pixels around node centres that drawing may touch: sideways half the widest label (24
 * characters of 12 px CJK ≈ 290 px), below the node its radius at the largest zoom plus a label.
 */
export const CONTENT_PAD = { x: 150, y: 130 };

/** Upper bound for the bitmap's device pixels (≈ 64 MiB of RGBA). */
export const MAX_CACHE_PIXELS = 16_000_000;

export function boundsOf(points: Iterable<{ x: number; y: number }>): WorldBounds | undefined {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of points) {
    if (p.x < minX) minX = p.x;
    if (p.x > maxX) maxX = p.x;
    if (p.y < minY) minY = p.y;
    if (p.y > maxY) maxY = p.y;
  }
  return minX <= maxX ? { minX, minY, maxX, maxY } : undefined;
}

/** The content's screen rectangle under `view`, padded for radii and labels (label size is fixed in screen px). */
export function contentRect(bounds: WorldBounds, view: View, pad = CONTENT_PAD): Rect {
  const x = bounds.minX * view.k + view.tx - pad.x;
  const y = bounds.minY * view.k + view.ty - pad.y;
  return { x, y, w: (bounds.maxX - bounds.minX) * view.k + 2 * pad.x, h: (bounds.maxY - bounds.minY) * view.k + 2 * pad.y };
}

export function intersect(a: Rect, b: Rect): Rect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const x1 = Math.min(a.x + a.w, b.x + b.w);
  const y1 = Math.min(a.y + a.h, b.y + b.h);
  return x1 > x && y1 > y ? { x, y, w: x1 - x, h: y1 - y } : undefined;
}

export function contains(outer: Rect, inner: Rect, slack = 0.5): boolean {
  return inner.x >= outer.x - slack && inner.y >= outer.y - slack && inner.x + inner.w <= outer.x + outer.w + slack && inner.y + inner.h <= outer.y + outer.h + slack;
}

/**
 * The rectangle a new cache should hold for `view` on a `vw`×`vh` viewport: the viewport grown by
 * a margin on every side (so a pan of up to that margin needs no new render), clipped to the
 * content, on whole CSS pixels, and shrunk until it fits `maxPixels` device pixels.
 * `undefined` when no content is in reach (nothing to cache: the frame is only background).
 */
export function cacheFrameFor(view: View, vw: number, vh: number, bounds: WorldBounds | undefined, dpr = 1, maxPixels = MAX_CACHE_PIXELS): CacheFrame | undefined {
  if (!bounds) return undefined;
  const content = contentRect(bounds, view);
  // The largest margin m with (1 + 2m)² · viewport pixels ≤ maxPixels, at most half a viewport.
  const ratio = maxPixels / Math.max(1, vw * vh * dpr * dpr);
  const margin = Math.max(0, Math.min(0.5, (Math.sqrt(ratio) - 1) / 2));
  const grown: Rect = { x: -vw * margin, y: -vh * margin, w: vw * (1 + 2 * margin), h: vh * (1 + 2 * margin) };
  const r = intersect(grown, content);
  if (!r) return undefined;
  const x = Math.floor(r.x);
  const y = Math.floor(r.y);
  let w = Math.ceil(r.x + r.w) - x;
  let h = Math.ceil(r.y + r.h) - y;
  // A viewport larger than the pixel budget on its own: keep the budget and say so (`limited`);
  // the canvas then draws each frame directly instead of from this bitmap.
  const scale = Math.sqrt(maxPixels / Math.max(1, w * h * dpr * dpr));
  if (scale < 1) {
    w = Math.floor(w * scale);
    h = Math.floor(h * scale);
    const needed = intersect({ x: 0, y: 0, w: vw, h: vh }, content);
    if (needed && !contains({ x, y, w, h }, needed)) return { view: { ...view }, rect: { x, y, w, h }, limited: true };
  }
  return { view: { ...view }, rect: { x, y, w, h } };
}

/** Where the cached bitmap lands on screen under the current `view` (translated and scaled). */
export function placeCache(frame: CacheFrame, view: View): Rect {
  const s = view.k / frame.view.k;
  return {
    x: (frame.rect.x - frame.view.tx) * s + view.tx,
    y: (frame.rect.y - frame.view.ty) * s + view.ty,
    w: frame.rect.w * s,
    h: frame.rect.h * s,
  };
}

/**
 * Whether the cache can stand in for a fresh render under `view`: same zoom (a scaled copy is only
 * good while a zoom gesture runs) and everything visible of the content inside the bitmap.
 * `area` is the screen area that must be covered — the viewport, or more of it to look ahead.
 */
export function cacheServes(frame: CacheFrame | undefined, view: View, vw: number, vh: number, bounds: WorldBounds | undefined, area: Rect = { x: 0, y: 0, w: vw, h: vh }): boolean {
  if (!bounds) return true; // nothing to draw but the background
  const needed = intersect(area, contentRect(bounds, view));
  if (!needed) return true;
  if (!frame) return false;
  if (Math.abs(frame.view.k - view.k) > 1e-9 * view.k) return false;
  return contains(placeCache(frame, view), needed);
}
