import { useCallback, useEffect, useMemo, useRef, useState, type CSSProperties } from 'react';
import { boundsOf, cacheFrameFor, cacheServes, placeCache, type CacheFrame, type View, type WorldBounds } from '../../lib/view-cache';
import type { GraphProbe, GraphStats } from './probe';
import { fitView } from './fit';
import { GraphRenderer } from './render-client';
import type { NodeTip } from './node-tip';
import { useT } from '../../i18n';
import { drawBase, drawHighlight, labelFont, labelText, LABEL_DEPTH, MAX_LABELS, type CanvasEdge, type CanvasNode, type Scene, type SceneColors, type WorldBox } from './scene';

const sameView = (a: View, b: View) => a.k === b.k && a.tx === b.tx && a.ty === b.ty;

export type { CanvasEdge, CanvasNode } from './scene';

declare global {
  interface Window {
    __haGraph?: GraphProbe;
  }
}

interface SceneData extends Scene {
  id: number;
  bounds: WorldBounds | undefined;
}

interface Cache {
  bitmap: HTMLCanvasElement | ImageBitmap;
  frame: CacheFrame;
  sceneId: number;
  colors: SceneColors;
  dpr: number;
}

let sceneIds = 0;

/** Set by the first `takeStats()`: paints then force rasterization so they can be timed. */
let measuring = false;

/** After the last wheel step, the zoom is rendered sharp again (until then the bitmap is scaled). */
const ZOOM_SETTLE_MS = 140;

/**
 * A new bitmap is asked for once less than this share of a viewport is left between the visible
 * part and the bitmap's edge, so it is usually ready before a pan reaches that edge.
 */
const LOOKAHEAD = 0.2;

function readColors(el: Element): SceneColors {
  const css = getComputedStyle(el);
  return {
    edge: css.getPropertyValue('--graph-edge').trim() || '#9aa3b2',
    text: css.getPropertyValue('--text').trim() || '#222',
    bg: css.getPropertyValue('--graph-bg').trim() || '#fff',
  };
}

function keep(xs: number[], x: number) {
  xs.push(x);
  if (xs.length > 1000) xs.splice(0, xs.length - 1000);
}

function release(c: Cache | undefined) {
  if (c && !(c.bitmap instanceof HTMLCanvasElement)) c.bitmap.close();
}

/** The world box a render of `rect` (screen px under `v`) draws labels for; labels reach past nodes. */
function visibleBox(v: View, rect: { x: number; y: number; w: number; h: number }): WorldBox {
  return { x0: (rect.x - v.tx - 80) / v.k, y0: (rect.y - v.ty - 40) / v.k, x1: (rect.x + rect.w - v.tx + 80) / v.k, y1: (rect.y + rect.h - v.ty + 40) / v.k };
}

/** More labels than on one screen: a bitmap holds up to 2×2 viewports. */
function labelBudget(rect: { w: number; h: number }, vw: number, vh: number): number {
  return Math.min(4 * MAX_LABELS, Math.round((MAX_LABELS * rect.w * rect.h) / Math.max(1, vw * vh)));
}

let measureCtx: CanvasRenderingContext2D | null | undefined;
/** A label's width in screen pixels, as the page's canvas draws it (12 px text). */
function measureLabel(text: string): number {
  measureCtx ??= document.createElement('canvas').getContext('2d');
  if (!measureCtx) return text.length * 7;
  measureCtx.font = labelFont(12);
  return measureCtx.measureText(text).width;
}

/**
 * A canvas graph renderer: pan (drag), zoom (wheel / buttons), hover highlight, click to select.
 * The whole graph is rendered into a bitmap covering the viewport plus a margin
 * (lib/view-cache.ts); a pan or zoom frame only copies that bitmap and draws the highlight layer,
 * so frames cost the same with 2 or 2,000 nodes. New bitmaps — when a zoom settles or a pan nears
 * the bitmap's edge — are rendered by a worker (render-worker.ts) while the old one is still shown;
 * only the first picture of new data (or theme, or size) is rendered on the main thread.
 */
export function GraphCanvas({ nodes, edges, selected, onSelect, fitKey, describe }: { nodes: CanvasNode[]; edges: CanvasEdge[]; selected?: string; onSelect: (id: string) => void; fitKey: string; describe?: (id: string) => NodeTip | undefined }) {
  const t = useT();
  const wrap = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const view = useRef<View>({ k: 1, tx: 0, ty: 0 });
  const size = useRef({ w: 300, h: 300 });
  /** The node under the pointer, by id: new data keeps it (and its tip) while that node is still there. */
  const [hoverId, setHoverId] = useState<string | undefined>();
  const frame = useRef(0);
  const cache = useRef<Cache | undefined>(undefined);
  const colors = useRef<SceneColors | undefined>(undefined);
  const zooming = useRef(false);
  const settle = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const stats = useRef<GraphStats>({ copyPaintMs: [], renderPaintMs: [], workerRenderMs: [] });
  const renderer = useRef<GraphRenderer | undefined>(undefined);
  /** Bumped when the bitmap is rebuilt here or the size changes: older worker answers are dropped. */
  const generation = useRef(0);
  /** The view of the last worker request: the same view is not asked for twice. */
  const asked = useRef<View | undefined>(undefined);

  const scene = useMemo<SceneData>(() => ({ id: ++sceneIds, nodes, edges, byId: new Map(nodes.map((n) => [n.id, n])), bounds: boundsOf(nodes) }), [nodes, edges]);
  const sceneRef = useRef(scene);
  sceneRef.current = scene;
  const hover = hoverId === undefined ? undefined : scene.byId.get(hoverId);
  // A node that went with new data takes its tip with it.
  useEffect(() => {
    if (hoverId !== undefined && !scene.byId.has(hoverId)) setHoverId(undefined);
  }, [scene, hoverId]);
  const hl = hover?.id ?? selected;
  const highlight = useRef({ hl, selected });
  highlight.current = { hl, selected };

  const paint = () => {
    const c = canvas.current;
    const ctx = c?.getContext('2d');
    if (!c || !ctx) return;
    const t0 = performance.now();
    let rendered = false;
    const dpr = window.devicePixelRatio || 1;
    const { w, h } = size.current;
    const v = view.current;
    const sc = sceneRef.current;
    const col = (colors.current ??= readColors(c));
    let ch = cache.current;
    const valid = !!ch && ch.sceneId === sc.id && ch.colors === col && ch.dpr === dpr;
    const serves = valid && cacheServes(ch!.frame, v, w, h, sc.bounds);
    const worker = renderer.current;
    // A viewport that alone is over the bitmap's pixel budget (a huge screen) is drawn straight
    // onto the screen each frame: no bitmap that could not cover it, no worker round trips.
    const direct = !!(sc.bounds && cacheFrameFor(v, w, h, sc.bounds, dpr)?.limited);
    if (direct) {
      if (ch) release(ch);
      ch = cache.current = undefined;
    } else if (!valid || (!serves && !worker && !zooming.current)) {
      // The first picture of this data, theme or size (or no worker): render it here, now.
      const f = cacheFrameFor(v, w, h, sc.bounds, dpr);
      release(ch);
      if (f) {
        const bitmap = document.createElement('canvas');
        bitmap.width = Math.max(1, Math.round(f.rect.w * dpr));
        bitmap.height = Math.max(1, Math.round(f.rect.h * dpr));
        const bctx = bitmap.getContext('2d')!;
        bctx.setTransform(dpr * v.k, 0, 0, dpr * v.k, dpr * (v.tx - f.rect.x), dpr * (v.ty - f.rect.y));
        drawBase(bctx, sc, v.k, visibleBox(v, f.rect), col, labelBudget(f.rect, w, h));
        if (measuring) bctx.getImageData(0, 0, 1, 1);
        rendered = true;
        ch = cache.current = { bitmap, frame: f, sceneId: sc.id, colors: col, dpr };
      } else ch = cache.current = undefined;
      asked.current = undefined;
      generation.current++; // a worker answer asked for before this is outdated
    } else if (worker && !zooming.current && !worker.inFlight && !(asked.current && sameView(asked.current, v))) {
      // A zoom that settled, or a pan nearing the bitmap's edge: a new bitmap from the worker.
      const ahead = { x: -w * LOOKAHEAD, y: -h * LOOKAHEAD, w: w * (1 + 2 * LOOKAHEAD), h: h * (1 + 2 * LOOKAHEAD) };
      if (!cacheServes(ch!.frame, v, w, h, sc.bounds, ahead)) {
        const f = cacheFrameFor(v, w, h, sc.bounds, dpr);
        if (f) {
          try {
            worker.render(sc, f, dpr, visibleBox(v, f.rect), col, labelBudget(f.rect, w, h), generation.current);
            asked.current = { ...v };
          } catch {
            // The worker cannot take it (e.g. data it cannot clone): render here from now on.
            worker.dispose();
            renderer.current = undefined;
            draw();
          }
        }
      }
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = col.bg;
    ctx.fillRect(0, 0, w, h);
    if (direct) {
      ctx.setTransform(dpr * v.k, 0, 0, dpr * v.k, dpr * v.tx, dpr * v.ty);
      drawBase(ctx, sc, v.k, visibleBox(v, { x: 0, y: 0, w, h }), col, MAX_LABELS);
      rendered = true;
    } else if (ch) {
      // Translated, or scaled while a zoom runs or its sharp bitmap is on its way.
      const d = placeCache(ch.frame, v);
      const exact = Math.abs(d.w - ch.frame.rect.w) < 1e-6;
      const x = exact ? Math.round(d.x * dpr) / dpr : d.x;
      const y = exact ? Math.round(d.y * dpr) / dpr : d.y;
      ctx.drawImage(ch.bitmap, x, y, d.w, d.h);
    }
    ctx.setTransform(dpr * v.k, 0, 0, dpr * v.k, dpr * v.tx, dpr * v.ty);
    const { hl: lit, selected: sel } = highlight.current;
    drawHighlight(ctx, sc, v.k, lit, sel, col, () => {
      ctx.save();
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.globalAlpha = 0.62;
      ctx.fillStyle = col.bg;
      ctx.fillRect(0, 0, w, h);
      ctx.restore();
    });
    ctx.globalAlpha = 1;
    // Reading one pixel makes the canvas rasterize now, so the time is this frame's, not a later one's.
    if (measuring) ctx.getImageData(0, 0, 1, 1);
    keep(rendered ? stats.current.renderPaintMs : stats.current.copyPaintMs, performance.now() - t0);
  };
  const paintRef = useRef(paint);
  paintRef.current = paint;

  /** Paints on the next animation frame (many requests in one frame make one paint). */
  const drawPending = useRef(false);
  const draw = useCallback(() => {
    cancelAnimationFrame(frame.current);
    drawPending.current = true;
    frame.current = requestAnimationFrame(() => {
      drawPending.current = false;
      paintRef.current();
    });
  }, []);

  const fit = useCallback(() => {
    const { w, h } = size.current;
    view.current = fitView(sceneRef.current.nodes, w, h, measureLabel);
  }, []);

  useEffect(() => {
    const el = wrap.current;
    const c = canvas.current;
    if (!el || !c) return;
    const ro = new ResizeObserver(() => {
      const r = el.getBoundingClientRect();
      const dpr = window.devicePixelRatio || 1;
      size.current = { w: r.width, h: r.height };
      c.width = Math.max(1, Math.round(r.width * dpr));
      c.height = Math.max(1, Math.round(r.height * dpr));
      c.style.width = `${r.width}px`;
      c.style.height = `${r.height}px`;
      release(cache.current);
      cache.current = undefined;
      generation.current++;
      fit();
      draw();
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [fit, draw]);

  useEffect(() => {
    fit();
    draw();
  }, [fitKey, fit, draw]);
  // New data, selection or hover: one paint (the bitmap is reused unless the data changed).
  useEffect(draw, [scene, hl, selected, draw]);
  useEffect(() => {
    const obs = new MutationObserver(() => {
      colors.current = undefined;
      draw();
    });
    obs.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => obs.disconnect();
  }, [draw]);
  useEffect(() => {
    const r = GraphRenderer.create(
      (reply, req) => {
        if (reply.type === 'bitmap') {
          keep(stats.current.workerRenderMs, reply.ms);
          const sc = sceneRef.current;
          if (req.generation === generation.current && req.sceneId === sc.id && req.colors === colors.current && req.dpr === (window.devicePixelRatio || 1)) {
            release(cache.current);
            cache.current = { bitmap: reply.bitmap, frame: reply.frame, sceneId: req.sceneId, colors: req.colors, dpr: req.dpr };
          } else reply.bitmap.close();
        } else if (reply.type === 'failed') {
          // E.g. no 2D context for OffscreenCanvas: render on the main thread from now on.
          renderer.current?.dispose();
          renderer.current = undefined;
        }
        draw();
      },
      () => {
        renderer.current?.dispose();
        renderer.current = undefined;
        draw();
      },
    );
    renderer.current = r;
    return () => {
      r?.dispose();
      renderer.current = undefined;
      cancelAnimationFrame(frame.current);
      clearTimeout(settle.current);
      release(cache.current);
      cache.current = undefined;
    };
  }, [draw]);

  const toWorld = (cx: number, cy: number) => {
    const { k, tx, ty } = view.current;
    return { x: (cx - tx) / k, y: (cy - ty) / k };
  };
  const hit = (cx: number, cy: number): CanvasNode | undefined => {
    const p = toWorld(cx, cy);
    let best: CanvasNode | undefined;
    let bestD = (12 / view.current.k) ** 2;
    for (const n of sceneRef.current.nodes) {
      const d = (n.x - p.x) ** 2 + (n.y - p.y) ** 2;
      const r2 = Math.max(bestD, ((n.r ?? 6) + 3) ** 2);
      if (d <= r2 && d <= (best ? bestD : r2)) {
        best = n;
        bestD = d;
      }
    }
    return best;
  };

  useEffect(() => {
    window.__haGraph = {
      positionOf: (id) => {
        const n = sceneRef.current.byId.get(id);
        const c = canvas.current;
        if (!n || !c) return undefined;
        const r = c.getBoundingClientRect();
        const { k, tx, ty } = view.current;
        return { x: r.left + n.x * k + tx, y: r.top + n.y * k + ty };
      },
      labelBoxOf: (id) => {
        const n = sceneRef.current.byId.get(id);
        const c = canvas.current;
        if (!n || !c) return undefined;
        const r = c.getBoundingClientRect();
        const { k, tx, ty } = view.current;
        const x = r.left + n.x * k + tx;
        const y = r.top + n.y * k + ty + (n.r ?? 6) * k;
        const half = measureLabel(labelText(n)) / 2;
        return { left: x - half, right: x + half, top: y, bottom: y + LABEL_DEPTH };
      },
      ids: () => [...sceneRef.current.byId.keys()],
      settled: () => {
        const ch = cache.current;
        const sc = sceneRef.current;
        const { w, h } = size.current;
        const current = !sc.bounds || (!!ch && ch.sceneId === sc.id && ch.colors === colors.current && cacheServes(ch.frame, view.current, w, h, sc.bounds));
        return current && !zooming.current && !renderer.current?.inFlight && !drawPending.current;
      },
      takeStats: () => {
        const s = stats.current;
        stats.current = { copyPaintMs: [], renderPaintMs: [], workerRenderMs: [] };
        measuring = true;
        return s;
      },
    };
    return () => {
      delete window.__haGraph;
    };
  }, []);

  const drag = useRef<{ x: number; y: number; moved: boolean } | undefined>(undefined);
  const local = (e: { clientX: number; clientY: number }) => {
    const r = canvas.current!.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  const zoom = (factor: number, cx = size.current.w / 2, cy = size.current.h / 2) => {
    const v = view.current;
    const k = Math.min(8, Math.max(0.03, v.k * factor));
    view.current = { k, tx: cx - ((cx - v.tx) / v.k) * k, ty: cy - ((cy - v.ty) / v.k) * k };
    // While the gesture runs the bitmap is scaled; once it settles the graph is rendered sharp.
    zooming.current = true;
    clearTimeout(settle.current);
    settle.current = setTimeout(() => {
      zooming.current = false;
      draw();
    }, ZOOM_SETTLE_MS);
    draw();
  };

  return (
    <div className="graph-canvas-wrap" ref={wrap}>
      <canvas
        ref={canvas}
        data-testid="graph-canvas"
        onPointerDown={(e) => {
          (e.target as HTMLElement).setPointerCapture(e.pointerId);
          drag.current = { ...local(e), moved: false };
        }}
        onPointerMove={(e) => {
          const p = local(e);
          if (drag.current) {
            const dx = p.x - drag.current.x;
            const dy = p.y - drag.current.y;
            if (Math.abs(dx) + Math.abs(dy) > 3) drag.current.moved = true;
            if (drag.current.moved) {
              if (hover) setHoverId(undefined);
              view.current = { ...view.current, tx: view.current.tx + dx, ty: view.current.ty + dy };
              drag.current.x = p.x;
              drag.current.y = p.y;
              draw();
            }
            return;
          }
          const n = hit(p.x, p.y);
          if (n?.id !== hover?.id) setHoverId(n?.id);
        }}
        onPointerUp={(e) => {
          const d = drag.current;
          drag.current = undefined;
          if (d && !d.moved) {
            const p = local(e);
            const n = hit(p.x, p.y);
            if (n) onSelect(n.id);
          }
        }}
        onPointerLeave={() => setHoverId(undefined)}
        onWheel={(e) => {
          const p = local(e);
          // The tip stands beside the node where it was: it goes while the view moves.
          if (hover) setHoverId(undefined);
          zoom(e.deltaY < 0 ? 1.15 : 1 / 1.15, p.x, p.y);
        }}
        style={{ cursor: hover ? 'pointer' : 'grab', touchAction: 'none' }}
      />
      <div className="zoom-btns">
        <button className="icon-btn" onClick={() => zoom(1.3)} aria-label={t('graph.zoomIn')} title={t('graph.zoomIn')}>
          +
        </button>
        <button className="icon-btn" onClick={() => zoom(1 / 1.3)} aria-label={t('graph.zoomOut')} title={t('graph.zoomOut')}>
          −
        </button>
        <button
          className="icon-btn"
          onClick={() => {
            fit();
            draw();
          }}
          aria-label={t('graph.fit')}
          title={t('graph.fit')}
        >
          ⤢
        </button>
      </div>
      {hover && <HoverTip node={hover} view={view.current} size={size.current} tip={describe?.(hover.id)} />}
    </div>
  );
}

/**
 * What the hovered node is, beside it: on the side of the node with the more room, so it never
 * covers the node or leaves the canvas. Without a description, the node's label alone.
 */
function HoverTip({ node, view, size, tip }: { node: CanvasNode; view: View; size: { w: number; h: number }; tip: NodeTip | undefined }) {
  const x = node.x * view.k + view.tx;
  const y = node.y * view.k + view.ty;
  const gap = (node.r ?? 6) * Math.min(view.k, 3) + 10;
  const style: CSSProperties = {
    ...(x < size.w / 2 ? { left: Math.max(4, x + gap) } : { right: Math.max(4, size.w - x + gap) }),
    ...(y < size.h / 2 ? { top: Math.max(4, y - 8) } : { bottom: Math.max(4, size.h - y - 8) }),
  };
  return (
    <div className="graph-tip" style={style} data-testid="graph-tip" role="tooltip">
      <div className="graph-tip-title">{tip?.title ?? node.label}</div>
      {tip && (
        <>
          <div className="graph-tip-kind" data-testid="graph-tip-kind">
            {tip.kind}
          </div>
          {tip.lines.map((l, i) => (
            <div key={i} className="graph-tip-line" data-testid="graph-tip-line">
              {l}
            </div>
          ))}
          {tip.notes.map((l, i) => (
            <div key={i} className="graph-tip-note">
              {l}
            </div>
          ))}
        </>
      )}
    </div>
  );
}
