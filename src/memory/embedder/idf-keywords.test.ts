import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { Jieba, TfIdf } from '@node-rs/jieba';
import { IdfKeywords } from './idf-keywords.js';

const require = createRequire(import.meta.url);
const dictFile = fs.readFileSync(require.resolve('@node-rs/jieba/dict.txt'));
const idfFile = fs.readFileSync(require.resolve('@node-rs/jieba/idf.txt'));

/** Deterministic pseudo-random texts from dictionary words, repeated words and characters jieba's IDF table lacks. */
function texts(n: number): string[] {
  const words = dictFile.toString('utf8').split('\n').map((l) => l.split(' ')[0]).filter((w) => w && /^[\u4e00-\u9fff]+$/.test(w));
  let seed = 7;
  const r = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const parts: string[] = [];
    const len = 2 + Math.floor(r() * 30);
    for (let j = 0; j < len; j++) {
      const x = r();
      parts.push(x < 0.1 ? '，' : x < 0.2 && parts.length ? parts[Math.floor(r() * parts.length)] : x < 0.25 ? '龘靐' : words[Math.floor(r() * words.length)]);
    }
    out.push(parts.join(''));
  }
  return out;
}

test("IdfKeywords ranks exactly as jieba's TfIdf (same keywords, order and weights) on 2,000 texts", () => {
  const jieba = Jieba.withDict(dictFile);
  const theirs = TfIdf.withDict(idfFile);
  const ours = new IdfKeywords(idfFile);
  for (const text of [...texts(2000), '今天我们去北京天安门看升旗', '今天纽约的天气真好啊，京华大酒店的张尧经理吃了一只北京烤鸭。后天纽约的天气不好，昨天纽约的天气也不好，北京烤鸭真好吃']) {
    for (const k of [3, 8]) {
      const want = theirs.extractKeywords(jieba, text, k).map((x) => [x.keyword, x.weight]);
      const got = ours.top(jieba.cut(text, false), k).map((x) => [x.keyword, x.weight]);
      assert.deepEqual(got, want, text);
    }
  }
});

test('IdfKeywords: lookups, the median for unknown words, a later line replacing an earlier one, malformed lines skipped', () => {
  const t = new IdfKeywords(Buffer.from('甲乙 2.5\n丙丁 1\r\n  戊己\t4\n坏行 abc\n\n甲乙 3\n空行\n庚辛 5'));
  assert.equal(t.idf('甲乙'), 3);
  assert.equal(t.idf('丙丁'), 1);
  assert.equal(t.idf('戊己'), 4);
  assert.equal(t.idf('庚辛'), 5);
  assert.equal(t.idf('坏行'), undefined);
  assert.equal(t.idf('未知'), undefined);
  // Values 2.5, 1, 4, 3, 5: the ⌊5/2⌋-th largest after popping two is the third largest.
  assert.equal(t.medianIdf, 3);
  assert.deepEqual(t.top(['未知', '甲乙', '甲乙', '一', 'the', 'The'], 5), [
    { keyword: '甲乙', weight: (2 * 3) / 3 },
    { keyword: '未知', weight: 3 / 3 },
  ]);
  assert.deepEqual(new IdfKeywords(Buffer.alloc(0)).top(['甲乙'], 3), [{ keyword: '甲乙', weight: 0 }]);
});

test("IdfKeywords holds every word of jieba's IDF file under its own fingerprint, with its own value", () => {
  const t = new IdfKeywords(idfFile);
  assert.equal(t.collisions, 0);
  const want = new Map<string, number>();
  for (const line of idfFile.toString('utf8').split('\n')) {
    const [w, v] = line.trim().split(/\s+/);
    if (w && v !== undefined && Number.isFinite(Number(v))) want.set(w, Number(v));
  }
  assert.equal(t.size, want.size);
  for (const [w, v] of want) assert.equal(t.idf(w), v, w);
});

test('IdfKeywords: a repeated word replaces its value and is no collision; different words are held apart', () => {
  const repeated = new IdfKeywords(Buffer.from('甲乙 1\n甲乙 2\n'));
  assert.deepEqual([repeated.collisions, repeated.size, repeated.idf('甲乙')], [0, 1, 2]);
  const two = new IdfKeywords(Buffer.from('甲乙 1\n丙丁 2\n'));
  assert.deepEqual([two.collisions, two.size, two.idf('甲乙'), two.idf('丙丁')], [0, 2, 1, 2]);
});
