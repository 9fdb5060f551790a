import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { testConfig } from '../embedder/__fixtures__/test-config.js';
import { EmbedderService } from '../embedder/index.js';
import { inEachTier, type TestTurn } from './__fixtures__/each-tier.js';
import { categoryNoun, MAX_MEMBERS, presentMembers, singularForms, WordNetNouns, wordNetNouns } from './hyponym-expansion.js';

const embedder = new EmbedderService({ config: testConfig() });
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hyponym-test-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('the category noun of a set question, its compound, "kinds of", and no container nouns', () => {
  assert.deepEqual(categoryNoun('What sports does Anna play?'), { noun: 'sports', before: undefined });
  assert.deepEqual(categoryNoun('Which martial arts has John done?'), { noun: 'arts', before: 'martial' });
  assert.deepEqual(categoryNoun('What kinds of music does he like?'), { noun: 'music', before: undefined });
  assert.equal(categoryNoun('How many dogs do they have?')?.noun, 'dogs');
  assert.equal(categoryNoun('What things did she buy?'), undefined, 'a container noun is no category');
  assert.equal(categoryNoun('How many times did Tom go skiing?'), undefined, 'a measure noun is no category');
  assert.equal(categoryNoun('What does Tom like?'), undefined, 'no set question');
  assert.equal(categoryNoun('Where did we park the cars?'), undefined, 'a plural without what/which');
  assert.equal(categoryNoun('她喜欢哪些运动？'), undefined, 'Chinese: WordNet has none');
  assert.equal(categoryNoun(`${'x '.repeat(200)}what sports`), undefined, 'only the head of a long text is read');
});

test('singular candidates follow WordNet\'s detachment rules, irregular plurals first, the word itself last', () => {
  assert.ok(singularForms('activities').includes('activity'));
  assert.ok(singularForms('boxes').includes('box'));
  assert.ok(singularForms('churches').includes('church'));
  assert.equal(singularForms('sports')[0], 'sport');
  assert.equal(singularForms('men')[0], 'man');
  assert.equal(singularForms('series').at(-1), 'series');
});

test('the WordNet package gives every sense of a category and its kinds (English); nothing for Chinese or no category', () => {
  const sports = wordNetNouns.sensesOf('What sports does Anna play?');
  assert.ok(sports.length > 1, 'several senses');
  for (const w of ['tennis', 'skiing', 'swimming', 'football']) assert.ok(sports[0].includes(w), `first sense: ${w}`);
  assert.ok(sports.flat().every((w) => !w.includes('_') && w === w.toLowerCase()), 'single lower-case words');
  const martial = wordNetNouns.sensesOf('What martial arts has John done?');
  for (const w of ['karate', 'judo', 'taekwondo']) assert.ok(martial[0].includes(w), `compound "martial arts": ${w}`);
  assert.ok(wordNetNouns.sensesOf('Which cities did they visit?')[0].includes('boston'), 'instance hyponyms (named cities)');
  // "instruments": the most frequent sense is the device; the musical one is another sense.
  const inst = wordNetNouns.sensesOf('Which instruments does she play?');
  assert.ok(!inst[0].includes('guitar') && inst.some((s) => s.includes('guitar')));
  assert.deepEqual(wordNetNouns.sensesOf('她喜欢哪些运动？'), []);
  assert.deepEqual(wordNetNouns.sensesOf('What is her job?'), []);
  assert.deepEqual(wordNetNouns.sensesOf('What zqxwvs does he own?'), [], 'a noun WordNet does not know');
});

test('the sense whose kinds the memory holds most of wins, and only kinds it holds count towards the cap', () => {
  const senses = [['device', 'engine', 'compass', 'gauge'], ['instrument', 'guitar', 'piano', 'violin', 'drum'], ['means']];
  const tok = (t: string) => (t === 'the' ? [] : [t]);
  const memory = (words: string[]) => () => (t: string) => words.includes(t);
  assert.equal(presentMembers(senses, tok, memory(['guitar', 'piano', 'engine'])), 'guitar piano', 'a chat about music: the musical sense');
  assert.equal(presentMembers(senses, tok, memory(['engine', 'gauge', 'guitar'])), 'engine gauge', 'a chat about machines: the device');
  assert.equal(presentMembers(senses, tok, memory(['engine', 'guitar'])), 'engine', 'a tie: the more frequent sense');
  assert.equal(presentMembers(senses, tok, memory([])), '', 'nothing held: nothing');
  assert.equal(presentMembers([], tok, memory(['guitar'])), '');
  assert.equal(presentMembers(senses, tok, memory(['guitar', 'piano', 'violin', 'drum']), 2), 'guitar piano', 'at most max, breadth-first order');
  let asked: readonly string[] = [];
  presentMembers(senses, tok, (ts) => ((asked = ts), () => false));
  assert.equal(new Set(asked).size, asked.length, 'each token asked for once');
  assert.equal(MAX_MEMBERS, 100);
});

/**
 * A hand-written WordNet folder in the files' real format: sport (with a synonym) → tennis (→ doubles
 * → back to sport, a cycle), contact sport (multi-word: skipped, its kind boxing kept), Wimbledon (an
 * instance); a hypernym pointer that is not followed.
 */
function writeDict(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const header = '  1 This is a licence line.  \n  2 Another one.  \n';
  const synsets: [string, string][] = [
    ['A', 'sport 0 athletics 0 004 ~ {B} n 0000 ~ {C} n 0000 ~i {D} n 0000 @ {X} n 0000'],
    ['B', 'tennis 0 lawn_tennis 0 001 ~ {E} n 0000'],
    ['C', 'contact_sport 0 001 ~ {F} n 0000'],
    ['D', 'Wimbledon 0 000'],
    ['E', 'doubles 0 001 ~ {A} n 0000'],
    ['F', 'boxing 0 000'],
    ['X', 'activity 0 000'],
  ];
  const pad = (n: number) => String(n).padStart(8, '0');
  const offsets = new Map<string, number>();
  let at = header.length;
  const body = synsets.map(([id, rest]) => {
    const words = rest.split(' ');
    const wCnt = words.findIndex((w, i) => i % 2 === 0 && /^\d{3}$/.test(w)) / 2;
    const line = `{${id}} 04 n ${wCnt.toString(16).padStart(2, '0')} ${rest} | a gloss  `;
    offsets.set(id, at);
    at += line.replace(/\{[A-Z]\}/g, '00000000').length + 1;
    return line;
  });
  const fill = (s: string) => s.replace(/\{([A-Z])\}/g, (_, id: string) => pad(offsets.get(id)!));
  fs.writeFileSync(path.join(dir, 'data.noun'), header + body.map(fill).join('\n') + '\n');
  const index = [
    `activity n 1 1 ~ 1 0 {X}`,
    `martial_art n 1 1 ~ 1 0 {C}`,
    `sport n 2 2 @ ~ 2 1 {A} {X}`,
    `tennis n 1 1 ~ 1 1 {B}`,
  ].map((l) => `${fill(l)}  `);
  fs.writeFileSync(path.join(dir, 'index.noun'), `${header}${index.join('\n')}\n`);
}

test('senses are read breadth first from the files at their offsets: synonyms, kinds, instances; single words; cycles end', () => {
  const dir = path.join(root, 'dict');
  writeDict(dir);
  const wn = new WordNetNouns(dir);
  assert.deepEqual(wn.sensesOf('What sports does Anna play?'), [['sport', 'athletics', 'tennis', 'wimbledon', 'doubles', 'boxing'], ['activity']]);
  assert.deepEqual(wn.sensesOf('Which martial arts…'), [['boxing']], 'the compound is tried first');
  assert.deepEqual(wn.sensesOf('Which activities?'), [['activity']], 'the first line of the index is found');
  assert.deepEqual(wn.sensesOf('Which tennises?'), [['tennis', 'doubles', 'sport', 'athletics', 'wimbledon', 'boxing']], 'the last line of the index (-ses → -s); the cycle back to sport is read once');
  assert.deepEqual(wn.sensesOf('What tennis matches?'), [], 'a noun the index does not hold');
});

test('a missing, empty or corrupt WordNet folder gives no members and never throws', () => {
  assert.deepEqual(new WordNetNouns(path.join(root, 'none')).sensesOf('What sports does he play?'), []);
  const empty = path.join(root, 'empty');
  fs.mkdirSync(empty);
  fs.writeFileSync(path.join(empty, 'index.noun'), '');
  fs.writeFileSync(path.join(empty, 'data.noun'), '');
  assert.deepEqual(new WordNetNouns(empty).sensesOf('What sports does he play?'), []);
  const bad = path.join(root, 'bad');
  fs.mkdirSync(bad);
  fs.writeFileSync(path.join(bad, 'index.noun'), 'sport n x y z\nsports n 1 0 1 0 99999999  \n');
  fs.writeFileSync(path.join(bad, 'data.noun'), 'garbage\nmore garbage without the offsets it claims\n');
  assert.deepEqual(new WordNetNouns(bad).sensesOf('What sports does he play?'), [[]], 'offset past the end of data.noun: a sense without members');
  assert.deepEqual(new WordNetNouns(bad).sensesOf('Which sport kinds?'), []);
});

/** A person's turns that answer "what sports" without the word; someone else's sport; Chinese. */
const TURNS: TestTurn[] = [
  ['S1', 'Anna', 'Anna: thanks!'],
  ['S1', 'Ben', 'Ben: sure'],
  ['S2', 'Anna', 'Anna: tennis with my cousin on Sunday morning was great fun'],
  ['S3', 'Anna', 'Anna: we went skiing in the mountains over the long weekend'],
  ['S4', 'Ben', 'Ben: basketball tonight, who is in?'],
  ['S5', '小明', '小明：好的'],
  ['S5', '小明', '小明：周末我去打网球了'],
];

test('with the knob on, a set question about a person finds their turns that name kinds of the category, the same in every tier', async () => {
  const orders = await inEachTier(root, embedder, TURNS, async (recall) => {
    const at = (list: string[], t: string) => (list.includes(t) ? list.indexOf(t) : Infinity);
    const ids = async (q: string, w: number) => (await recall.search(q, { k: 5, tiers: ['context', 'document', 'archive'], rank: { hyponymSenseWeight: w } })).map((h) => h.turnId ?? h.id);
    const off = await ids('What sports does Anna play?', 0);
    assert.ok(at(off, 't0') < at(off, 't2'), `off: Anna's "thanks!" above her tennis on her name alone (${off.join(',')})`);
    const on = await ids('What sports does Anna play?', 0.5);
    assert.deepEqual(on.slice(0, 2).sort(), ['t2', 't3'], `on: her tennis and skiing first (${on.join(',')})`);
    assert.ok(at(on, 't4') > at(on, 't3'), `Ben's basketball does not count for Anna (${on.join(',')})`);
    assert.deepEqual(await ids('What did Anna say on Sunday?', 0.5), await ids('What did Anna say on Sunday?', 0), 'no set question: unchanged');
    assert.deepEqual(await ids('小明喜欢哪些运动？', 1), await ids('小明喜欢哪些运动？', 0), 'Chinese: unchanged (WordNet is English)');
    return on;
  });
  assert.deepEqual(orders[1], orders[0], 'warm documents = archive');
  assert.deepEqual(orders[2], orders[0], 'context window = archive');
});
