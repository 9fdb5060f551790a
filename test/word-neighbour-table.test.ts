/**
 * The generator of the word-neighbour table (decision 0300, bench/word-neighbours/build-table.ts) on
 * small hand-made vectors in the wink-embeddings format: which words enter the vocabulary, which
 * neighbours are kept, and that the output is deterministic and reads back through recall's reader.
 */
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { test } from 'node:test';
import { buildTable } from '../bench/word-neighbours/build-table.js';
import { decodeWordNeighbours } from '../src/memory/recall/word-neighbours.js';

/** Words in "frequency order" with 3-d vectors chosen so the cosines are known. */
function embeddings(): { dimensions: number; words: string[]; vectors: Record<string, number[]> } {
  const v: Record<string, number[]> = {
    the: [1, 0, 0],
    ',': [1, 0, 0],
    dog: [1, 0.1, 0],
    dogs: [1, 0.12, 0],
    puppy: [1, 0.3, 0],
    puppies: [1, 0.32, 0],
    cat: [1, 0.6, 0],
    Paris: [1, 0, 0],
    car: [0, 0, 1],
    truck: [0, 0.3, 1],
    x: [1, 0, 0],
    wolf: [0.9, 0.2, 0],
  };
  return { dimensions: 3, words: Object.keys(v), vectors: Object.fromEntries(Object.entries(v).map(([w, x]) => [w, [...x, 0, 0]])) };
}

test('the vocabulary is the first n lower-case words that are no stop-word; neighbours by cosine, one per stem, at most k, none below θ', () => {
  const r = buildTable(embeddings(), { n: 7, k: 2, theta: 0.5 });
  const t = decodeWordNeighbours(zlib.gunzipSync(r.gz));
  assert.deepEqual([...t.words], ['dog', 'dogs', 'puppy', 'puppies', 'cat', 'car', 'truck'], 'no stop-word, punctuation, capitalised or one-letter word; the first n only');
  assert.deepEqual(
    t.of('dog').map((n) => n.word),
    ['puppy', 'cat'],
    'dogs is the same stem; puppies the stem of puppy, already taken; k = 2',
  );
  assert.deepEqual(
    t.of('car').map((n) => n.word),
    ['truck'],
    'the dog words are below θ',
  );
  assert.ok(Math.abs(t.of('car')[0].cosine - 1 / Math.hypot(0.3, 1)) < 1 / 255);
  assert.equal(t.header.k, 2);
  assert.equal(t.header.theta, 0.5);
});

test('the same vectors give the same bytes', () => {
  const a = buildTable(embeddings(), { n: 50, k: 10, theta: 0.5, source: 'test' });
  const b = buildTable(embeddings(), { n: 50, k: 10, theta: 0.5, source: 'test' });
  assert.ok(a.gz.equals(b.gz));
  assert.equal(a.words, 8);
});
