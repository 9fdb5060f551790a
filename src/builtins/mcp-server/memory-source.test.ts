import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PluginSDK } from '../../sdk/index.js';
import { MemorySource, queryTerms } from './memory-source.js';

test('queryTerms: words lower-cased, CJK runs as overlapping pairs', () => {
  assert.deepEqual(queryTerms('Longjing TEA, tea!'), ['longjing', 'tea']);
  assert.deepEqual(queryTerms('我住在杭州'), ['我住', '住在', '在杭', '杭州']);
  assert.deepEqual(queryTerms('  '), []);
});

/** A `host.memory` that answers like the recall over every tier (K-1): hits carry their tier. */
function sdkWith(memory: Record<string, unknown>): PluginSDK {
  return { use: (name: string) => (name === 'host.memory' ? memory : undefined) } as unknown as PluginSDK;
}

test('the seam switches to the one recall: tiered hits stand for every tier, no separate context or graph lookups', async () => {
  const calls: string[] = [];
  const source = new MemorySource(
    sdkWith({
      searchDocuments: async () => {
        calls.push('searchDocuments');
        return [
          { tier: 'context', id: 'e1', text: 'said just now', score: 3, createdAt: 1, refs: ['webui:a#1'], sessionId: 'webui:a' },
          { tier: 'archive', id: 'a7', text: 'said last year', score: 2, createdAt: 0, refs: ['webui:b#4'] },
          { tier: 'graph', id: 'relation:9', text: 'user likes tea', score: 1, createdAt: 0, refs: [] },
        ];
      },
      context: async () => assert.fail('context() must not be scanned when the recall covers it'),
      graph: async () => assert.fail('graph() must not be queried when the recall covers it'),
    }),
  );
  const hits = await source.search('tea', { limit: 5, sources: ['context', 'documents', 'graph'] });
  assert.deepEqual(
    hits.map((h) => [h.ref, h.source, h.turnId]),
    [
      ['context:e1', 'context', 'webui:a#1'],
      ['archive:a7', 'archive', 'webui:b#4'],
      ['graph:relation:9', 'graph', undefined],
    ],
  );
  const onlyGraph = await source.search('tea', { limit: 5, sources: ['graph'] });
  assert.deepEqual(
    onlyGraph.map((h) => h.ref),
    ['graph:relation:9'],
  );
  assert.deepEqual(calls, ['searchDocuments', 'searchDocuments']);
});

test('today (untiered document hits): documents from the search, context and graph from their own lookups', async () => {
  const source = new MemorySource(
    sdkWith({
      searchDocuments: async () => [{ id: 'd1', text: 'tea notes', score: 1, createdAt: 5, refs: ['cli:x#2'] }],
      context: async () => [
        { id: 'c1', timestamp: 2, kind: 'user', source: 'webui', sessionId: 'webui:z', input: 'I like green tea', response: '' },
        { id: 'c2', timestamp: 3, kind: 'user', source: 'webui', sessionId: 'webui:z', input: 'unrelated', response: '' },
      ],
      graph: async (o: { query?: string }) => ({ entities: [], relations: o.query === 'tea' ? [{ id: 1, subject: 'user', predicate: 'likes', object: 'tea', confidence: 1 }] : [] }),
    }),
  );
  const hits = await source.search('tea', { limit: 5 });
  assert.deepEqual(
    hits.map((h) => h.ref).sort(),
    ['context:c1', 'document:d1', 'entity:user'],
  );
  await assert.rejects(source.read('library:x1y'), /memory library|not running/);
  await assert.rejects(source.read('nonsense'), /not a memory reference/);
});
