import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { testConfig, testLog } from '../embedder/__fixtures__/test-config.js';
import { Bm25Index, EmbedderService } from '../embedder/index.js';
import Database from 'better-sqlite3';
import { contextCorpus, documentCorpus, rankEvidence, saidDays } from '../recall/index.js';
import { DOC_MIGRATIONS } from './doc-migrations.js';
import { DocStore } from './index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-test-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const embedder = new EmbedderService({ config: testConfig() });
let n = 0;
const home = (): string => fs.mkdtempSync(path.join(root, `h${n++}-`));
const HOUR = 3_600_000;

/** Ranking over this tier alone (the recall module ranks every tier; see recall/). */
async function search(s: DocStore, q: string, k: number) {
  return (await rankEvidence([documentCorpus(s)], s.hybrid.embedder, q, k)).hits;
}

async function openStore(h = home(), clock?: () => number): Promise<DocStore> {
  const s = new DocStore({ home: h, embedder, clock, config: testConfig({ 'core.docs.auto_inject_top': 3 }) });
  await s.open();
  return s;
}

test('add / get / list / remove, and documents survive a reopen (SQLite file on disk)', async () => {
  const h = home();
  const s = await openStore(h);
  const d = s.commit('Melanie signed up for a pottery class', { refs: ['D5:4'], createdAt: 1000 });
  s.add({ input: 'we went camping', response: 'sounds fun', createdAt: 500, refs: ['D4:6'] });
  assert.equal(s.get(d.id)?.content, 'Melanie signed up for a pottery class');
  assert.deepEqual(s.list().map((x) => x.createdAt), [500, 1000], 'time order');
  await s.close();
  await s.close();
  const again = await openStore(h);
  assert.equal(again.size, 2);
  assert.deepEqual(again.get(d.id)?.refs, ['D5:4']);
  assert.equal((await search(again, 'pottery', 5))[0]?.doc.id, d.id, 'index rebuilt at open');
  assert.equal(again.remove(d.id), true);
  assert.equal(again.remove(d.id), false);
  assert.equal(again.get(d.id), undefined);
  await again.close();
});

test('bad input gets a typed error: empty content, unknown fields, oversized content', async () => {
  const s = await openStore();
  assert.throws(() => s.add({ content: '   ' }), (e: Error & { code?: string }) => e.code === 'VALIDATION');
  assert.throws(() => s.add({ content: 'x', bogus: 1 } as never), /invalid document/);
  assert.throws(() => s.add({ content: 'x'.repeat(1_000_001) }), /invalid document/);
  await s.close();
});

test('SQL-significant characters and huge inputs are safe in content and queries', async () => {
  const s = await openStore();
  const evil = `Robert'); DROP TABLE documents; -- "quoted" % _ \\ NEAR(a b) * OR 1=1`;
  const d = s.commit(evil);
  assert.equal(s.get(d.id)?.content, evil);
  assert.equal((await search(s, evil, 3))[0]?.doc.id, d.id);
  assert.deepEqual(await search(s, `'"%_*`, 3), []);
  const big = s.commit(`${'lorem ipsum '.repeat(80_000)} needle`);
  assert.equal((await search(s, 'needle', 3))[0]?.doc.id, big.id);
  const hits = await search(s, 'ipsum '.repeat(50_000), 3);
  assert.equal(hits[0]?.doc.id, big.id);
  assert.equal(s.size, 2, 'table still there');
  await s.close();
});

test('archiveEvents keeps original timestamps, session, refs, turn id and speaker; touch counts access', async () => {
  const now = 10 * HOUR;
  const h = home();
  const s = await openStore(h, () => now);
  s.archiveEvents([
    { id: 'e1', timestamp: 1234, kind: 'user', source: 'webui', channel: 'web', sessionId: 's1', input: 'I adopted a puppy named Max', response: '', refs: ['s1#1'], speaker: { id: 'user' } },
    { id: 'e2', timestamp: 1300, kind: 'agent', source: 'webui', channel: 'web', sessionId: 's1', input: '', response: 'Max is a lovely name', refs: ['s1#1'], speaker: { id: 'assistant' } },
  ]);
  assert.equal(s.get('e1')?.createdAt, 1234);
  assert.equal(s.get('e1')?.kind, 'archive');
  assert.equal(s.get('e1')?.eventKind, 'user');
  assert.deepEqual(s.get('e2')?.speaker, { id: 'assistant' });
  assert.equal(s.hasTurn('s1#1', 'user'), true);
  assert.equal(s.hasTurn('s1#1', 'agent'), true);
  assert.equal(s.hasTurn('s1#2'), false);
  s.touch(['e1']);
  assert.equal(s.get('e1')?.accessCount, 1);
  assert.equal(s.get('e1')?.lastAccess, now);
  await s.close();
  const again = await openStore(h);
  assert.deepEqual(again.get('e2')?.speaker, { id: 'assistant' }, 'speaker persisted');
  assert.equal(again.get('e1')?.accessCount, 1);
  assert.equal(again.deleteByTurnIds(['s1#1']), 2, 'forget seam: every document of the turn');
  assert.equal(again.size, 0);
  await again.close();
});

test('adjacent: neighbours in the same session in time order, for a document of any tier', async () => {
  const s = await openStore();
  for (const [i, sid] of [[1, 'A'], [2, 'B'], [3, 'A'], [5, 'A'], [4, 'B']] as const) s.add({ id: `d${i}`, content: `turn ${i}`, createdAt: i * 1000, sessionId: sid });
  const a = s.adjacent({ id: 'd3', sessionId: 'A', createdAt: 3000 }, 1);
  assert.deepEqual([a.before.map((d) => d.id), a.after.map((d) => d.id)], [['d1'], ['d5']], 'other sessions are skipped');
  const outside = s.adjacent({ id: 'x', sessionId: 'B', createdAt: 3500 }, 2);
  assert.deepEqual([outside.before.map((d) => d.id), outside.after.map((d) => d.id)], [['d2'], ['d4']]);
  await s.close();
});

test('migration 2 fills turn id and event kind of documents written by the previous version', async () => {
  const h = home();
  fs.mkdirSync(path.join(h, 'documents'));
  const db = new Database(path.join(h, 'documents', 'documents.db'));
  db.exec(DOC_MIGRATIONS[0]);
  db.pragma('user_version = 1');
  db.prepare(`INSERT INTO documents (id, seq, content, input, response, kind, source, channel, session_id, created_at, added_at, refs, meta)
    VALUES ('old', 0, 'an old turn', 'an old turn', '', 'archive', 'webui', 'webui', 'webui:1', 5, 5, '["webui:1#3"]', '{"eventKind":"user"}')`).run();
  db.close();
  const s = await openStore(h);
  assert.equal(s.hasTurn('webui:1#3', 'user'), true);
  assert.equal(s.get('old')?.eventKind, 'user');
  await s.close();
});

test('findCold: not accessed for 72 h and at most 2 accesses (injected clock)', async () => {
  let now = 1000 * HOUR;
  const s = await openStore(home(), () => now);
  const old = s.commit('old rarely used note', { createdAt: 0 });
  const popular = s.commit('old popular note', { createdAt: 0 });
  for (let i = 0; i < 3; i++) s.touch([popular.id]);
  now += 10 * HOUR;
  const fresh = s.commit('fresh note');
  assert.deepEqual(s.findCold(now), [], 'nothing is 72 h idle yet');
  now += 70 * HOUR;
  assert.deepEqual(s.findCold(now).map((d) => d.id), [old.id], 'popular has 3 accesses; fresh is 70 h idle');
  now += 3 * HOUR;
  assert.deepEqual(s.findCold(now).map((d) => d.id).sort(), [old.id, fresh.id].sort());
  assert.deepEqual(s.findCold(now, 72, 5).map((d) => d.id).sort(), [old.id, popular.id, fresh.id].sort());
  await s.close();
});

test('a corrupt documents.db is kept aside and an empty store starts', async () => {
  const h = home();
  fs.mkdirSync(path.join(h, 'documents'));
  fs.writeFileSync(path.join(h, 'documents', 'documents.db'), 'this is not a database at all, just garbage bytes'.repeat(100));
  const log = testLog();
  const s = new DocStore({ home: h, embedder, log, clock: () => 77 });
  await s.open();
  assert.equal(s.size, 0);
  assert.ok(fs.existsSync(path.join(h, 'documents', 'documents.db.corrupt-77')));
  assert.ok(log.lines.some((l) => /warn documents: .*documents\.db is corrupt .*kept aside as .*corrupt-77/.test(l)), log.lines.join('\n'));
  s.commit('works again');
  assert.equal(s.size, 1);
  await s.close();
});

test('ranking over the tier: a turn inherits evidence from its neighbour; dates the query names are preferred', async () => {
  const s = await openStore();
  const t = Date.UTC(2023, 5, 10);
  s.add({ content: 'Caroline: what did you do with the kids last weekend?', createdAt: t, sessionId: 'S1', refs: ['D1:1'] });
  s.add({ content: 'Melanie: we went to the beach, they loved it', createdAt: t + 1, sessionId: 'S1', refs: ['D1:2'] });
  s.add({ content: 'Caroline: I read a book', createdAt: t + 2, sessionId: 'S1', refs: ['D1:3'] });
  s.add({ content: 'Melanie: the kids made pottery at the museum', createdAt: Date.UTC(2023, 8, 1), sessionId: 'S2', refs: ['D2:1'] });
  const rank = async (q: string, k: number, o = {}) => (await rankEvidence([documentCorpus(s)], embedder, q, k, o)).hits;
  const plain = await rank('kids weekend', 4, { neighbourWeight: 0, neighbour2Weight: 0, answerWeight: 0, prfDocs: 0 });
  assert.ok(!plain.some((h) => h.doc.refs[0] === 'D1:2'), 'no lexical match alone');
  const answer = await rank('kids weekend', 4, { neighbourWeight: 0, neighbour2Weight: 0, prfDocs: 0 });
  assert.ok(answer.some((h) => h.doc.refs[0] === 'D1:2'), 'the answer after a question (by someone else) is found through the question');
  const withNb = await rank('kids weekend', 4);
  assert.ok(withNb.some((h) => h.doc.refs[0] === 'D1:2'), 'the answer turn is found through its neighbour');
  // Session-date awareness: "in September" prefers the September document.
  const sept = await rank('What did the kids do in September?', 1);
  assert.equal(sept[0].doc.refs[0], 'D2:1');
  await s.close();
});

test('with static vectors the store ranks by meaning too (docs and live context events), vectors persisted with their model', async () => {
  const h = home();
  const vec = path.join(h, 'mini.vec');
  fs.writeFileSync(vec, '4 3\ncat 1 0 0\nkitten 0.95 0.05 0\ncar 0 1 0\ntruck 0 0.9 0.1\n');
  const dense = new EmbedderService({ config: testConfig({ 'core.memory.embedding_model_path': vec }) });
  await dense.start();
  await dense.ready();
  const s = new DocStore({ home: h, embedder: dense });
  await s.open();
  s.commit('my cat sleeps all day', { refs: ['a'] });
  s.commit('the truck broke down', { refs: ['b'] });
  const live = [{ id: 'ev1', timestamp: 5, kind: 'user' as const, source: 'webui', channel: 'web', sessionId: 's', input: 'a kitten again', response: '', refs: ['c'] }];
  const hits = (await rankEvidence([contextCorpus(() => live, dense), documentCorpus(s)], dense, 'kitten', 3)).hits;
  assert.deepEqual(hits.map((x) => x.doc.refs[0]).slice(0, 2).sort(), ['a', 'c'], 'cat found for kitten without a shared word');
  await s.close();
  const again = new DocStore({ home: h, embedder: dense });
  await again.open();
  assert.equal(again.hybrid.stats().current, 2, 'vectors reloaded from SQLite, not recomputed as stale');
  await again.close();
  await dense.stop();
});

test('the people heard in the warm tier: counted through add, replace, remove and a reopen, with the latest display name', async () => {
  const h = home();
  const s = await openStore(h);
  const ev = (id: string, speaker?: { id: string; name?: string }) => ({ id, timestamp: 1000 + id.length, kind: 'user' as const, source: 'tg', channel: 'tg', sessionId: 's1', input: `hello ${id}`, response: '', refs: [`s1#${id}`], ...(speaker ? { speaker } : {}) });
  s.archiveEvents([ev('a', { id: 'tg:1', name: 'Tim' }), ev('bb', { id: 'tg:2', name: 'John' }), ev('ccc')]);
  assert.deepEqual([...s.speakers()].sort(), [['tg:1', 'Tim'], ['tg:2', 'John']], 'events without a speaker name nobody here');
  s.archiveEvents([ev('dddd', { id: 'tg:1', name: 'Timothy' })]);
  s.archiveEvents([ev('bb', { id: 'tg:2', name: 'John' })]);
  assert.equal(s.speakers().get('tg:1'), 'Timothy');
  s.remove('bb');
  assert.deepEqual([...s.speakers().keys()], ['tg:1'], 'a replaced document counted once, its removal empties the entry');
  await s.close();
  const again = await openStore(h);
  assert.deepEqual([...again.speakers()], [['tg:1', 'Timothy']]);
  again.removeMany(['a', 'dddd']);
  assert.equal(again.speakers().size, 0);
  await again.close();
});

/** Local noon of a day (calendar days are local time). */
const noon = (y: number, m: number, d: number) => new Date(y, m - 1, d, 12).getTime();

test('decision 0160: the days said in a document are kept with it, through replace, remove and reopen', async () => {
  const h = home();
  const open = async () => {
    const s = new DocStore({ home: h, embedder, saidDays });
    await s.open();
    return s;
  };
  const s = await open();
  const d = s.add({ id: 'y', input: 'I went to the support group yesterday', createdAt: noon(2023, 5, 8), refs: ['t1'] });
  s.add({ id: 'z', input: '我上周六去爬山了', createdAt: noon(2024, 1, 17), refs: ['t2'] });
  assert.deepEqual(s.daysOf(d.id), [20230507]);
  assert.deepEqual(s.saidOn([{ from: 20230507, to: 20230507 }], 10), ['y']);
  assert.deepEqual(s.saidOn([{ from: 20240113, to: 20240113 }], 10), ['z']);
  assert.deepEqual(s.saidYears(), { min: 2023, max: 2024 });
  s.restore([{ ...d, content: 'I went to the support group two days ago' }]);
  assert.deepEqual(s.daysOf('y'), [20230506], 'a replaced document’s days are its new text’s');
  await s.close();
  const again = await open();
  assert.deepEqual(again.daysOf('y'), [20230506]);
  assert.equal(again.deleteByTurnIds(['t1']), 1);
  assert.deepEqual(again.daysOf('y'), []);
  assert.deepEqual(again.saidYears(), { min: 2024, max: 2024 });
  await again.close();
});

test('decision 0160: documents.db of schema 2 (real file) gets the days of its documents at the first open with a resolver', async () => {
  const h = home();
  fs.mkdirSync(path.join(h, 'documents'));
  const db = new Database(path.join(h, 'documents', 'documents.db'));
  db.exec(DOC_MIGRATIONS[0]);
  db.exec(DOC_MIGRATIONS[1]);
  db.pragma('user_version = 2');
  const ins = db.prepare(`INSERT INTO documents (id, seq, content, input, response, kind, source, channel, session_id, created_at, added_at, refs, turn_id)
    VALUES (?, ?, ?, ?, '', 'archive', 'webui', 'webui', 'webui:1', ?, 0, '[]', ?)`);
  ins.run('a', 0, 'I went to the support group yesterday', 'x', noon(2023, 5, 8), 'ta');
  ins.run('b', 1, 'on 31 February 2023 and 2023-13-45 十十十月', 'x', noon(2023, 5, 8), 'tb');
  db.close();
  const bare = await openStore(h);
  assert.equal(bare.saidYears(), undefined, 'without a resolver the days stay pending');
  await bare.close();
  const s = new DocStore({ home: h, embedder, saidDays });
  await s.open();
  assert.deepEqual(s.daysOf('a'), [20230507]);
  assert.deepEqual(s.daysOf('b'), []);
  assert.equal(s.size, 2, 'an odd date string does not cost a document');
  await s.close();
  const v = new Database(path.join(h, 'documents', 'documents.db'), { readonly: true });
  assert.equal(v.pragma('user_version', { simple: true }), DOC_MIGRATIONS.length);
  assert.equal(v.prepare('SELECT count(*) FROM documents WHERE days_done = 0').pluck().get(), 0);
  v.close();
});

test('decision 0190: the warm index (pooled, interned) scores and counts as a Bm25Index of the same documents, live and after a reopen', async () => {
  const h = home();
  const s = await openStore(h);
  const texts = ['we went camping in the mountains', 'Melanie signed up for a pottery class', 'pottery and painting are relaxing', '我们去北京看了长城', 'camping again next weekend, pottery after'];
  s.addMany(texts.map((content, i) => ({ id: `d${i}`, content, input: content, createdAt: 1000 + i, sessionId: 's1', kind: 'archive', source: 'webui', channel: 'webui' })));
  s.remove('d2');
  s.add({ id: 'd1', content: 'Melanie replaced: a pottery class on Saturdays', createdAt: 1001, sessionId: 's1' });
  // The reference index sees the documents in the order the store indexed them (a replaced one last; at open, time order).
  const same = (st: DocStore, order: string[]) => {
    const ref = new Bm25Index();
    for (const id of order) ref.add(id, embedder.tokenize(st.get(id)!.content));
    const c = documentCorpus(st);
    const stats = { idf: (t: string) => ref.idf(t), avgLen: ref.avgLength };
    for (const q of ['pottery class', 'camping', '北京 长城', 'absent words']) {
      const terms = new Map(embedder.tokenize(q).map((t) => [t, 1]));
      assert.deepEqual([...c.lexical(terms, stats, 10)], [...ref.scoreTop(terms, 10, stats)], q);
    }
    for (const d of st.list()) {
      assert.deepEqual([...st.termsOf(d.id)!.terms], [...ref.terms(d.id)!], d.id);
      assert.equal(c.lengthOf!(d.id), ref.lengthOf(d.id));
    }
    assert.deepEqual(c.size(), { docs: ref.size, tokens: ref.totalLength });
  };
  same(s, ['d0', 'd3', 'd4', 'd1']);
  await s.close();
  const again = await openStore(h);
  assert.equal(again.get('d0')?.input, again.get('d0')?.content, 'input equal to content comes back (held once)');
  same(again, ['d0', 'd1', 'd3', 'd4']);
  await again.close();
});
