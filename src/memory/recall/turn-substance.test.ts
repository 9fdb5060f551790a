import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { testConfig } from '../embedder/__fixtures__/test-config.js';
import { EmbedderService } from '../embedder/index.js';
import { inEachTier, type TestTurn } from './__fixtures__/each-tier.js';
import { addSubstance, asksForSet } from './turn-substance.js';

const embedder = new EmbedderService({ config: testConfig() });
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'substance-test-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('a question that asks for a set is told from one that asks for one fact, in English and Chinese, without a lexicon', () => {
  for (const q of ['What books has Anna read?', 'Which cities did they visit last year?', 'What kinds of music does he like?', 'How many times did Tom go skiing?', '她养过哪些宠物？', '我们去过哪几个城市', '你周末都做了些什么？', '他会几种乐器']) assert.equal(asksForSet(q), true, q);
  for (const q of ['What does Tom like?', 'What is his job?', 'What was Anna\'s answer?', 'Which bus goes downtown?', 'When did she move?', '你住在哪里？', '他叫什么名字', 'Does this work?']) assert.equal(asksForSet(q), false, q);
  assert.equal(asksForSet(`${'x '.repeat(200)}what books`), false, 'only the head of a long text is read');
});

test('substance adds up to the weight, in proportion to length below the average, and nothing at weight 0', () => {
  const lens = new Map([['short', 2], ['avg', 10], ['long', 40]]);
  const scores = new Map([['short', 0.1], ['avg', 0.1], ['long', 0.1], ['unknown', 0.1]]);
  addSubstance(scores, (id) => lens.get(id), 10, 0.5);
  assert.ok(Math.abs(scores.get('short')! - 0.2) < 1e-12);
  assert.ok(Math.abs(scores.get('avg')! - 0.6) < 1e-12);
  assert.ok(Math.abs(scores.get('long')! - 0.6) < 1e-12, 'saturates at the average length');
  assert.equal(scores.get('unknown'), 0.1, 'unknown length: unchanged');
  const same = new Map(scores);
  addSubstance(same, (id) => lens.get(id), 10, 0);
  assert.deepEqual(same, scores);
});

/**
 * One person's turns: a short phatic one and statements that share no word with the set question but
 * the name; someone else's turn says the question's word (as in a real conversation, the name-only
 * matches score well below the best match).
 */
const TURNS: TestTurn[] = [
  ['S1', 'Anna', 'Anna: thanks!'],
  ['S1', 'Ben', 'Ben: sure'],
  ['S2', 'Anna', 'Anna: we drove to the coast and camped two nights under the stars near the lighthouse'],
  ['S2', 'Ben', 'Ben: cool'],
  ['S3', 'Anna', 'Anna: I finished the pottery course and glazed three bowls for my grandmother'],
  ['S4', '小明', '小明：好的'],
  ['S4', 'Ben', 'Ben: 嗯'],
  ['S5', '小明', '小明：上个月我们一家人开车去海边露营，晚上在沙滩上看星星，还钓了几条鱼'],
  ['S6', 'Ben', 'Ben: the school activities fair is next week'],
  ['S6', 'Ben', 'Ben: 学校的活动下周做'],
];


test('for a set question about a person, their statements of substance outrank their short turns (only with the knob on), the same in every tier', async () => {
  const orders = await inEachTier(root, embedder, TURNS, async (recall) => {
    const at = (list: string[], t: string) => (list.includes(t) ? list.indexOf(t) : Infinity);
    const ids = async (q: string, w: number) => (await recall.search(q, { k: 5, tiers: ['context', 'document', 'archive'], rank: { setSubstanceEvidence: w } })).map((h) => h.turnId ?? h.id);
    const off = await ids('What activities has Anna done?', 0);
    assert.ok(at(off, 't0') < at(off, 't2') && at(off, 't0') < at(off, 't4'), `off: Anna's short turn above her statements on her name alone (${off.join(',')})`);
    const on = await ids('What activities has Anna done?', 1);
    assert.deepEqual(on.filter((t) => t !== 't8').slice(0, 2).sort(), ['t2', 't4'], `on: the camping trip and the pottery course before "thanks!" (${on.join(',')})`);
    assert.deepEqual(await ids('What did Anna say?', 0.5), await ids('What did Anna say?', 0), 'no set question: unchanged');
    const zhOff = await ids('小明都做过什么活动？', 0);
    assert.ok(at(zhOff, 't5') < at(zhOff, 't7'), `Chinese, off: 好的 first (${zhOff.join(',')})`);
    const zh = await ids('小明都做过什么活动？', 1);
    assert.ok(at(zh, 't7') < at(zh, 't5'), `Chinese, on: 小明's trip before 好的 (${zh.join(',')})`);
  return [...on, ...zh];
  });
  assert.deepEqual(orders[1], orders[0], 'warm documents = archive');
  assert.deepEqual(orders[2], orders[0], 'context window = archive');
});
