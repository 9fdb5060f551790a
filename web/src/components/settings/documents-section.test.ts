import { describe, expect, it } from 'vitest';
import { embedderInWords, flattenStats, statLabelKey, statValue } from './documents-section';

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

describe('statValue', () => {
  it('formats numbers for people: sensible precision, the page locale', () => {
    expect(statValue('graph.avgConfidence', 0.8000000000000002, 'en')).toBe('0.8');
    expect(statValue('graph.avgConfidence', 0.876543, 'zh')).toBe('0.88');
    expect(statValue('graph.relations', 12345, 'en')).toBe('12,345');
    expect(statValue('context.events', 3, 'zh')).toBe('3');
    expect(statValue('archive.bytes', 86528, 'en')).toBe('84.5 KB');
  });

  it('says what ranks recall in words, not the embedder id (`lexical` was shown raw in the Chinese page)', () => {
    expect(statValue('embedder', 'lexical', 'zh')).toBe('未用（按字词匹配）');
    expect(statValue('embedder', 'lexical', 'en')).toBe('none (matches words)');
    expect(embedderInWords('static:cc.zh.300.vec#300', 'zh')).toBe('词向量 cc.zh.300.vec（300 维）');
    expect(embedderInWords('api:text-embedding-3-small#1536', 'en')).toBe('embeddings API text-embedding-3-small (1536 dims)');
    expect(embedderInWords('something-else', 'zh')).toBe('something-else');
    const long = `static:${'x'.repeat(60)}.vec#300`;
    expect(flattenStats({ embedder: long })).toEqual([['embedder', long]]);
  });

  it('labels the size of an archive with no archived turn as the empty store', () => {
    expect(statLabelKey('archive.bytes', { archive: { count: 0, bytes: 86528 } })).toBe('stats.archive.bytesEmpty');
    expect(statLabelKey('archive.bytes', { archive: { count: 2, bytes: 86528 } })).toBe('stats.archive.bytes');
    expect(statLabelKey('graph.nested', {})).toBeUndefined();
  });
});
