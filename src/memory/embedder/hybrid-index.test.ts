import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testConfig } from './__fixtures__/test-config.js';
import { Bm25Index, cleanText, EmbedderService, HybridIndex, tfidfCosineScores } from './index.js';

const embedder = new EmbedderService({ config: testConfig() });

test('lexical hybrid index: ranks by BM25, removes, and survives hostile or huge queries', async () => {
  const idx = new HybridIndex<{ n: number }>({ embedder });
  idx.add('a', 'I love painting sunsets by the lake', { n: 1 });
  idx.add('b', 'We went camping in the mountains last weekend', { n: 2 });
  idx.add('c', '我喜欢北京烤鸭', { n: 3 });
  assert.equal(idx.size, 3);
  const hits = await idx.search('painted a sunset', 5);
  assert.deepEqual(hits.map((h) => h.id), ['a']);
  assert.deepEqual(hits[0].meta, { n: 1 });
  assert.deepEqual((await idx.search('北京', 5)).map((h) => h.id), ['c']);
  assert.deepEqual(await idx.search(`'); DROP TABLE documents; -- " OR 1=1 * NEAR(`, 5), []);
  const huge = 'camping '.repeat(200_000);
  assert.equal((await idx.search(huge, 5))[0]?.id, 'b');
  assert.equal(idx.remove('b'), true);
  assert.equal(idx.remove('b'), false);
  assert.deepEqual(await idx.search('camping', 5), []);
  idx.close();
  idx.close();
});

test('TF-IDF cosine prefers the document sharing rare terms', () => {
  const [a, b, c] = tfidfCosineScores(['pottery', 'class'], [['pottery', 'class', 'fun'], ['class', 'school'], []]);
  assert.ok(a > b && b > 0);
  assert.equal(c, 0);
});

test('cleanText normalises whitespace and strips control characters', () => {
  assert.equal(cleanText('  a\u0000b\n\n c\u200B\td  '), 'a b c d');
});

test('BM25 scoreTop returns exactly the best entries of scoreAll; removal and compaction keep scores right', () => {
  const bm = new Bm25Index();
  for (let i = 0; i < 3000; i++) bm.add(`d${i}`, [`t${i % 7}`, `u${i % 13}`, 'common']);
  const q = new Map([
    ['t3', 1],
    ['u5', 1],
    ['common', 1],
  ]);
  const all = [...bm.scoreAll(q)].sort((a, b) => b[1] - a[1]);
  const top = [...bm.scoreTop(q, 10)].sort((a, b) => b[1] - a[1]);
  assert.ok(top.length >= 10);
  assert.deepEqual(top.slice(0, 10).map((e) => e[1]), all.slice(0, 10).map((e) => e[1]));
  for (let i = 0; i < 2500; i++) bm.remove(`d${i}`); // triggers compaction
  assert.equal(bm.size, 500);
  const fresh = new Bm25Index();
  for (let i = 2500; i < 3000; i++) fresh.add(`d${i}`, [`t${i % 7}`, `u${i % 13}`, 'common']);
  assert.deepEqual([...bm.scoreAll(q)].sort(), [...fresh.scoreAll(q)].sort());
});
