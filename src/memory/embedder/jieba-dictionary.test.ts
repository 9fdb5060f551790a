import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { withoutTags } from './jieba-dictionary.js';

const require = createRequire(import.meta.url);

test('withoutTags drops the third field of each line and keeps everything else byte for byte', () => {
  const cases: [string, string][] = [
    ['1号店 3 n\n4S店 3 n\n', '1号店 3\n4S店 3\n'],
    ['词 10 nz\r\n另 2 v\r\n', '词 10\n另 2\n'],
    ['只有词\n词 5\n', '只有词\n词 5\n'],
    ['词\t7\tn\n', '词\t7\n'],
    ['末行 4 a', '末行 4'],
    ['', ''],
    ['\n\n', '\n\n'],
  ];
  for (const [input, want] of cases) assert.equal(withoutTags(Buffer.from(input)).toString('utf8'), want, JSON.stringify(input));
});

test('jieba segments identically with and without the part-of-speech column (guards the claim against a jieba upgrade)', () => {
  const { Jieba } = require('@node-rs/jieba') as typeof import('@node-rs/jieba');
  const file = fs.readFileSync(require.resolve('@node-rs/jieba/dict.txt'));
  const full = Jieba.withDict(file);
  const stripped = Jieba.withDict(withoutTags(file));
  // Chinese from the labelled statements, and seeded runs of dictionary words (rare ones too: the
  // tag column holds words that frequency alone would segment differently, if it were read).
  const labelled = (JSON.parse(fs.readFileSync(new URL('../distill/__fixtures__/fact-statements.json', import.meta.url), 'utf8')) as { items: { text: string }[] }).items
    .map((i) => i.text)
    .filter((t) => /[\u4e00-\u9fff]/.test(t));
  const words = file.toString('utf8').split('\n').map((l) => l.split(' ')[0]).filter(Boolean);
  let s = 7;
  const r = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const runs = Array.from({ length: 3000 }, () => Array.from({ length: 2 + Math.floor(r() * 8) }, () => words[Math.floor(r() * words.length)]).join(r() < 0.2 ? '，' : ''));
  assert.ok(labelled.length > 100);
  for (const t of [...labelled, ...runs]) {
    assert.deepEqual(stripped.cut(t, true), full.cut(t, true), t);
    assert.deepEqual(stripped.cutForSearch(t, true), full.cutForSearch(t, true), t);
    assert.deepEqual(stripped.cut(t, false), full.cut(t, false), t);
  }
});
