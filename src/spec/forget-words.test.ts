import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containsAll, queryWords } from './forget-words.js';

test('a forget by words: every word, any case; a number is a whole number', () => {
  const has = (text: string, q: string) => containsAll(text, queryWords(q));
  assert.ok(has('The door code is 4711.', '4711'));
  assert.ok(has('The Door code is 4711', 'door CODE'));
  assert.ok(!has('The door code is 4711', 'door key'));
  assert.ok(has('门锁密码是4711', '4711'), 'a number after Chinese text is whole');
  assert.ok(has('PIN:3456, then #', '3456'));
  assert.ok(!has('call 123456789', '3456'), 'not inside a longer number');
  assert.ok(!has('call 123456789', '12345678'));
  assert.ok(has('call 123456789 or 12345678', '12345678'), 'found where it stands alone');
  assert.ok(has('my code is A12345B', '12345'), 'letters around a number do not make it longer');
  assert.ok(has('hunter2hunter2', 'hunter2'), 'a word ending in a digit may be followed by a letter');
  assert.ok(!has('hunter23', 'hunter2'));
  assert.ok(has('我住在杭州西湖区', '杭州'));
  assert.ok(!has('anything', ''));
});
