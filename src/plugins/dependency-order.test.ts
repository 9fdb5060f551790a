import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dependencyOrder } from './dependency-order.js';

const graph = (g: Record<string, string[]>) => (n: string) => g[n];

test('dependencies come first; each plugin once', () => {
  const { order, problems } = dependencyOrder(['d', 'c', 'b', 'a'], graph({ a: [], b: ['a'], c: ['b', 'a'], d: ['c'] }));
  assert.deepEqual(order, ['a', 'b', 'c', 'd']);
  assert.equal(problems.size, 0);
});

test('a cycle marks its members, dependents get a problem, unrelated plugins are fine', () => {
  const { order, problems } = dependencyOrder(['x', 'y', 'z', 'w', 'ok'], graph({ x: ['y'], y: ['z'], z: ['x'], w: ['x'], ok: [] }));
  assert.deepEqual([...order].sort(), ['ok', 'w', 'x', 'y', 'z']);
  for (const n of ['x', 'y', 'z']) assert.match(problems.get(n)!, /dependency cycle: /);
  assert.match(problems.get('w')!, /dependency "x" cannot start: dependency cycle/);
  assert.equal(problems.has('ok'), false);
});

test('a missing dependency marks the plugin and its dependents; a self-dependency is a cycle', () => {
  const { problems } = dependencyOrder(['a', 'b', 's'], graph({ a: ['ghost'], b: ['a'], s: ['s'] }));
  assert.equal(problems.get('a'), 'missing dependency "ghost"');
  assert.match(problems.get('b')!, /dependency "a" cannot start: missing dependency "ghost"/);
  assert.equal(problems.get('s'), 'dependency cycle: s → s');
});
