import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GRAPH_PREVIEW_CHARS, overviewGraph, type LinkIndex } from './memory-graph.js';
import type { MemoryRecord } from './memory-file.js';

function index(recs: MemoryRecord[]): LinkIndex {
  return { get: (id) => recs.find((r) => r.id === id), backlinks: () => [], composedInto: () => [], all: () => recs };
}
const rec = (id: string, snapshot: string, extra: Partial<MemoryRecord> = {}): MemoryRecord => ({ id, title: id, snapshot, notes: '', impressions: [], tags: [], enabled: true, links: [], composedOf: [], createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', ...extra });

test("a graph node carries the start of its memory's text on one line, and who said it", () => {
  const long = '长'.repeat(GRAPH_PREVIEW_CHARS + 20);
  const g = overviewGraph(index([rec('a', '第一行\n\n  第二行'), rec('b', long), rec('c', 'x', { speaker: { id: 'telegram:42', name: 'Alice' } })]));
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  assert.equal(byId.get('a')?.preview, '第一行 第二行');
  assert.equal(byId.get('b')?.preview, `${'长'.repeat(GRAPH_PREVIEW_CHARS)}…`);
  assert.deepEqual(byId.get('c')?.speaker, { id: 'telegram:42', name: 'Alice' });
  assert.equal(byId.get('a')?.speaker, undefined);
});
