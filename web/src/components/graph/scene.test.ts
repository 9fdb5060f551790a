import { describe, expect, it } from 'vitest';
import { labelsFit, neighbourhood, placeLabels } from './scene';

describe('label placement', () => {
  it('keeps labels in order and drops the ones that would overlap a kept one', () => {
    const boxes = [
      { x: 0, y: 0, w: 50, h: 10 },
      { x: 40, y: 5, w: 50, h: 10 }, // overlaps the first
      { x: 60, y: 0, w: 50, h: 10 }, // touches nothing kept
      { x: 0, y: 10, w: 50, h: 10 }, // right below the first: edges touch, no overlap
      { x: 1000, y: 1000, w: 50, h: 10 },
    ];
    expect(placeLabels(boxes, 10)).toEqual([0, 2, 3, 4]);
  });

  it('never covers an obstacle (a node disc)', () => {
    const boxes = [{ x: 0, y: 0, w: 50, h: 10 }, { x: 100, y: 0, w: 50, h: 10 }];
    expect(placeLabels(boxes, 10, [{ x: 20, y: 2, w: 6, h: 6 }])).toEqual([1]);
  });

  it('stops at the budget and handles none', () => {
    const boxes = Array.from({ length: 100 }, (_, i) => ({ x: i * 100, y: 0, w: 50, h: 10 }));
    expect(placeLabels(boxes, 7)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(placeLabels([], 5)).toEqual([]);
  });

  it('finds overlaps across grid cells with boxes of very different sizes', () => {
    const boxes = [{ x: 0, y: 0, w: 10, h: 10 }, { x: -500, y: 5, w: 1000, h: 2 }];
    expect(placeLabels(boxes, 10)).toEqual([0]);
  });

  it('labels when zoomed in or when few nodes are in the rendered area', () => {
    expect(labelsFit(5000, 300, 1)).toBe(true);
    expect(labelsFit(150, 300, 0.2)).toBe(true);
    expect(labelsFit(1500, 300, 0.4)).toBe(false);
  });

  it('the neighbourhood of a node is the node and its direct neighbours, either direction', () => {
    const edges = [{ from: 'a', to: 'b', style: 'solid' as const }, { from: 'c', to: 'a', style: 'dashed' as const }, { from: 'c', to: 'd', style: 'solid' as const }];
    expect([...neighbourhood(edges, 'a')].sort()).toEqual(['a', 'b', 'c']);
  });
});
