import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { testConfig, testLog } from '../embedder/__fixtures__/test-config.js';
import { EmbedderService } from '../embedder/index.js';
import { RelevanceContext } from '../context/index.js';
import { DocStore, reappendAsColdStorage, relatedDocumentsSlot } from './index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-test-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const embedder = new EmbedderService({ config: testConfig() });
let n = 0;
const home = (): string => fs.mkdtempSync(path.join(root, `h${n++}-`));
const HOUR = 3_600_000;

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
  assert.equal((await again.search('pottery', 5))[0]?.doc.id, d.id, 'index rebuilt at open');
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
  assert.equal((await s.search(evil, 3))[0]?.doc.id, d.id);
  assert.deepEqual(await s.search(`'"%_*`, 3), []);
  const big = s.commit(`${'lorem ipsum '.repeat(80_000)} needle`);
  assert.equal((await s.search('needle', 3))[0]?.doc.id, big.id);
  const hits = await s.search('ipsum '.repeat(500_000), 3);
  assert.equal(hits[0]?.doc.id, big.id);
  assert.equal(s.size, 2, 'table still there');
  await s.close();
});

test('archiveEvents keeps original timestamps, session and refs; query counts access (read-only otherwise)', async () => {
  let now = 10 * HOUR;
  const s = await openStore(home(), () => now);
  s.archiveEvents([
    { id: 'e1', timestamp: 1234, kind: 'user', source: 'webui', channel: 'web', sessionId: 's1', input: 'I adopted a puppy named Max', response: '', refs: ['D1:1'] },
    { id: 'e2', timestamp: 1300, kind: 'agent', source: 'webui', channel: 'web', sessionId: 's1', input: '', response: 'Max is a lovely name', refs: ['D1:2'] },
  ]);
  assert.equal(s.get('e1')?.createdAt, 1234);
  assert.equal(s.get('e1')?.kind, 'archive');
  const hits = await s.query('puppy Max', 3);
  assert.equal(hits[0].doc.id, 'e1');
  assert.equal(s.get('e1')?.accessCount, 1);
  assert.equal(s.get('e1')?.lastAccess, now);
  assert.equal(s.size, 2, 'query does not remove');
  now += HOUR;
  await s.search('puppy', 3);
  assert.equal(s.get('e1')?.accessCount, 1, 'search counts nothing');
  await s.close();
});

test('consume (doc_query) removes the found docs; re-appended as cold_storage at their original timestamps', async () => {
  const h = home();
  const s = await openStore(h);
  const ctx = new RelevanceContext({ home: h, embedder, topK: 40, timers: { setTimeout: () => 0, clearTimeout: () => {} } });
  await ctx.start();
  ctx.append({ kind: 'user', source: 'webui', channel: 'web', sessionId: 's', input: 'early', response: '', timestamp: 100 });
  ctx.append({ kind: 'user', source: 'webui', channel: 'web', sessionId: 's', input: 'late', response: '', timestamp: 900 });
  s.add({ input: 'where did we go hiking', response: 'the Alps in June', createdAt: 500, refs: ['t-7'], sessionId: 's0' });
  s.add({ content: 'unrelated note about taxes', createdAt: 600 });
  const docs = await s.consume('hiking Alps', 1);
  assert.equal(docs.length, 1);
  assert.equal(s.size, 1, 'consumed doc removed from the store');
  assert.deepEqual((await s.search('hiking', 5)).length, 0);
  const appended = reappendAsColdStorage(docs, ctx);
  assert.equal(appended[0].kind, 'cold_storage');
  assert.equal(appended[0].source, 'cold_storage');
  assert.deepEqual(appended[0].refs, ['t-7']);
  assert.deepEqual(ctx.events().map((e) => [e.timestamp, e.input]), [
    [100, 'early'],
    [500, 'where did we go hiking'],
    [900, 'late'],
  ]);
  assert.equal(ctx.vectorText(appended[0].id), 'where did we go hiking the Alps in June', 'cold_storage vector = input + response');
  await ctx.stop();
  await s.close();
  const reopened = await openStore(h);
  assert.equal(reopened.size, 1, 'the removal is durable');
  await reopened.close();
});

test('findCold: not accessed for 72 h and at most 2 accesses (injected clock)', async () => {
  let now = 1000 * HOUR;
  const s = await openStore(home(), () => now);
  const old = s.commit('old rarely used note', { createdAt: 0 });
  const popular = s.commit('old popular note', { createdAt: 0 });
  for (let i = 0; i < 3; i++) await s.query('popular', 1);
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

test('related documents slot: top 3 as 【相关记忆文档】, nothing on consolidation or no match', async () => {
  const s = await openStore();
  for (let i = 0; i < 5; i++) s.commit(`guitar lesson number ${i}`, { createdAt: Date.UTC(2024, 0, 1 + i) });
  s.commit('tax return');
  const slot = relatedDocumentsSlot(s, { config: testConfig({ 'core.docs.auto_inject_top': 3 }) });
  const text = await slot({ sessionId: 's', turnId: 't', input: 'guitar lessons', consolidation: false });
  assert.ok(text?.startsWith('【相关记忆文档】\n- [2024-01-0'));
  assert.equal(text?.split('\n').length, 4);
  assert.equal(await slot({ sessionId: 's', turnId: 't', input: 'guitar', consolidation: true }), undefined);
  assert.equal(await slot({ sessionId: 's', turnId: 't', input: 'zebra', consolidation: false }), undefined);
  await s.close();
});

test('ranking: a turn inherits evidence from its neighbour; searchWindows returns the hit with the next turn', async () => {
  const s = await openStore();
  const t = Date.UTC(2023, 5, 10);
  s.add({ content: 'Caroline: what did you do with the kids last weekend?', createdAt: t, sessionId: 'S1', refs: ['D1:1'] });
  s.add({ content: 'Melanie: we went to the beach, they loved it', createdAt: t + 1, sessionId: 'S1', refs: ['D1:2'] });
  s.add({ content: 'Caroline: I read a book', createdAt: t + 2, sessionId: 'S1', refs: ['D1:3'] });
  s.add({ content: 'Melanie: the kids made pottery at the museum', createdAt: Date.UTC(2023, 8, 1), sessionId: 'S2', refs: ['D2:1'] });
  const plain = await s.search('kids weekend', 4, { rank: { neighbourWeight: 0, prfDocs: 0 } });
  assert.ok(!plain.some((h) => h.doc.refs[0] === 'D1:2'), 'no lexical match alone');
  const withNb = await s.search('kids weekend', 4);
  assert.ok(withNb.some((h) => h.doc.refs[0] === 'D1:2'), 'the answer turn is found through its neighbour');
  const wins = await s.searchWindows('what did Caroline do with the kids last weekend', 2, { after: 1 });
  assert.deepEqual(wins[0].docs.map((d) => d.refs[0]), ['D1:1', 'D1:2']);
  // Session-date awareness: "in September" prefers the September document.
  const sept = await s.search('What did the kids do in September?', 1);
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
  const hits = await s.search('kitten', 3, { alsoEvents: live });
  assert.deepEqual(hits.map((x) => x.doc.refs[0]).slice(0, 2).sort(), ['a', 'c'], 'cat found for kitten without a shared word');
  await s.close();
  const again = new DocStore({ home: h, embedder: dense });
  await again.open();
  assert.equal(again.hybrid.stats().current, 2, 'vectors reloaded from SQLite, not recomputed as stale');
  await again.close();
  await dense.stop();
});
