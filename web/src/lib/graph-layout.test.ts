import { describe, expect, it } from 'vitest';
import { forceLayout, radialLayout, relayoutPlan, tagColor } from './graph-layout';

const nodes = [{ id: 'f', depth: 0 }, { id: 'b', depth: 1 }, { id: 'a', depth: 1 }, { id: 'c', depth: 1 }, { id: 'x', depth: 2 }, { id: 'y', depth: 2 }];
const edges = [{ from: 'f', to: 'a' }, { from: 'f', to: 'b' }, { from: 'c', to: 'f' }, { from: 'a', to: 'x' }, { from: 'y', to: 'c' }];

describe('radialLayout', () => {
  it('is deterministic: same input → same positions, whatever the input order', () => {
    const p1 = radialLayout(nodes, edges, 'f');
    const p2 = radialLayout(nodes, edges, 'f');
    const p3 = radialLayout([...nodes].reverse(), [...edges].reverse(), 'f');
    expect(p2).toEqual(p1);
    expect(p3).toEqual(p1);
  });

  it('puts the focus at the centre, 1-hop on the inner ring and 2-hop on the outer ring near their parent', () => {
    const p = radialLayout(nodes, edges, 'f', 100);
    const r = (id: string) => Math.hypot(p[id].x, p[id].y);
    expect(p.f).toEqual({ x: 0, y: 0 });
    for (const id of ['a', 'b', 'c']) expect(r(id)).toBeCloseTo(100, 1);
    for (const id of ['x', 'y']) expect(r(id)).toBeCloseTo(200, 1);
    const angle = (id: string) => Math.atan2(p[id].y, p[id].x);
    const diff = (u: number, v: number) => Math.abs(Math.atan2(Math.sin(u - v), Math.cos(u - v)));
    expect(diff(angle('x'), angle('a'))).toBeLessThan(diff(angle('x'), angle('c')));
  });

  it('places nodes without a depth by adjacency', () => {
    const p = radialLayout([{ id: 'f' }, { id: 'n' }, { id: 'm' }], [{ from: 'f', to: 'n' }, { from: 'n', to: 'm' }], 'f', 50);
    expect(Math.hypot(p.n.x, p.n.y)).toBeCloseTo(50, 1);
    expect(Math.hypot(p.m.x, p.m.y)).toBeCloseTo(100, 1);
  });
});

describe('forceLayout', () => {
  it('runs a fixed number of iterations and is repeatable', () => {
    const many = Array.from({ length: 60 }, (_, i) => ({ id: `n${i}` }));
    const links = many.slice(1).map((n, i) => ({ from: n.id, to: `n${Math.floor(i / 3)}` }));
    const a = forceLayout(many, links, 160);
    const b = forceLayout(many, links, 160);
    expect(b).toEqual(a);
    expect(Object.values(a).every((p) => Number.isFinite(p.x) && Number.isFinite(p.y))).toBe(true);
    const distinct = new Set(Object.values(a).map((p) => `${p.x},${p.y}`));
    expect(distinct.size).toBe(60);
  });

  it('reports its progress every 10 iterations, ending at 1', () => {
    const seen: number[] = [];
    forceLayout([{ id: 'a' }, { id: 'b' }, { id: 'c' }], [{ from: 'a', to: 'b' }], 160, (d) => seen.push(d));
    expect(seen).toHaveLength(16);
    expect(seen[0]).toBeCloseTo(10 / 160);
    expect(seen.at(-1)).toBe(1);
    expect([...seen].sort((x, y) => x - y)).toEqual(seen);
  });

  it('ignores edges to unknown nodes', () => {
    const p = forceLayout([{ id: 'a' }, { id: 'b' }], [{ from: 'a', to: 'zzz' }, { from: 'a', to: 'b' }], 10);
    expect(Object.keys(p).sort()).toEqual(['a', 'b']);
  });
});

describe('tagColor', () => {
  it('colours convention blue, 会话总结 green, 复盘 orange, others gray', () => {
    expect(tagColor(['convention'])).toBe('#3b82f6');
    expect(tagColor(['会话总结'])).toBe('#22a559');
    expect(tagColor(['复盘'])).toBe('#f08c2e');
    expect(tagColor(['x'])).toBe('#8a94a6');
  });
});

describe('a graph laid out already takes new data', () => {
  const many = Array.from({ length: 40 }, (_, i) => ({ id: `n${i}` }));
  const links = many.slice(1).map((n, i) => ({ from: n.id, to: `n${Math.floor(i / 3)}` }));
  const before = forceLayout(many, links, 160);

  it('a new node is laid out beside the others, which stay exactly where they were', () => {
    const next = [...many, { id: 'new' }];
    const plan = relayoutPlan(before, next);
    expect(plan.kind).toBe('add');
    if (plan.kind !== 'add') return;
    const after = forceLayout(next, [...links, { from: 'new', to: 'n5' }], 80, undefined, plan.known);
    for (const n of many) expect(after[n.id]).toEqual(before[n.id]);
    expect(Number.isFinite(after.new.x) && Number.isFinite(after.new.y)).toBe(true);
    expect(Object.values(before).some((p) => p.x === after.new.x && p.y === after.new.y)).toBe(false);
    // It starts beside the node it links to and is not pushed off far away.
    expect(Math.hypot(after.new.x - before.n5.x, after.new.y - before.n5.y)).toBeLessThan(300);
  });

  it('nothing new (a node gone, a title changed): the same positions, no layout', () => {
    const plan = relayoutPlan(before, many.slice(1));
    expect(plan).toEqual({ kind: 'keep', positions: Object.fromEntries(many.slice(1).map((n) => [n.id, before[n.id]])) });
  });

  it('many new nodes, none of the old, or no layout before: a whole new layout', () => {
    expect(relayoutPlan(undefined, many).kind).toBe('full');
    expect(relayoutPlan(before, [{ id: 'x' }, { id: 'y' }]).kind).toBe('full');
    const lots = [...many, ...Array.from({ length: 20 }, (_, i) => ({ id: `m${i}` }))];
    expect(relayoutPlan(before, lots).kind).toBe('full');
    expect(relayoutPlan(before, [...many, ...lots.slice(40, 50)]).kind).toBe('add');
  });
});
