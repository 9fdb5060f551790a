import { useCallback, useEffect, useRef, useState } from 'react';

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

interface View {
  k: number;
  tx: number;
  ty: number;
}

declare global {
  interface Window {
    __haGraph?: { positionOf(id: string): { x: number; y: number } | undefined; ids(): string[] };
  }
}

/**
 * A canvas graph renderer: pan (drag), zoom (wheel / pinch buttons), hover labels, click to
 * select. Canvas keeps 2,000 nodes smooth; labels are drawn only when they fit.
 */
export function GraphCanvas({ nodes, edges, selected, onSelect, fitKey }: { nodes: CanvasNode[]; edges: CanvasEdge[]; selected?: string; onSelect: (id: string) => void; fitKey: string }) {
  const wrap = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const view = useRef<View>({ k: 1, tx: 0, ty: 0 });
  const size = useRef({ w: 300, h: 300 });
  const [hover, setHover] = useState<CanvasNode | undefined>();
  const byId = useRef(new Map<string, CanvasNode>());
  const frame = useRef(0);
  byId.current = new Map(nodes.map((n) => [n.id, n]));

  const draw = useCallback(() => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => {
      const c = canvas.current;
      if (!c) return;
      const ctx = c.getContext('2d');
      if (!ctx) return;
      const dpr = window.devicePixelRatio || 1;
      const { w, h } = size.current;
      const { k, tx, ty } = view.current;
      const css = getComputedStyle(c);
      const edgeColor = css.getPropertyValue('--graph-edge').trim() || '#9aa3b2';
      const textColor = css.getPropertyValue('--text').trim() || '#222';
      const bg = css.getPropertyValue('--graph-bg').trim() || '#fff';
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = bg;
      ctx.fillRect(0, 0, w, h);
      ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * tx, dpr * ty);
      ctx.lineWidth = 1.2 / k;
      const focusSet = new Set<string>();
      const hl = hover?.id ?? selected;
      if (hl) {
        focusSet.add(hl);
        for (const e of edges) {
          if (e.from === hl) focusSet.add(e.to);
          if (e.to === hl) focusSet.add(e.from);
        }
      }
      // One path per edge style and highlight state: thousands of edges in a handful of strokes.
      const groups = new Map<string, CanvasEdge[]>();
      for (const e of edges) {
        const lit = !!hl && (e.from === hl || e.to === hl);
        const key = `${e.style}|${lit ? 1 : 0}`;
        const g = groups.get(key);
        if (g) g.push(e);
        else groups.set(key, [e]);
      }
      for (const [key, list] of groups) {
        const [style, litFlag] = key.split('|');
        const lit = litFlag === '1';
        ctx.strokeStyle = lit ? '#6d83f2' : edgeColor;
        ctx.globalAlpha = hl && !lit ? 0.25 : 0.75;
        ctx.setLineDash(style === 'dashed' ? [6 / k, 4 / k] : style === 'dotted' ? [1.5 / k, 3 / k] : []);
        ctx.beginPath();
        for (const e of list) {
          const a = byId.current.get(e.from);
          const b = byId.current.get(e.to);
          if (!a || !b) continue;
          ctx.moveTo(a.x, a.y);
          ctx.lineTo(b.x, b.y);
        }
        ctx.stroke();
      }
      ctx.setLineDash([]);
      const showAll = nodes.length <= 60 || k > 1.6;
      const nodeGroups = new Map<string, CanvasNode[]>();
      for (const n of nodes) {
        const dim = n.faded || (hl && !focusSet.has(n.id));
        const key = `${n.color}|${dim ? 1 : 0}`;
        const g = nodeGroups.get(key);
        if (g) g.push(n);
        else nodeGroups.set(key, [n]);
      }
      for (const [key, list] of nodeGroups) {
        const [color, dim] = key.split('|');
        ctx.globalAlpha = dim === '1' ? 0.35 : 1;
        ctx.fillStyle = color;
        ctx.beginPath();
        for (const n of list) {
          const r = n.r ?? 6;
          ctx.moveTo(n.x + r, n.y);
          ctx.arc(n.x, n.y, r, 0, Math.PI * 2);
        }
        ctx.fill();
      }
      const sel = selected ? byId.current.get(selected) : undefined;
      if (sel) {
        ctx.globalAlpha = 1;
        ctx.strokeStyle = textColor;
        ctx.lineWidth = 2 / k;
        ctx.beginPath();
        ctx.arc(sel.x, sel.y, sel.r ?? 6, 0, Math.PI * 2);
        ctx.stroke();
        ctx.lineWidth = 1.2 / k;
      }
      ctx.globalAlpha = 1;
      ctx.fillStyle = textColor;
      ctx.font = `${12 / k}px system-ui, "WenQuanYi Micro Hei", sans-serif`;
      ctx.textAlign = 'center';
      // Text is the expensive part of a frame: only labels inside the viewport, at most 300.
      const x0 = -tx / k - 80 / k;
      const y0 = -ty / k - 40 / k;
      const x1 = (w - tx) / k + 80 / k;
      const y1 = (h - ty) / k + 40 / k;
      let labels = 0;
      for (const n of nodes) {
        if (!(showAll || focusSet.has(n.id))) continue;
        if (n.x < x0 || n.x > x1 || n.y < y0 || n.y > y1) continue;
        if (++labels > 300 && !focusSet.has(n.id)) continue;
        const label = n.label.length > 24 ? `${n.label.slice(0, 23)}…` : n.label;
        ctx.fillText(label, n.x, n.y + (n.r ?? 6) + 13 / k);
      }
      for (const e of edges) {
        if (!e.label || !(k > 1.2 || (hl && (e.from === hl || e.to === hl)))) continue;
        const a = byId.current.get(e.from);
        const b = byId.current.get(e.to);
        if (!a || !b) continue;
        ctx.globalAlpha = 0.8;
        ctx.font = `${10 / k}px system-ui, sans-serif`;
        ctx.fillText(e.label, (a.x + b.x) / 2, (a.y + b.y) / 2 - 3 / k);
      }
      ctx.globalAlpha = 1;
    });
  }, [nodes, edges, selected, hover]);

  const fit = useCallback(() => {
    const { w, h } = size.current;
    if (nodes.length === 0) {
      view.current = { k: 1, tx: w / 2, ty: h / 2 };
      return;
    }
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (const n of nodes) {
      minX = Math.min(minX, n.x);
      maxX = Math.max(maxX, n.x);
      minY = Math.min(minY, n.y);
      maxY = Math.max(maxY, n.y);
    }
    const pad = 48;
    const k = Math.min(2.2, Math.max(0.05, Math.min((w - pad * 2) / Math.max(maxX - minX, 1), (h - pad * 2) / Math.max(maxY - minY, 1))));
    view.current = { k, tx: w / 2 - ((minX + maxX) / 2) * k, ty: h / 2 - ((minY + maxY) / 2) * k };
  }, [nodes]);

  const fitRef = useRef(fit);
  fitRef.current = fit;
  const drawRef = useRef(draw);
  drawRef.current = draw;
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
      fitRef.current();
      drawRef.current();
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  useEffect(() => {
    fit();
    draw();
  }, [fitKey]);
  useEffect(draw, [draw]);
  useEffect(() => {
    const obs = new MutationObserver(draw);
    obs.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => obs.disconnect();
  }, [draw]);

  const toWorld = (cx: number, cy: number) => {
    const { k, tx, ty } = view.current;
    return { x: (cx - tx) / k, y: (cy - ty) / k };
  };
  const hit = (cx: number, cy: number): CanvasNode | undefined => {
    const p = toWorld(cx, cy);
    let best: CanvasNode | undefined;
    let bestD = (12 / view.current.k) ** 2;
    for (const n of nodes) {
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
        const n = byId.current.get(id);
        const c = canvas.current;
        if (!n || !c) return undefined;
        const r = c.getBoundingClientRect();
        const { k, tx, ty } = view.current;
        return { x: r.left + n.x * k + tx, y: r.top + n.y * k + ty };
      },
      ids: () => [...byId.current.keys()],
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
              view.current = { ...view.current, tx: view.current.tx + dx, ty: view.current.ty + dy };
              drag.current.x = p.x;
              drag.current.y = p.y;
              draw();
            }
            return;
          }
          const n = hit(p.x, p.y);
          if (n?.id !== hover?.id) setHover(n);
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
        onPointerLeave={() => setHover(undefined)}
        onWheel={(e) => {
          const p = local(e);
          zoom(e.deltaY < 0 ? 1.15 : 1 / 1.15, p.x, p.y);
        }}
        style={{ cursor: hover ? 'pointer' : 'grab', touchAction: 'none' }}
      />
      <div className="zoom-btns">
        <button className="icon-btn" onClick={() => zoom(1.3)} aria-label="zoom in">
          +
        </button>
        <button className="icon-btn" onClick={() => zoom(1 / 1.3)} aria-label="zoom out">
          −
        </button>
        <button
          className="icon-btn"
          onClick={() => {
            fit();
            draw();
          }}
          aria-label="fit"
        >
          ⤢
        </button>
      </div>
      {hover && <div className="graph-tip">{hover.label}</div>}
    </div>
  );
}
