import { describe, expect, it } from 'vitest';
import { FIT_MARGIN, fitView } from './fit';
import { LABEL_DEPTH } from './scene';

/** 7 px per character: a stand-in for the canvas's text metrics. */
const width = (text: string) => text.length * 7;
const screen = (v: { k: number; tx: number; ty: number }, x: number, y: number) => ({ x: x * v.k + v.tx, y: y * v.k + v.ty });

describe('fitting the graph to the canvas', () => {
  it('keeps the labels of the outermost nodes whole', () => {
    const nodes = [
      { x: -100, y: 0, r: 6, label: 'A long memory title on the left' },
      { x: 100, y: 0, r: 6, label: 'Another long title on the right' },
      { x: 0, y: 80, r: 6, label: 'bottom' },
    ];
    const w = 600;
    const h = 400;
    const v = fitView(nodes, w, h, width);
    for (const n of nodes) {
      const p = screen(v, n.x, n.y);
      const half = width(n.label.length > 24 ? `${n.label.slice(0, 23)}…` : n.label) / 2;
      expect(p.x - half).toBeGreaterThanOrEqual(FIT_MARGIN - 0.01);
      expect(p.x + half).toBeLessThanOrEqual(w - FIT_MARGIN + 0.01);
      expect(p.y + n.r * v.k + LABEL_DEPTH).toBeLessThanOrEqual(h - FIT_MARGIN + 0.01);
    }
    // Fitting by node positions alone would have put the side nodes 24 px from the edges, with
    // about 80 px of their labels past it.
    expect(screen(v, -100, 0).x).toBeGreaterThan(FIT_MARGIN + 60);
  });

  it('centres the graph and uses the room it has', () => {
    const nodes = [
      { x: 0, y: 0, label: 'a' },
      { x: 1000, y: 500, label: 'b' },
    ];
    const v = fitView(nodes, 800, 600, width);
    const a = screen(v, 0, 0);
    const b = screen(v, 1000, 500);
    expect((a.x + b.x) / 2).toBeCloseTo(400, 0);
    // Short labels: the width is nearly all the graph's.
    expect(b.x - a.x).toBeGreaterThan(800 - 2 * FIT_MARGIN - 30);
  });

  it('does not let very long titles on a narrow screen shrink the graph to a dot', () => {
    // Chinese titles: 12 px a character, 24 characters shown — 288 px, wider than half a phone.
    const wide = (text: string) => Array.from(text).length * 12;
    const long = '会'.repeat(200);
    const nodes = [
      { x: 0, y: 0, label: long },
      { x: 100, y: 0, label: long },
    ];
    const v = fitView(nodes, 390, 600, wide);
    // Each label counts for a quarter of the room at most, so the nodes keep the half between.
    const inner = 390 - 2 * FIT_MARGIN;
    expect(100 * v.k).toBeCloseTo(inner / 2, 0);
  });

  it('ignores labels where they would not be drawn (thousands of nodes at a small scale)', () => {
    const nodes = Array.from({ length: 2000 }, (_, i) => ({ x: (i % 50) * 40, y: Math.floor(i / 50) * 40, label: `memory number ${i}` }));
    const v = fitView(nodes, 800, 800, width);
    expect(screen(v, 0, 0).x).toBeLessThan(FIT_MARGIN + 10);
  });

  it('an empty graph or a single node sits in the middle', () => {
    expect(fitView([], 300, 200, width)).toEqual({ k: 1, tx: 150, ty: 100 });
    const v = fitView([{ x: 5, y: 5, label: 'one' }], 300, 200, width);
    expect(screen(v, 5, 5).x).toBeCloseTo(150, 5);
  });
});
