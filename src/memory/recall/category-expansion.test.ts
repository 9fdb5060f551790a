import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { ContextEvent } from '../../spec/index.js';
import { ColdArchive } from '../archive/index.js';
import { eventDocument } from '../documents/index.js';
import { testConfig } from '../embedder/__fixtures__/test-config.js';
import { EmbedderService } from '../embedder/index.js';
import { categoryMembers, memberTermsOf } from './category-expansion.js';
import { MemoryRecall } from './index.js';

const embedder = new EmbedderService({ config: testConfig() });
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'category-test-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('a question about a set or a kind names its category\'s members, in English and Chinese', () => {
  assert.match(categoryMembers('What activities does Melanie partake in?'), /\bpottery\b/, 'plural');
  assert.match(categoryMembers('What is her favourite hobby'), /\bcamping\b/, '"favourite" asks for a kind');
  assert.match(categoryMembers('Which kind of sport does he like?'), /\bbasketball\b/, '"which kind of"');
  assert.match(categoryMembers('What pets does Nate have?'), /\bturtle\b/);
  assert.match(categoryMembers('What martial arts has John done?'), /\bkickboxing\b/);
  assert.match(categoryMembers('我有什么爱好'), /陶艺/);
  assert.match(categoryMembers('他养了哪些宠物？'), /乌龟/);
});

test('a category word that is not asked about as a set adds nothing', () => {
  assert.equal(categoryMembers('Where did we park the car?'), '', 'no category word');
  assert.equal(categoryMembers('Is this a process?'), '', '"process" is no plural of a category word');
  assert.equal(categoryMembers('How was the art show on Friday?'), '', 'a singular category word nobody asks the kind of');
  assert.equal(categoryMembers('Did she like the activity fair?'), '');
  assert.equal(categoryMembers('周末的活动取消了'), '', 'Chinese: no question word, no set question');
  assert.equal(categoryMembers(`${'x '.repeat(400)}what activities`), '', 'only the head of a long text is read');
});

test('member terms are the members the query does not say itself, at the given weight', () => {
  const tokenize = (t: string) => embedder.tokenize(t);
  const q = 'What activities include pottery?';
  const terms = new Map(tokenize(q).map((t) => [t, 1]));
  const out = memberTermsOf(terms, categoryMembers(q), tokenize, 0.3)!;
  assert.equal(out.get(tokenize('camping')[0]), 0.3);
  assert.equal(out.has(tokenize('pottery')[0]), false, 'a word of the query keeps its own weight');
  assert.equal(memberTermsOf(terms, categoryMembers(q), tokenize, 0), undefined, 'weight 0: off');
  assert.equal(memberTermsOf(terms, categoryMembers('Where is the car?'), tokenize, 0.3), undefined, 'no category: nothing');
});

/** Turns that answer a category question without its word, in the archive tier (SQLite on disk). */
const TURNS: [string, string][] = [
  ['Melanie', 'Melanie: we went camping at the lake with the kids'],
  ['Melanie', 'Melanie: I finished a pottery bowl in class today'],
  ['Caroline', 'Caroline: what did you think of the activities fair at school?'],
  ['Caroline', 'Caroline: the activities fair was loud, I left early'],
  ['小明', '小明：周末去爬山了，山顶风景很好'],
  ['小明', '小明：今天的活动室很吵'],
  ['Caroline', 'Caroline: the art show was crowded'],
  ['Caroline', 'Caroline: I went hiking and swimming all weekend'],
];

test('recall finds list answers that share no word with the question, in English and Chinese, only with the knob on', async () => {
  const home = path.join(root, 'h');
  const archive = new ColdArchive({ home, tokenize: (t) => embedder.tokenize(t) });
  archive.open();
  const docs = TURNS.map(([who, text], i): ContextEvent => ({ id: `e${i}`, timestamp: Date.UTC(2023, 4, 1 + i), kind: 'user', source: 'chat', channel: 'chat', sessionId: `S${i}`, input: text, response: '', refs: [`t${i}`], speaker: { id: who, name: who } }));
  archive.putMany(docs.map((e) => eventDocument(e, 0)));
  const recall = new MemoryRecall({ embedder, archive: () => archive });
  try {
    const ids = async (q: string, categoryWeight: number) => (await recall.search(q, { k: 5, tiers: ['archive'], rank: { categoryWeight } })).map((h) => h.turnId);
    const on = await ids('What activities were done?', 0.5);
    assert.ok(on.includes('t0') && on.includes('t1'), `camping and pottery found: ${on.join(',')}`);
    const off = await ids('What activities were done?', 0);
    assert.deepEqual(off.sort(), ['t2', 't3'], `without the knob only the question's own word matches: ${off.join(',')}`);
    const zh = await ids('平时有什么爱好？', 0.5);
    assert.ok(zh.includes('t4') && !zh.includes('t5'), `爬山 answers 爱好 (the lexicon is bilingual: camping and pottery too), 活动室 does not: ${zh.join(',')}`);
    assert.deepEqual(await ids('平时有什么爱好？', 0), [], 'without the knob nothing shares a word with 爱好');
    const melanie = await ids('What activities does Melanie do?', 0.5);
    assert.ok(melanie.includes('t0') && melanie.includes('t1'), `Melanie's camping and pottery: ${melanie.join(',')}`);
    assert.ok(!melanie.includes('t7'), `a question about Melanie: Caroline's hiking does not count as Melanie's activity: ${melanie.join(',')}`);
    assert.ok(on.includes('t7'), 'naming nobody, everyone\'s statements count');
    assert.deepEqual(await ids('How was the art show?', 0.5), await ids('How was the art show?', 0), 'no set question: the ranking is unchanged');
  } finally {
    archive.close();
  }
});
