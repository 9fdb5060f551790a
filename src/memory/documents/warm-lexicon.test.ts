import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Bm25Index, type Bm25Stats } from '../embedder/index.js';
import { WarmLexicon } from './warm-lexicon.js';

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A Zipf-like vocabulary: a few very common terms, a long tail held by one document each. */
function tokensOf(r: () => number, vocab: number): string[] {
  const n = 1 + Math.floor(r() * 20);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`w${Math.floor(vocab ** r()) - 1}`);
  // An empty-string token and a CJK one now and then (terms are opaque strings).
  if (r() < 0.02) out.push('');
  if (r() < 0.05) out.push('北京');
  return out;
}

/** Everything a caller can read from both indexes must be identical (scores to the bit, Map order included). */
function assertSame(a: Bm25Index, b: WarmLexicon, ids: readonly string[], vocab: number, r: () => number): void {
  assert.equal(b.size, a.size);
  assert.equal(b.totalLength, a.totalLength);
  assert.equal(b.avgLength, a.avgLength);
  for (const id of ids) {
    assert.equal(b.has(id), a.has(id), id);
    assert.equal(b.lengthOf(id), a.lengthOf(id), id);
    const x = a.terms(id);
    const y = b.terms(id);
    assert.deepEqual(y && [...y], x && [...x], `terms of ${id} in the same order`);
    if (x && y) {
      assert.equal(y.size, x.size);
      assert.deepEqual([...y.keys()], [...x.keys()]);
      assert.deepEqual([...y.values()], [...x.values()]);
      const seen: [string, number][] = [];
      y.forEach((c, t) => seen.push([t, c]));
      assert.deepEqual(seen, [...x.entries()]);
      for (const t of ['w0', 'w1', 'w7', 'w19999', '', '北京', 'absent']) {
        assert.equal(y.get(t), x.get(t));
        assert.equal(y.has(t), x.has(t));
      }
    }
  }
  for (let t = 0; t < Math.min(vocab, 300); t++) {
    assert.equal(b.df(`w${t}`), a.df(`w${t}`));
    assert.equal(b.idf(`w${t}`), a.idf(`w${t}`));
  }
  assert.equal(b.df(''), a.df(''));
  const stats: Bm25Stats = { idf: (t) => 0.5 + (t.length % 7) / 3, avgLen: 9.25 };
  for (let i = 0; i < 25; i++) {
    const q = new Map<string, number>();
    for (const t of tokensOf(r, vocab).slice(0, 6)) q.set(t, r() < 0.7 ? 1 : r());
    for (const limit of [1, 7, 50, Infinity]) {
      for (const s of [undefined, stats]) {
        const x = [...a.scoreTop(q, limit, s)];
        const y = [...b.scoreTop(q, limit, s)];
        assert.deepEqual(y, x, `query ${[...q.keys()].join(' ')} limit ${limit}`);
      }
    }
    assert.deepEqual(b.search(q, 10), a.search(q, 10));
    const ext = tokensOf(r, vocab);
    assert.equal(b.scoreExternal(q, ext), a.scoreExternal(q, ext));
  }
}

test('WarmLexicon scores, counts and orders exactly as Bm25Index through adds, replacements, removals, merges and compactions', () => {
  const r = rng(190);
  const vocab = 20_000;
  const a = new Bm25Index();
  const b = new WarmLexicon();
  const ids: string[] = [];
  const known = new Set<string>();
  let next = 0;
  for (let round = 0; round < 12; round++) {
    // Adds (enough postings to pass the merge threshold several times), some replacing a live id.
    for (let i = 0; i < 700; i++) {
      const id = r() < 0.1 && ids.length ? ids[Math.floor(r() * ids.length)] : `d${next++}`;
      if (!known.has(id)) {
        known.add(id);
        ids.push(id);
      }
      const toks = tokensOf(r, vocab);
      a.add(id, toks);
      b.add(id, toks);
    }
    // Removals: rounds 4–8 remove most documents, so more than 1,000 removed ones trigger compaction.
    const share = round >= 4 && round <= 8 ? 0.6 : 0.1;
    for (const id of ids) {
      if (r() < share) {
        assert.equal(b.remove(id), a.remove(id));
      }
    }
    assert.equal(b.remove('never-added'), false);
    if (round % 3 === 0) b.merge();
    assertSame(a, b, ids, vocab, r);
  }
  assert.ok(b.termCount > 0 && b.postingCount > 0);
  assert.ok(b.compactions >= 1, 'compaction was exercised');
});

test('WarmLexicon: an empty index and removed terms score nothing; a forgotten term comes back fresh', () => {
  const b = new WarmLexicon();
  assert.deepEqual([...b.scoreTop(new Map([['x', 1]]), 10)], []);
  assert.equal(b.terms('x'), undefined);
  assert.equal(b.lengthOf('x'), undefined);
  b.add('a', ['pottery', 'class', 'pottery']);
  b.merge();
  const view = b.terms('a')!;
  assert.deepEqual([...view], [['pottery', 2], ['class', 1]]);
  assert.equal(b.remove('a'), true);
  assert.deepEqual([...view], [['pottery', 2], ['class', 1]], 'a view taken before a removal stays what it was');
  assert.equal(b.df('pottery'), 0);
  assert.equal(b.termCount, 0);
  assert.deepEqual([...b.scoreTop(new Map([['pottery', 1]]), 10)], []);
  b.add('b', ['pottery']);
  assert.equal(b.df('pottery'), 1);
  assert.deepEqual([...b.scoreTop(new Map([['pottery', 1]]), 10).keys()], ['b']);
  b.merge();
  assert.equal(b.postingCount, 1, 'the removed document’s posting was dropped at the merge');
  assert.deepEqual([...b.scoreTop(new Map([['pottery', 1]]), 10).keys()], ['b']);
});
