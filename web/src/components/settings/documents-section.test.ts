import { describe, expect, it } from 'vitest';
import { flattenStats } from './documents-section';

describe('flattenStats', () => {
  it('shows numbers and short strings, one nesting level flattened', () => {
    expect(flattenStats({ context: { events: 3 }, graph: { entities: 4, relations: 2, nested: { x: 1 } }, embedder: 'lexical', list: [1, 2] })).toEqual([
      ['context.events', 3],
      ['graph.entities', 4],
      ['graph.relations', 2],
      ['embedder', 'lexical'],
    ]);
  });

  it('leaves a running vector download to its progress bar', () => {
    expect(flattenStats({ embedder: 'lexical', embedderDownload: { file: 'cc.zh.300.vec', bytes: 10, total: 100 } })).toEqual([['embedder', 'lexical']]);
  });
});
