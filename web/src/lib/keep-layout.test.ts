import { describe, expect, it } from 'vitest';
import { layoutKeeping } from './keep-layout';

// No Worker under vitest: layoutInWorker runs the same forceLayout on this thread.
const nodes = Array.from({ length: 12 }, (_, i) => ({ id: `n${i}` }));
const edges = nodes.slice(1).map((n, i) => ({ from: nodes[i].id, to: n.id }));

describe('layoutKeeping', () => {
  it('lays out a graph shown for the first time in whole, saying so first', async () => {
    let whole = 0;
    const pos = await layoutKeeping(undefined, nodes, edges, { whole: () => whole++ });
    expect(whole).toBe(1);
    expect(Object.keys(pos).sort()).toEqual(nodes.map((n) => n.id).sort());
  });

  it('new data with one new node: every node shown stays exactly where it stood, the new one is placed, no whole layout', async () => {
    const before = await layoutKeeping(undefined, nodes, edges);
    let whole = 0;
    const after = await layoutKeeping(before, [...nodes, { id: 'new' }], [...edges, { from: 'n3', to: 'new' }], { whole: () => whole++ });
    expect(whole).toBe(0);
    for (const n of nodes) expect(after[n.id]).toEqual(before[n.id]);
    expect(Number.isFinite(after.new.x) && Number.isFinite(after.new.y)).toBe(true);
  });

  it('new data with nothing new (a fact changed, a node gone): the same positions', async () => {
    const before = await layoutKeeping(undefined, nodes, edges);
    const after = await layoutKeeping(before, nodes.slice(1), edges.slice(1));
    for (const n of nodes.slice(1)) expect(after[n.id]).toEqual(before[n.id]);
    expect(after.n0).toBeUndefined();
  });
});
