import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, test } from 'node:test';
import { testConfig } from '../embedder/__fixtures__/test-config.js';
import { EmbedderService, weightsOf } from '../embedder/index.js';
import { inEachTier, type TestTurn } from './__fixtures__/each-tier.js';
import { ColdArchive } from '../archive/index.js';
import { eventDocument } from '../documents/index.js';
import { MemoryRecall } from './memory-recall.js';
import { turnEvents } from './__fixtures__/each-tier.js';
import { rankEvidence } from './evidence-ranker.js';
import type { RecallCorpus } from './recall-corpus.js';
import { archiveCorpus } from './tier-corpora.js';
import { expansionWords, neighbourTerms } from './word-neighbour-expansion.js';
import { decodeWordNeighbours, encodeWordNeighbours, WordNeighbourFile, type WordNeighbourData } from './word-neighbours.js';

const embedder = new EmbedderService({ config: testConfig() });
const tok = (t: string) => embedder.tokenize(t);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'word-neighbour-expansion-test-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** A tiny hand-written table (not GloVe): what each test word's neighbours are is chosen here. */
function fixture(entries: Record<string, [string, number][]>): WordNeighbourData {
  const words = [...new Set([...Object.keys(entries), ...Object.values(entries).flatMap((l) => l.map(([w]) => w))])];
  return { words, neighbours: words.map((w) => (entries[w] ?? []).map(([n, cosine]) => ({ index: words.indexOf(n), cosine }))), k: 10, theta: 0.5 };
}

const TABLE = fixture({
  pets: [
    ['dog', 0.8],
    ['kitten', 0.7],
    ['hamster', 0.6],
  ],
  pet: [['dog', 0.9]],
  rocky: [['mountains', 0.7]],
  paris: [['london', 0.8]],
  saturday: [['sunday', 0.9]],
  november: [['october', 0.9]],
  hobby: [['pottery', 0.6]],
});

function tableFile(name: string, data: WordNeighbourData = TABLE): WordNeighbourFile {
  const f = path.join(root, `${name}.bin.gz`);
  fs.writeFileSync(f, zlib.gzipSync(encodeWordNeighbours(data)));
  return new WordNeighbourFile(f);
}

test('the words looked up: content words of an English query, not stop-words, names, proper names or dates', () => {
  assert.deepEqual(expansionWords('What pets did Nate have?', { names: new Set(['nate']) }), ['pets']);
  assert.deepEqual(expansionWords('what pets did nate have', { names: new Set(['nate']) }), ['pets'], 'a lower-case name is still a name');
  assert.deepEqual(expansionWords('What pets does Nate have?', { names: new Set(['nate']) }), ['pets', 'does'], 'the stop-words are the tokenizer\'s (its list has no "does")');
  assert.deepEqual(expansionWords('Did Anna like the food in Paris?'), ['food'], 'a capitalised word inside the sentence is a proper name');
  assert.deepEqual(expansionWords('Hobbies? Painting, mostly.'), ['hobbies', 'painting', 'mostly'], 'a capital starting a sentence is no name');
  assert.deepEqual(expansionWords('What did she cook last Saturday, 9 November 2022?', { dateWords: '9 November 2022' }), ['she', 'cook', 'last'], 'calendar words and the parsed date are no content ("she" is on no stop-list of the tokenizer)');
  assert.deepEqual(expansionWords('How many weeks ago did he adopt the puppy?'), ['adopt', 'puppy']);
  assert.deepEqual(expansionWords("What's Nate's dog's name?", { names: new Set(['nate']) }), ['dog', 'name'], "the tokenizer's splitting: a trailing 's and apostrophes removed");
  assert.deepEqual(expansionWords('安娜养了哪些宠物？'), [], 'Chinese: no table');
  assert.deepEqual(expansionWords('她的 pets 是什么'), [], 'a query with Chinese in it is not expanded at all');
  assert.deepEqual(expansionWords(`${'x '.repeat(160)} pets`), ['x'], 'only the head of a long text is read');
});

test('neighbour terms: stemmed by the product tokenizer, weight × cosine, the largest when two words reach one, never a query term', () => {
  const t = decodeWordNeighbours(encodeWordNeighbours(TABLE));
  const terms = weightsOf(tok('pets pet hamster'));
  const out = neighbourTerms(['pets', 'pet'], t, tok, terms, 0.5);
  assert.deepEqual([...out.keys()].sort(), [tok('dog')[0], tok('kitten')[0]].sort(), 'hamster is a query term already');
  assert.ok(Math.abs(out.get(tok('dog')[0])! - 0.5 * 0.9) < 0.01, 'dog: the larger of 0.8 (pets) and 0.9 (pet)');
  assert.ok(Math.abs(out.get(tok('kitten')[0])! - 0.5 * 0.7) < 0.01);
  assert.equal(neighbourTerms(['pets'], t, tok, new Map(), 0).size, 0, 'weight 0: nothing');
  assert.equal(neighbourTerms(['unicorn'], t, tok, new Map(), 1).size, 0, 'a word the table does not hold');
});

/** Nate's pets are a dog and a hamster, told without the word "pets"; Joanna's kitten; small talk. */
const TURNS: TestTurn[] = [
  ['S1', 'Nate', 'Nate: thanks, see you soon!'],
  ['S1', 'Joanna', 'Joanna: bye!'],
  ['S2', 'Nate', 'Nate: my dog chewed the sofa again this morning'],
  ['S3', 'Joanna', 'Joanna: my kitten sleeps all day'],
  ['S4', 'Nate', 'Nate: went hiking in the mountains with friends'],
  ['S5', 'Nate', 'Nate: the London trip was too short'],
  ['S6', '小明', '小明：我家的狗很可爱'],
  ['S7', 'rocky', 'rocky: hello there'],
  ['S7', 'rocky', 'rocky: the mountains were cold'],
];

test('with the knob on, a neighbour the memory holds finds the turn; names, proper names and Chinese are not expanded; the same in every tier', async () => {
  const file = tableFile('tiers');
  const orders = await inEachTier(
    root,
    embedder,
    TURNS,
    async (r) => {
      const ids = async (q: string, rank: Record<string, number>) => (await r.search(q, { k: 9, tiers: ['context', 'document', 'archive'], rank })).map((h) => h.turnId ?? h.id);
      const at = (list: string[], t: string) => (list.includes(t) ? list.indexOf(t) : Infinity);
      const off = await ids('What pets does Nate have?', {});
      assert.ok(at(off, 't0') < at(off, 't2'), `off: Nate's "thanks" above his dog on his name alone (${off.join(',')})`);
      const on = await ids('What pets does Nate have?', { wordNeighbourWeight: 0.5 });
      assert.equal(on[0], 't2', `on: his dog first (${on.join(',')})`);
      assert.ok(at(on, 't3') > at(on, 't0'), `Joanna's kitten does not count for Nate (${on.join(',')})`);
      assert.deepEqual(await ids('What pets does Nate have?', { setWordNeighbourWeight: 0.5 }), on, 'W2 acts on a set question like W1');
      assert.deepEqual(await ids('What does Nate keep as a pet?', { setWordNeighbourWeight: 1 }), await ids('What does Nate keep as a pet?', {}), 'W2: no set question, unchanged');
      // Without the rules these would change: rocky → mountains (t8), Paris → London (t5).
      assert.deepEqual(await ids('what did rocky say', { wordNeighbourWeight: 1 }), await ids('what did rocky say', {}), 'a participant name is not expanded');
      assert.deepEqual(await ids('Did Nate like Paris?', { wordNeighbourWeight: 1 }), await ids('Did Nate like Paris?', {}), 'a proper name is not expanded');
      assert.deepEqual(await ids('小明养了什么宠物？', { wordNeighbourWeight: 1 }), await ids('小明养了什么宠物？', {}), 'Chinese: unchanged');
      return on;
    },
    { wordNeighbours: file },
  );
  assert.deepEqual(orders[1], orders[0], 'warm documents = archive');
  assert.deepEqual(orders[2], orders[0], 'context window = archive');
});

test('the name and proper-name rules are what keeps those queries unchanged (the same table, the words themselves expanded)', async () => {
  const archive = new ColdArchive({ home: path.join(root, 'rules'), tokenize: tok });
  archive.open();
  try {
    archive.putMany(turnEvents(TURNS).map((e) => eventDocument(e, 0)));
    const rank = async (q: string, w: number) => (await rankEvidence([archiveCorpus(archive)], embedder, q, 9, { wordNeighbourWeight: w }, { wordNeighbours: tableFile('rules') })).hits.map((h) => `${h.doc.id} ${h.score.toFixed(6)}`);
    // Asked with no names known and in lower case, "rocky" and "paris" are plain words: their neighbours count.
    assert.notDeepEqual(await rank('what did rocky say', 1), await rank('what did rocky say', 0));
    assert.notDeepEqual(await rank('did nate like paris', 1), await rank('did nate like paris', 0));
  } finally {
    archive.close();
  }
});

test('only neighbours the memory holds are scored; an absent one (hamster) never reaches the tiers', async () => {
  const archive = new ColdArchive({ home: path.join(root, 'spy'), tokenize: tok });
  archive.open();
  try {
    archive.putMany(turnEvents(TURNS).map((e) => eventDocument(e, 0)));
    // Which terms the archive is asked to score (its lexical pass), recorded around the real one.
    const asked: string[] = [];
    const real = archiveCorpus(archive);
    const spy: RecallCorpus = { ...real, lexical: (terms, stats, max) => (asked.push(...terms.keys()), real.lexical(terms, stats, max)) };
    await rankEvidence([spy], embedder, 'What pets does Nate have?', 5, { wordNeighbourWeight: 0.5 }, { wordNeighbours: tableFile('spy') });
    assert.ok(asked.includes(tok('dog')[0]) && asked.includes(tok('kitten')[0]), `present neighbours scored (${asked.join(',')})`);
    assert.ok(!asked.includes(tok('hamster')[0]), `an absent neighbour is dropped before scoring (${asked.join(',')})`);
  } finally {
    archive.close();
  }
});

test('a missing or corrupt table: one clear logged error, recall goes on without expansion', async () => {
  const home = path.join(root, 'broken');
  const archive = new ColdArchive({ home, tokenize: tok });
  archive.open();
  try {
    archive.putMany(turnEvents(TURNS).map((e) => eventDocument(e, 0)));
    const ids = async (r: MemoryRecall, rank: Record<string, number>) => (await r.search('What pets does Nate have?', { k: 5, tiers: ['archive'], rank })).map((h) => h.turnId ?? h.id);
    const plain = await ids(new MemoryRecall({ embedder, archive: () => archive, wordNeighbours: tableFile('plain') }), {});
    const corrupt = path.join(root, 'corrupt.bin.gz');
    fs.writeFileSync(corrupt, zlib.gzipSync(Buffer.from('{"format":"homeagent-word-neighbours","version":1,"words":5,"k":10,"theta":0.5,"wordBytes":3,"pairs":2}\nabc')));
    for (const file of [path.join(root, 'missing.bin.gz'), corrupt]) {
      const logged: { msg: string; data?: Record<string, unknown> }[] = [];
      const r = new MemoryRecall({ embedder, archive: () => archive, wordNeighbours: new WordNeighbourFile(file), log: { error: (msg, data) => logged.push({ msg, data }) } });
      assert.deepEqual(await ids(r, { wordNeighbourWeight: 0.5 }), plain, 'the ranking without expansion');
      assert.deepEqual(await ids(r, { wordNeighbourWeight: 0.5 }), plain);
      assert.equal(logged.length, 1, 'logged once, not on every query');
      assert.match(logged[0].msg, /word-neighbour table .*(cannot be read|corrupt).*recall goes on without word-neighbour expansion/);
      assert.equal(logged[0].data?.code, 'WORD_NEIGHBOURS_UNREADABLE');
    }
  } finally {
    archive.close();
  }
});

test('the knob at 0 changes nothing and reads nothing, with the shipped table in place', async () => {
  const home = path.join(root, 'zero');
  const archive = new ColdArchive({ home, tokenize: tok });
  archive.open();
  try {
    archive.putMany(turnEvents(TURNS).map((e) => eventDocument(e, 0)));
    const file = new WordNeighbourFile();
    const r = new MemoryRecall({ embedder, archive: () => archive, wordNeighbours: file });
    for (const q of ['What pets does Nate have?', 'Where did Nate go hiking?', '小明养了什么宠物？']) {
      const a = await r.search(q, { k: 7, tiers: ['archive'] });
      const b = await r.search(q, { k: 7, tiers: ['archive'], rank: { wordNeighbourWeight: 0, setWordNeighbourWeight: 0 } });
      assert.deepEqual(b, a, q);
    }
    assert.equal(file.loaded, false, 'nothing read while the knobs are 0');
    await r.search('小明养了什么宠物？', { k: 7, tiers: ['archive'], rank: { wordNeighbourWeight: 0.5 } });
    assert.equal(file.loaded, false, 'a Chinese query never reads the table');
  } finally {
    archive.close();
  }
});
