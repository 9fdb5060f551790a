import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { ContextEvent } from '../../spec/index.js';
import { ColdArchive } from '../archive/index.js';
import { eventDocument, type MemoryDocument } from '../documents/index.js';
import { testConfig } from '../embedder/__fixtures__/test-config.js';
import { EmbedderService } from '../embedder/index.js';
import { setup } from '../__fixtures__/memory-on-disk.js';
import { ARCHIVE_EXACT_BELOW, ARCHIVE_KEPT_DOCS, ARCHIVE_KEPT_FOREIGN, archiveCorpus } from './tier-corpora.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tier-corpora-test-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const embedder = new EmbedderService({ config: testConfig() });
let n = 0;

const T0 = Date.UTC(2024, 2, 1, 10);
const turn = (i: number, text: string, session = 'S1'): MemoryDocument =>
  eventDocument({ id: `e${i}`, timestamp: T0 + i * 60_000, kind: 'user', source: 'chat', channel: 'chat', sessionId: session, input: text, response: '', refs: [`${session}#${i}`], speaker: { id: 'ann', name: 'Ann' } }, 0);

function openArchive(): ColdArchive {
  const archive = new ColdArchive({ home: path.join(root, `a${n++}`), tokenize: (t) => embedder.tokenize(t) });
  archive.open();
  return archive;
}

/** The archive's neighbours of a document, as the ids of the whole rows. */
function near(c: ReturnType<typeof archiveCorpus>, d: MemoryDocument): { before: string[]; after: string[] } {
  c.begin?.();
  const a = c.adjacent(d, 1);
  const ids = (ds: MemoryDocument[]) => (ds.length ? c.complete!(ds).map((x) => x.id) : []);
  const out = { before: ids(a.before), after: ids(a.after) };
  c.end?.();
  return out;
}

test('the archive version changes with every write, delete, open and close', () => {
  const archive = openArchive();
  const v0 = archive.version;
  archive.putMany([turn(1, 'first')]);
  const v1 = archive.version;
  assert.notEqual(v1, v0);
  archive.deleteIds(['nope']);
  const v2 = archive.version;
  assert.notEqual(v2, v1, 'a delete that finds nothing still counts (the cache is cheap to rebuild)');
  archive.deleteByTurnIds(['S1#1']);
  assert.notEqual(archive.version, v2);
  const v3 = archive.version;
  archive.close();
  assert.notEqual(archive.version, v3);
  const v4 = archive.version;
  archive.open();
  assert.notEqual(archive.version, v4);
  archive.close();
});

test('archive neighbours of another tier\'s document are kept between queries only while the archive is unchanged', () => {
  const archive = openArchive();
  archive.putMany([turn(1, 'we talked about the lake'), turn(5, 'the boat was red')]);
  const c = archiveCorpus(archive);
  // A document of the context window between the two archived turns.
  const live = turn(3, 'I went swimming');
  assert.deepEqual(near(c, live), { before: ['e1'], after: ['e5'] });
  // A turn archived between them is the new neighbour at the next query.
  archive.putMany([turn(2, 'the water was cold')]);
  assert.deepEqual(near(c, live), { before: ['e2'], after: ['e5'] });
  // Forgotten: the neighbour is gone at once, never served from the kept links.
  archive.scrubbed(() => archive.deleteByTurnIds(['S1#2']));
  assert.deepEqual(near(c, live), { before: ['e1'], after: ['e5'] });
  archive.deleteIds(['e5', 'e1']);
  assert.deepEqual(near(c, live), { before: [], after: [] });
  archive.close();
});

test('decision 0200: archive neighbours of other tiers\' documents outlive the archive rows a large archive replaces every query, under a bound of their own', () => {
  const archive = openArchive();
  const own = Array.from({ length: ARCHIVE_KEPT_DOCS + 10 }, (_, i) => turn(10 + i, `turn ${i} about the lake`, 'S2'));
  archive.putMany([turn(1, 'we talked about the lake'), turn(5, 'the boat was red'), ...own]);
  const c = archiveCorpus(archive);
  let lookups = 0;
  const adjacentMany = archive.adjacentMany.bind(archive);
  archive.adjacentMany = (ds) => {
    lookups += ds.length;
    return adjacentMany(ds);
  };
  const live = turn(3, 'I went swimming');
  assert.deepEqual(near(c, live), { before: ['e1'], after: ['e5'] });
  assert.equal(lookups, 1);
  // A query that reads more of the archive's own rows than it keeps: they are dropped at the next query …
  c.begin?.();
  const docs = [...c.lexical(new Map(embedder.tokenize('lake').map((t) => [t, 1])), { idf: () => 1, avgLen: 4 }, 10_000).keys()].map((k) => c.get(k)!);
  assert.ok(docs.length > ARCHIVE_KEPT_DOCS);
  c.adjacentMany!(docs);
  c.end?.();
  // … but the other tier's document keeps its archive neighbours: no lookup, the same answer.
  assert.deepEqual(near(c, live), { before: ['e1'], after: ['e5'] });
  assert.equal(lookups, 1, 'served from the kept links');
  // More other-tier documents than the bound: all are asked again afterwards.
  const many = Array.from({ length: ARCHIVE_KEPT_FOREIGN + 1 }, (_, i) => turn(100_000 + i, 'elsewhere', `X${i}`));
  c.begin?.();
  c.adjacentMany!(many);
  c.end?.();
  lookups = 0;
  assert.deepEqual(near(c, live), { before: ['e1'], after: ['e5'] });
  assert.equal(lookups, 1, 'the kept links were dropped past their bound');
  // Any write drops them too (the existing test above: a new neighbour is seen at once).
  archive.putMany([turn(2, 'the water was cold')]);
  assert.deepEqual(near(c, live), { before: ['e2'], after: ['e5'] });
  archive.close();
});

test('decision 0230: a large archive keeps its rows and postings for one query (scored twice, read once); a small one between queries', () => {
  for (const rows of [3, ARCHIVE_EXACT_BELOW + 1]) {
    const archive = openArchive();
    archive.putMany(Array.from({ length: rows }, (_, i) => turn(10 + i, `turn ${i} about the lake`, `S${Math.floor(i / 50)}`)));
    const c = archiveCorpus(archive);
    // What each query reads: ranking rows from SQLite, and the postings already held when it scores.
    let rowsRead = 0;
    const held: number[] = [];
    const rankRows = archive.rankRows.bind(archive);
    archive.rankRows = (ns) => {
      rowsRead += ns.length;
      return rankRows(ns);
    };
    const score = archive.score.bind(archive);
    archive.score = (terms, stats, quota, cache) => {
      held.push(cache?.size ?? -1);
      return score(terms, stats, quota, cache);
    };
    const query = () => {
      rowsRead = 0;
      held.length = 0;
      c.begin?.();
      const terms = new Map(embedder.tokenize('lake').map((t) => [t, 1]));
      // A ranking scores twice (before and after query expansion).
      const first = [...c.lexical(terms, { idf: () => 1, avgLen: 4 }, 10).keys()];
      const again = [...c.lexical(terms, { idf: () => 1, avgLen: 4 }, 10).keys()];
      assert.deepEqual(again, first);
      const hits = c.complete!(first.map((k) => c.get(k)!)).map((d) => d.id);
      c.end?.();
      return { hits, rowsRead, held: [...held] };
    };
    const one = query();
    assert.equal(one.held[0], 0, 'nothing held before the first query');
    assert.ok(one.held[1] > 0, 'the second scoring of a query reads no postings again');
    assert.ok(one.rowsRead > 0);
    const two = query();
    assert.deepEqual(two.hits, one.hits, 'the same answer either way');
    if (rows <= ARCHIVE_EXACT_BELOW) {
      assert.equal(two.rowsRead, 0, 'a small archive serves the next query from what it kept');
      assert.ok(two.held[0] > 0);
    } else {
      assert.ok(two.rowsRead > 0, 'a large archive reads its rows afresh for the next query');
      assert.equal(two.held[0], 0, 'and its postings');
    }
    archive.close();
  }
});

test('archive documents kept between queries: a forgotten row is not a candidate, a hit or a neighbour at the next query', () => {
  const archive = openArchive();
  archive.putMany([turn(1, 'the pottery class made a bowl'), turn(2, 'pottery is relaxing'), turn(3, 'the bowl is blue')]);
  const c = archiveCorpus(archive);
  const rank = () => {
    c.begin?.();
    const terms = new Map(embedder.tokenize('pottery').map((t) => [t, 1]));
    const lex = c.lexical(terms, { idf: () => 1, avgLen: 4 }, 100);
    const docs = [...lex.keys()].map((k) => c.get(k)!);
    const out = c.complete!(docs).map((d) => d.id).sort();
    const nb = c.adjacentMany!(docs);
    const nbIds = [...nb.values()].flatMap((a) => c.complete!([...a.before, ...a.after]).map((d) => d.id));
    c.end?.();
    return { hits: out, neighbours: [...new Set(nbIds)].sort() };
  };
  assert.deepEqual(rank(), { hits: ['e1', 'e2'], neighbours: ['e1', 'e2', 'e3'] });
  assert.deepEqual(rank(), { hits: ['e1', 'e2'], neighbours: ['e1', 'e2', 'e3'] }, 'the same from the kept documents');
  archive.scrubbed(() => archive.deleteByTurnIds(['S1#2']));
  assert.deepEqual(rank(), { hits: ['e1'], neighbours: ['e3'] });
  archive.close();
});

test('a row number SQLite gives again after a delete is read afresh, not as the forgotten row it was', () => {
  const archive = openArchive();
  archive.putMany([turn(1, 'the pottery class made a bowl')]);
  const c = archiveCorpus(archive);
  const seen = () => {
    c.begin?.();
    const lex = c.lexical(new Map(embedder.tokenize('pottery').map((t) => [t, 1])), { idf: () => 1, avgLen: 4 }, 100);
    const out = [...lex.keys()].map((k) => c.get(k)!).map((d) => `${d.sessionId}/${d.speaker?.id}/${d.createdAt}`);
    c.end?.();
    return out;
  };
  assert.deepEqual(seen(), [`S1/ann/${T0 + 60_000}`]);
  archive.scrubbed(() => archive.deleteIds(['e1']));
  const other = { ...turn(9, 'my pottery wheel', 'S9'), speaker: { id: 'bob', name: 'Bob' } };
  archive.putMany([other]);
  assert.deepEqual(seen(), [`S9/bob/${T0 + 9 * 60_000}`]);
  archive.close();
});

/** A memory system over real files on a simulated clock (the memory tests' fixture), said to turn by turn. */
async function system() {
  const { mem, clock, sessions, textLog, done } = await setup();
  const say = async (input: string): Promise<{ turnId: string; event: ContextEvent }> => {
    clock.t += 60_000;
    const { turnId } = sessions.nextTurn('webui:1');
    await sessions.append('webui:1', { turnId, kind: 'user', text: input });
    await textLog.append({ role: 'user', text: input, sessionId: 'webui:1', turnId });
    return { turnId, event: mem.context.append({ source: 'webui', channel: 'webui', sessionId: 'webui:1', refs: [turnId], kind: 'user', input, response: '' }) };
  };
  return { mem, clock, say, close: () => done(mem) };
}

for (const how of ['forget', 'exclude'] as const) {
  test(`an archived turn recalled by earlier queries is gone from the next recall after ${how} (no cache serves it)`, async () => {
    const { mem, clock, say, close } = await system();
    await say('We planned the trip to the lighthouse');
    const secret = await say('The lighthouse key code is 8086');
    await say('The lighthouse has a red roof');
    // Into the archive, as the archive loop moves cold turns; a live neighbour stays in the window.
    const archived = mem.context.events().filter((e) => e.refs?.[0] !== undefined && e.input.includes('lighthouse') && !e.input.includes('roof'));
    mem.context.removeIds(archived.map((e) => e.id));
    mem.archive.putMany(archived.map((e) => eventDocument(e, clock.t)));
    const texts = async (q: string) => (await mem.recall.search(q, { k: 20 })).map((h) => h.text);
    for (let i = 0; i < 3; i++) assert.ok((await texts('lighthouse key code')).some((t) => t.includes('8086')), 'recalled before');
    if (how === 'forget') await mem.control.forget({ turnIds: [secret.turnId] });
    else await mem.control.exclude([secret.turnId]);
    assert.equal(mem.archive.hasTurn(secret.turnId), false);
    for (const q of ['lighthouse key code', '8086', 'lighthouse']) assert.ok(!(await texts(q)).some((t) => t.includes('8086')), `${q}: not recalled after ${how}`);
    const sources = mem.recall.sources([secret.turnId, secret.event.id]);
    assert.deepEqual(sources, []);
    await close();
  });
}

test('the archive ranks from partial rows: links of its own rows in one batch, a row absent from the archive has none, hits come back whole', () => {
  const archive = openArchive();
  archive.putMany([turn(1, 'Which team do you support?'), turn(2, 'The Wolves, since forever'), turn(3, 'nice pick'), turn(4, 'other place', 'S2')]);
  const c = archiveCorpus(archive);
  const terms = new Map([[embedder.tokenize('wolves')[0], 1]]);
  c.begin?.();
  const lex = c.lexical(terms, { idf: () => 1, avgLen: 3 }, 10);
  assert.equal(lex.size, 1);
  const [key] = lex.keys();
  const d = c.get(key)!;
  assert.deepEqual([d.sessionId, d.createdAt, d.speaker?.id, d.content, c.asks!(key)], ['S1', T0 + 2 * 60_000, 'ann', '', false], 'partial: what ranking reads, no text');
  const many = c.adjacentMany!([d, { ...d, id: 'not-archived', createdAt: T0 + 2.5 * 60_000 }]);
  const ids = (ds: MemoryDocument[]) => (ds.length ? c.complete!(ds).map((x) => x.id) : []);
  assert.deepEqual([ids(many.get(key)!.before), ids(many.get(key)!.after)], [['e1'], ['e3']]);
  assert.equal(c.asks!(c.adjacent(d, 1).before[0].id), true, 'the question before it is known to ask without its text');
  assert.deepEqual([ids(many.get('not-archived')!.before), ids(many.get('not-archived')!.after)], [['e2'], ['e3']], "another tier's document finds its archived neighbours");
  const last = c.adjacent(c.adjacent(d, 1).after[0], 1);
  assert.deepEqual([ids(last.before), last.after.length], [['e2'], 0], 'the last turn of its session has nothing after it');
  const [whole] = c.complete!([d]);
  assert.deepEqual([whole.id, whole.content, whole.speaker], ['e2', 'The Wolves, since forever', { id: 'ann', name: 'Ann' }]);
  assert.equal(c.lengthOf!(key), archive.get('e2')!.len, "a row's length (BM25's) from what ranking read");
  assert.equal(c.get('\u0001999999'), undefined, 'a row number the archive does not hold');
  assert.equal(c.lengthOf!('\u0001999999'), undefined);
  c.end?.();
  archive.close();
});
