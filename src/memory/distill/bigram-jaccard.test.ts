import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bigramJaccard, bigrams, findMergeCandidates } from './bigram-jaccard.js';

test('bigram Jaccard values', () => {
  assert.deepEqual([...bigrams('ab c')], ['ab', 'bc']);
  assert.equal(bigramJaccard('北京市', '北京'), 0.5);
  assert.equal(bigramJaccard('New York', 'new-york'), 1);
  assert.equal(bigramJaccard('', 'x'), 0);
  assert.equal(bigramJaccard('x', 'x'), 1);
});

test('candidates are strictly above the threshold (0.75 default)', () => {
  // "abcde" vs "abcdef": 4 / 5 = 0.8 > 0.75; "abcd" vs "abcde": 3/4 = 0.75, not above.
  assert.equal(bigramJaccard('abcde', 'abcdef'), 0.8);
  assert.equal(bigramJaccard('abcd', 'abcde'), 0.75);
  const c = findMergeCandidates(['abcd', 'abcde', 'abcdef', 'zzz', 'ABCDEF']);
  assert.deepEqual(c.map((x) => [x.a, x.b]), [['abcde', 'abcdef'], ['abcde', 'ABCDEF']]);
  assert.equal(findMergeCandidates(['abcde', 'abcdef'], 0.85).length, 0);
  assert.deepEqual(findMergeCandidates(['张三丰', '张三丰先生', '李四']).length, 0);
  assert.equal(findMergeCandidates(['Zhang Sanfeng', 'Zhang San-feng']).length, 1);
});
