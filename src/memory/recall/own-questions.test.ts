import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { asksQuestion, type MemoryDocument } from '../documents/index.js';
import { testConfig } from '../embedder/__fixtures__/test-config.js';
import { EmbedderService } from '../embedder/index.js';
import { DEFAULT_RANK_OPTIONS } from './evidence-ranker.js';
import { inEachTier, type TestTurn } from './__fixtures__/each-tier.js';
import { discountOwnQuestions } from './own-questions.js';

const embedder = new EmbedderService({ config: testConfig() });
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'own-questions-test-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const doc = (id: string, who: string, content: string): MemoryDocument => ({ id, content, input: content, response: '', kind: 'context', source: 'chat', channel: 'chat', sessionId: 'S', createdAt: 0, addedAt: 0, accessCount: 0, refs: [], speaker: { id: who, name: who } });

test('the named person\'s own questions keep (1 − discount) of the speaker bonus; statements and other people\'s questions are untouched', () => {
  const docs = new Map([
    ['q', doc('q', 'Anna', 'Anna: did you go to the lake?')],
    ['s', doc('s', 'Anna', 'Anna: the lake was cold')],
    ['o', doc('o', 'Ben', 'Ben: was the lake cold?')],
    ['zq', doc('zq', '小明', '小明：你去过湖边吗')],
    ['zs', doc('zs', '小明', '小明：湖水很冷')],
  ]);
  const scores = () => new Map([...docs.keys()].map((id) => [id, 2]));
  const s = scores();
  discountOwnQuestions(s, new Set(['Anna', '小明']), 1, 0.25, (id) => docs.get(id), (d) => asksQuestion(d.content));
  assert.equal(s.get('q'), 2 * (1.75 / 2), 'Anna asks: ×1.75 instead of ×2');
  assert.equal(s.get('zq'), 2 * (1.75 / 2), '小明 asks (…吗): the same');
  assert.equal(s.get('s'), 2, 'a statement keeps the whole bonus');
  assert.equal(s.get('zs'), 2);
  assert.equal(s.get('o'), 2, 'Ben is not named: his question was never boosted');
  for (const [boost, discount] of [[0, 0.25], [1, 0]]) {
    const t = scores();
    discountOwnQuestions(t, new Set(['Anna']), boost, discount, (id) => docs.get(id), (d) => asksQuestion(d.content));
    assert.deepEqual(t, scores(), `speakerBoost ${boost}, discount ${discount}: nothing to withhold`);
  }
  const all = scores();
  discountOwnQuestions(all, new Set(['Anna']), 1, 5, (id) => docs.get(id), (d) => asksQuestion(d.content));
  assert.equal(all.get('q'), 1, 'a discount above 1 withholds the whole bonus, no more');
});

/** The named person asks about the lake (later, so it wins a tie) and states something about it; the same words. */
const TURNS: TestTurn[] = [
  ['S1', 'Anna', 'Anna: the lake was cold'],
  ['S2', 'Anna', 'Anna: the lake, was it cold?'],
  ['S3', '小明', '小明：湖水很冷'],
  ['S4', '小明', '小明：湖水很冷吗'],
  ['S5', 'Ben', 'Ben: I like my bike'],
];

test('by default a named person\'s statement outranks their own question with the same words, in English and Chinese, in every tier', async () => {
  assert.equal(DEFAULT_RANK_OPTIONS.focusAskDiscount, 0.25);
  const orders = await inEachTier(root, embedder, TURNS, async (recall) => {
    const ids = async (q: string, rank = {}) => (await recall.search(q, { k: 2, tiers: ['context', 'document', 'archive'], rank })).map((h) => h.turnId ?? h.id);
    assert.deepEqual(await ids('How cold was the lake for Anna?', { focusAskDiscount: 0 }), ['t1', 't0'], 'off: a tie, the newer (the question) first');
    assert.deepEqual(await ids('How cold was the lake for Anna?'), ['t0', 't1'], 'default: the statement first');
    assert.deepEqual(await ids('小明觉得湖水冷不冷', { focusAskDiscount: 0 }), ['t3', 't2']);
    assert.deepEqual(await ids('小明觉得湖水冷不冷'), ['t2', 't3']);
    assert.deepEqual(await ids('How cold was the lake?'), await ids('How cold was the lake?', { focusAskDiscount: 0 }), 'a query naming nobody: unchanged');
  return [...(await ids('How cold was the lake for Anna?')), ...(await ids('小明觉得湖水冷不冷'))];
  });
  assert.deepEqual(orders[1], orders[0], 'warm documents = archive');
  assert.deepEqual(orders[2], orders[0], 'context window = archive');
});
