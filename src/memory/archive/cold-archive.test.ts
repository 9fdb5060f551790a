import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { testConfig, testLog } from '../embedder/__fixtures__/test-config.js';
import { Bm25Index, EmbedderService } from '../embedder/index.js';
import type { MemoryDocument } from '../documents/index.js';
import Database from 'better-sqlite3';
import { ARCHIVE_MIGRATIONS } from './archive-migrations.js';
import { ColdArchive } from './index.js';
import { saidDays } from '../recall/index.js';
import { overwritePage, tablePages } from '../../fs/sqlite/__fixtures__/sqlite-damage.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-test-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const embedder = new EmbedderService({ config: testConfig() });
let n = 0;
const home = (): string => fs.mkdtempSync(path.join(root, `h${n++}-`));

function doc(id: string, content: string, extra: Partial<MemoryDocument> = {}): MemoryDocument {
  return { id, content, input: content, response: '', kind: 'archive', source: 'webui', channel: 'webui', sessionId: 's1', createdAt: 1000, addedAt: 1000, accessCount: 0, refs: [`s1#${id}`], eventKind: 'user', ...extra };
}

function open(h = home()): ColdArchive {
  const a = new ColdArchive({ home: h, tokenize: (t) => embedder.tokenize(t), clock: () => 42 });
  a.open();
  return a;
}

test('archived rows persist with their provenance; statistics and document frequencies survive a reopen without reading the rows', () => {
  const h = home();
  const a = open(h);
  a.putMany([
    doc('a', '我住在杭州，喜欢龙井茶', { speaker: { id: 'user' }, createdAt: 5 }),
    doc('b', 'Anna plays tennis on Sundays', { speaker: { id: 'anna', name: 'Anna' }, sessionId: 's2', refs: ['s2#1'], input: 'Anna plays tennis on Sundays\n', response: 'nice' }),
  ]);
  assert.equal(a.size, 2);
  const tokensBefore = a.totalTokens;
  a.close();
  const b = open(h);
  assert.equal(b.size, 2, 'row count kept in meta, not counted at open');
  assert.equal(b.totalTokens, tokensBefore);
  assert.deepEqual([...b.df(['杭州', 'tenni', 'nothing'])], [['杭州', 1], ['tenni', 1], ['nothing', 0]]);
  const row = b.get('b')!;
  assert.deepEqual(row.doc.speaker, { id: 'anna', name: 'Anna' });
  assert.equal(row.doc.input, 'Anna plays tennis on Sundays\n', 'input kept when it differs from the content');
  assert.equal(row.doc.response, 'nice');
  assert.equal(b.get('a')!.doc.input, '我住在杭州，喜欢龙井茶', 'input equal to the content is stored once and restored');
  assert.equal(b.hasTurn('s1#a', 'user'), true);
  assert.equal(b.hasTurn('s1#a', 'agent'), false);
  b.close();
});

/** BM25 of the archive alone (its own statistics), by document id. */
function scores(a: ColdArchive, query: string, quota: (t: string) => number = () => Infinity): Map<string, number> {
  const terms = new Map<string, number>();
  for (const t of embedder.tokenize(query)) terms.set(t, (terms.get(t) ?? 0) + 1);
  const df = a.df(terms.keys());
  const stats = { idf: (t: string) => Math.log(1 + (a.size - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5)), avgLen: a.totalTokens / Math.max(1, a.size) };
  const byN = a.score(terms, stats, quota);
  const rows = a.rows([...byN.keys()], 'full');
  return new Map([...byN].map(([n, s]) => [rows.get(n)!.doc.id, s]));
}

test('postings of our own tokens (jieba-segmented Chinese, stemmed English) give the same BM25 as the in-memory index', () => {
  const a = open();
  const texts: [string, string][] = [['zh', '我住在杭州西湖边'], ['en', 'She was running marathons, two marathons a year'], ['other', '完全无关的内容'], ['en2', 'a marathon in Hangzhou']];
  a.putMany(texts.map(([id, t]) => doc(id, t)));
  const bm = new Bm25Index();
  for (const [id, t] of texts) bm.add(id, embedder.tokenize(t));
  for (const q of ['杭州', 'marathon runs', '杭州 marathon']) {
    const got = scores(a, q);
    const want = bm.scoreAll(embedder.tokenize(q));
    assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), q);
    for (const [id, s] of want) assert.ok(Math.abs(got.get(id)! - s) < 1e-9, `${q} ${id}: ${got.get(id)} vs ${s}`);
  }
  assert.deepEqual(scores(a, '"); DROP TABLE turns; -- NEAR(a b) *'), new Map(), 'query syntax is never interpreted');
  const row = a.get('en')!;
  assert.equal(row.terms?.get('marathon'), 2);
  assert.equal(row.len, embedder.tokenize('She was running marathons, two marathons a year').length);
  a.close();
});

test('a very common term reads only its newest rows beyond its quota; rare terms read all of theirs', () => {
  const a = open();
  a.putMany(Array.from({ length: 50 }, (_, i) => doc(`c${i}`, `common word number ${i}${i === 3 ? ' rare' : ''}`, { createdAt: i })));
  const ids = [...scores(a, 'common rare', (t) => (t === 'common' ? 5 : Infinity)).keys()];
  assert.ok(ids.includes('c3'), 'the rare term brings its old row');
  assert.deepEqual(ids.filter((id) => id !== 'c3').sort(), ['c45', 'c46', 'c47', 'c48', 'c49'], 'the common term brings its 5 newest');
  a.close();
});

test('re-archiving an id replaces it; delete by id and by turn (the forget seam) keep statistics exact', () => {
  const a = open();
  a.putMany([doc('x', 'first version alpha'), doc('y', 'beta gamma', { refs: ['t#9'] }), doc('z', 'beta delta', { refs: ['t#9'] })]);
  a.putMany([doc('x', 'second version alpha alpha')]);
  assert.equal(a.size, 3);
  assert.equal(a.df(['first']).get('first'), 0, 'the replaced row left no trace in the statistics');
  assert.equal(a.get('x')!.terms?.get('alpha'), 2);
  assert.equal(a.deleteByTurnIds(['t#9']), 2);
  assert.equal(a.df(['beta']).get('beta'), 0);
  assert.equal(a.deleteIds(['x', 'missing']), 1);
  assert.equal(a.size, 0);
  assert.equal(a.totalTokens, 0);
  assert.deepEqual(scores(a, 'alpha'), new Map());
  a.close();
});

test('neighbours in the session (linked rows, kept through out-of-order inserts and deletes) and sources by ref', () => {
  const a = open();
  a.putMany([doc('t3', 'three', { createdAt: 3, refs: ['s1#3'] }), doc('t1', 'one', { createdAt: 1, refs: ['s1#1'] })]);
  a.putMany([doc('t2', 'two', { createdAt: 2, refs: ['s1#2'] }), doc('u1', 'other session', { createdAt: 2, sessionId: 's2' }), doc('gone', 'deleted', { createdAt: 2.5 })]);
  a.deleteIds(['gone']);
  const row = (id: string) => a.get(id)!;
  const idOf = (n: number | null) => (n === null ? null : [...a.rows([n], 'full').values()][0].doc.id);
  assert.deepEqual([idOf(row('t1').prev), idOf(row('t1').next), idOf(row('t2').next), idOf(row('t3').prev), idOf(row('t3').next)], [null, 't2', 't3', 't2', null]);
  const adj = a.adjacent({ id: 't2', sessionId: 's1', createdAt: 2 });
  assert.deepEqual([adj.before.map((r) => r.doc.id), adj.after.map((r) => r.doc.id)], [['t1'], ['t3']]);
  const many = a.adjacentMany([
    { id: 't1', sessionId: 's1', createdAt: 1 },
    { id: 'live', sessionId: 's1', createdAt: 2.5 },
  ]);
  assert.deepEqual([many.get('t1')!.before.length, many.get('t1')!.after[0].doc.id], [0, 't2']);
  assert.deepEqual([many.get('live')!.before[0].doc.id, many.get('live')!.after[0].doc.id], ['t2', 't3'], 'a document of another tier finds its archived neighbours');
  assert.deepEqual(a.byRefs(['s1#3', 't1']).map((r) => r.doc.id), ['t1', 't3']);
  assert.deepEqual(a.list({ limit: 2 }).map((d) => d.id), ['t3', 'u1']);
  a.close();
});

test('a corrupt archive.db is kept aside and an empty archive starts; the file is on disk', () => {
  const h = home();
  fs.mkdirSync(path.join(h, 'documents'));
  fs.writeFileSync(path.join(h, 'documents', 'archive.db'), 'not a database '.repeat(200));
  const log = testLog();
  const a = new ColdArchive({ home: h, tokenize: (t) => embedder.tokenize(t), log, clock: () => 7 });
  a.open();
  assert.equal(a.size, 0);
  assert.ok(fs.existsSync(path.join(h, 'documents', 'archive.db.corrupt-7')));
  assert.ok(log.lines.some((l) => /archive\.db is corrupt .*reindex/.test(l)), log.lines.join('\n'));
  a.putMany([doc('a', 'works again')]);
  assert.ok(a.diskBytes() > 0);
  a.close();
});

test('an archive.db whose damage SQLite meets only at the first reads (the people heard on a bad page) is kept aside and an empty archive starts', () => {
  const h = home();
  const a = open(h);
  a.putMany(Array.from({ length: 70 }, (_, i) => doc(`d${i}`, `archived turn ${i} about the dentist and the garden ${'words '.repeat(40)}`, { speaker: { id: `u${i % 5}`, name: `P${i % 5}` } })));
  a.close();
  const file = path.join(h, 'documents', 'archive.db');
  // A bad sector under the people heard: SQLite opens the file and reads the schema without complaint.
  for (const p of tablePages(file, 'speakers')) overwritePage(file, p.pageno);
  const log = testLog();
  const b = new ColdArchive({ home: h, tokenize: (t) => embedder.tokenize(t), log, clock: () => 9, saidDays: (t, at) => saidDays(t, at, 'UTC') });
  b.open();
  assert.equal(b.size, 0);
  assert.equal(b.speakers().size, 0);
  assert.deepEqual(b.setAside, { file: `${file}.corrupt-9`, at: 9 });
  assert.ok(fs.statSync(`${file}.corrupt-9`).size > 8192, 'the damaged file is kept as it was');
  assert.ok(log.lines.some((l) => /archive\.db is corrupt .*malformed.*reindex/.test(l)), log.lines.join('\n'));
  b.putMany([doc('a', 'works again', { speaker: { id: 'u1', name: 'P1' } })]);
  assert.ok(b.has('a'));
  assert.equal(b.speakers().get('u1'), 'P1');
  b.close();
});

test('who said it is indexed: the people heard with their latest name, kept exact through replace, delete and reopen; rows read for ranking know the speaker and whether the turn asks', () => {
  const h = home();
  const a = open(h);
  a.putMany([
    doc('a', 'Which team do you support?', { speaker: { id: 'tg:1', name: 'Tim' } }),
    doc('b', 'The Wolves are solid', { speaker: { id: 'tg:2', name: 'John' }, createdAt: 1001 }),
    doc('c', 'owner words', { speaker: { id: 'user' } }),
  ]);
  assert.deepEqual([...a.speakers()].sort(), [['tg:1', 'Tim'], ['tg:2', 'John'], ['user', undefined]]);
  a.putMany([doc('d', 'still me', { speaker: { id: 'tg:1', name: 'Timothy' } })]);
  assert.equal(a.speakers().get('tg:1'), 'Timothy', 'the latest display name');
  a.putMany([doc('b', 'The Wolves again', { speaker: { id: 'tg:2', name: 'John' } })]);
  a.deleteIds(['c']);
  assert.deepEqual([...a.speakers().keys()].sort(), ['tg:1', 'tg:2'], 'nobody left for user');
  const light = a.rows([a.get('a')!.n, a.get('b')!.n], 'light');
  const ra = [...light.values()].find((r) => r.n === a.get('a')!.n)!;
  const rb = [...light.values()].find((r) => r.n === a.get('b')!.n)!;
  assert.equal(light.size, 2);
  assert.deepEqual([ra.doc.speaker?.id, ra.asks, rb.doc.speaker?.id, rb.asks], ['tg:1', true, 'tg:2', false]);
  a.close();
  const b = open(h);
  assert.deepEqual([...b.speakers()].sort(), [['tg:1', 'Timothy'], ['tg:2', 'John']], 'read back from the speakers table');
  b.deleteIds(['a', 'd']);
  assert.deepEqual([...b.speakers().keys()], ['tg:2']);
  b.close();
});

test('an archive of schema 1 migrates: questions marked (either mark, or a Chinese particle), the people heard counted from its rows', () => {
  const h = home();
  fs.mkdirSync(path.join(h, 'documents'));
  const db = new Database(path.join(h, 'documents', 'archive.db'));
  db.exec(ARCHIVE_MIGRATIONS[0]);
  db.pragma('user_version = 1');
  const ins = db.prepare("INSERT INTO turns (id, session_id, speaker_id, speaker, created_at, added_at, archived_at, content, tokens, ntok) VALUES (?, 's1', ?, ?, ?, 0, 0, ?, '', 0)");
  ins.run('q1', 'tg:1', JSON.stringify({ id: 'tg:1', name: 'Tim' }), 1, 'Which team do you support?');
  ins.run('q2', 'qq:7', JSON.stringify({ id: 'qq:7', name: '小明' }), 2, '你吃饭了吗。');
  ins.run('s1', 'qq:7', 'not json', 3, '我吃了');
  ins.run('s2', null, null, 4, 'no speaker');
  db.close();
  const lines: string[] = [];
  const a = new ColdArchive({ home: h, tokenize: (t) => t.split(/\s+/), log: { info: (m) => lines.push(m), warn: (m) => lines.push(m) } });
  a.open();
  // The one-time upgrade is announced before it starts (it takes minutes at a million rows) and timed after.
  assert.equal(lines.length, 4, lines.join('\n'));
  assert.match(lines[0], /upgrading .*archive\.db from schema 1 to 2 \(once; about 4 rows/);
  assert.match(lines[1], /upgraded from schema 1 to 2 in \d+\.\d s/);
  assert.match(lines[3], /upgraded from schema 2 to 3 in \d+\.\d s/);
  const asks = (id: string) => [...a.rows([a.get(id)!.n], 'light').values()][0].asks;
  const fresh: string[] = [];
  const f = new ColdArchive({ home: home(), tokenize: (t) => t.split(/\s+/), log: { info: (m) => fresh.push(m), warn: (m) => fresh.push(m) } });
  f.open();
  f.close();
  assert.deepEqual(fresh, [], 'a new archive is created without an upgrade notice');
  assert.deepEqual([asks('q1'), asks('q2'), asks('s1'), asks('s2')], [true, true, false, false]);
  assert.deepEqual([...a.speakers()].sort(), [['qq:7', '小明'], ['tg:1', 'Tim']]);
  a.close();
  const v = new Database(path.join(h, 'documents', 'archive.db'), { readonly: true });
  assert.equal(v.pragma('user_version', { simple: true }), ARCHIVE_MIGRATIONS.length);
  assert.equal((v.prepare('SELECT n FROM speakers WHERE id = ?').get('qq:7') as { n: number }).n, 2);
  v.close();
});

test('rows read for ranking (light rows, and rankRows as arrays) carry what the whole row says of session, time, links, kind, speaker, place and question; absent rows are skipped', () => {
  const h = home();
  const a = open(h);
  a.putMany([
    doc('q', 'Which team do you support?', { createdAt: 10, speaker: { id: 'tg:1', name: 'Tim' }, conversation: { kind: 'group', id: 'tg:g1' } }),
    doc('r', 'The Wolves', { createdAt: 20, eventKind: 'agent' }),
    doc('s', 'later', { createdAt: 30, eventKind: '' }),
  ]);
  a.close();
  const whole = open(h);
  const full = ['q', 'r', 's'].map((id) => whole.get(id)!);
  whole.close();
  // A fresh connection: nothing cached, so the light read itself is what is checked.
  const b = open(h);
  const ns = full.map((r) => r.n);
  const gone = Math.max(...ns) + 100;
  const light = b.rows([...ns, gone], 'light');
  assert.equal(light.size, 3, 'an absent row is skipped');
  const ranked = new Map(b.rankRows([...ns, gone]).map((r) => [r[0], r]));
  assert.equal(ranked.size, 3);
  assert.deepEqual(b.rankRows([]), []);
  for (const f of full) {
    const l = light.get(f.n)!;
    assert.equal(l.level, 'light');
    assert.deepEqual(
      [l.doc.sessionId, l.doc.createdAt, l.doc.addedAt, l.prev, l.next, l.doc.kind, l.doc.eventKind, l.doc.speaker?.id, l.doc.conversation?.id, l.asks, l.len, l.doc.content, l.doc.id],
      [f.doc.sessionId, f.doc.createdAt, f.doc.createdAt, f.prev, f.next, f.doc.kind, f.doc.eventKind, f.doc.speaker?.id, f.doc.conversation?.id, f.asks, f.len, '', `#${f.n}`],
    );
    assert.deepEqual(ranked.get(f.n), [f.n, f.doc.sessionId, f.doc.createdAt, f.len, f.prev, f.next, f.doc.eventKind ?? '', f.doc.speaker?.id ?? null, f.asks ? 1 : 0]);
  }
  assert.deepEqual([full[0].asks, full[1].asks, full[1].doc.eventKind, full[2].doc.eventKind], [true, false, 'agent', undefined]);
  b.close();
});

/** Local noon of a day (calendar days are local time). */
const noon = (y: number, m: number, d: number) => new Date(y, m - 1, d, 12).getTime();

test('decision 0160: the days said in a turn are kept per row, and go with it when it is replaced or deleted', () => {
  const h = home();
  const a = new ColdArchive({ home: h, tokenize: (t) => embedder.tokenize(t), saidDays });
  a.open();
  a.putMany([doc('y', 'I went to the support group yesterday', { createdAt: noon(2023, 5, 8) }), doc('z', 'no day here', { createdAt: noon(2023, 5, 8) })]);
  assert.deepEqual(a.daysOf('y'), [20230507]);
  assert.deepEqual(a.daysOf('z'), []);
  assert.deepEqual(a.saidOn([{ from: 20230507, to: 20230507 }], 10), [a.get('y')!.n]);
  assert.deepEqual(a.saidYears(), { min: 2023, max: 2023 });
  // Replaced with other text: the old day goes, the new one comes.
  a.putMany([doc('y', 'I went to the support group two days ago', { createdAt: noon(2023, 5, 8) })]);
  assert.deepEqual(a.daysOf('y'), [20230506]);
  assert.deepEqual(a.saidOn([{ from: 20230507, to: 20230507 }], 10), []);
  a.deleteByTurnIds(['s1#y']);
  const raw = new Database(a.path, { readonly: true });
  assert.equal(raw.prepare('SELECT count(*) FROM turn_days').pluck().get(), 0, 'no day is left of a deleted row');
  raw.close();
  assert.equal(a.saidYears(), undefined);
  a.close();
});

test('decision 0160: an archive of schema 2 (real file, rows of the old build) gets its days at the first open with a resolver; one without leaves them pending', () => {
  const h = home();
  fs.mkdirSync(path.join(h, 'documents'));
  const db = new Database(path.join(h, 'documents', 'archive.db'));
  db.exec(ARCHIVE_MIGRATIONS[0]);
  db.exec(ARCHIVE_MIGRATIONS[1]);
  db.pragma('user_version = 2');
  const ins = db.prepare("INSERT INTO turns (id, turn_id, session_id, created_at, added_at, archived_at, content, tokens, ntok) VALUES (?, ?, 's1', ?, 0, 0, ?, '', 0)");
  ins.run('a', 'ta', noon(2024, 1, 17), '我上周六去爬山了');
  ins.run('b', 'tb', noon(2023, 5, 8), 'I went to the support group yesterday');
  ins.run('c', 'tc', noon(2023, 5, 8), 'on 31 February 2023 and 2023-13-45');
  ins.run('d', 'td', noon(2023, 5, 8), 'nothing');
  db.close();
  // Opened by a process without a resolver (e.g. an import's check): migrated, days pending.
  const bare = new ColdArchive({ home: h, tokenize: (t) => embedder.tokenize(t) });
  bare.open();
  assert.equal(bare.saidYears(), undefined);
  bare.putMany([doc('e', 'we met yesterday', { createdAt: noon(2023, 5, 8) })]);
  bare.close();
  const lines: string[] = [];
  const a = new ColdArchive({ home: h, tokenize: (t) => embedder.tokenize(t), saidDays, log: { info: (m) => lines.push(m), warn: (m) => lines.push(m) } });
  a.open();
  assert.deepEqual(['a', 'b', 'c', 'd', 'e'].map((id) => a.daysOf(id)), [[20240113], [20230507], [], [], [20230507]]);
  assert.match(lines.join('\n'), /resolved the days said in 5 archived turns \(3 days\)/);
  a.close();
  // Done once: the next open has nothing to resolve.
  const again = new ColdArchive({ home: h, tokenize: (t) => embedder.tokenize(t), saidDays, log: { info: (m) => lines.push(m), warn: (m) => lines.push(m) } });
  again.open();
  assert.equal(lines.filter((l) => /resolved the days/.test(l)).length, 1);
  assert.deepEqual(again.saidYears(), { min: 2023, max: 2024 });
  again.close();
});

test('decision 0160: a resolver that throws or answers nonsense does not stop a turn from being archived', () => {
  const a = new ColdArchive({
    home: home(),
    tokenize: (t) => embedder.tokenize(t),
    saidDays: (text) => {
      if (text.includes('boom')) throw new Error('boom');
      return [NaN, 1.5, -3, 99_999_999, 20230507, 20230507] as number[];
    },
  });
  a.open();
  assert.equal(a.putMany([doc('x', 'boom yesterday'), doc('y', 'odd')]), 2);
  assert.equal(a.size, 2);
  assert.deepEqual(a.daysOf('x'), []);
  assert.deepEqual(a.daysOf('y'), [20230507], 'only real day keys are kept, once');
  a.close();
});

test('decision 0160: beyond one batch, the days of rows stored before are resolved in the background; open does not wait, close stops it, the next open goes on', async () => {
  const h = home();
  const bare = new ColdArchive({ home: h, tokenize: (t) => t.split(/\s+/) });
  bare.open();
  const rows = Array.from({ length: 4_500 }, (_, i) => doc(`r${i}`, `turn ${i} yesterday`, { createdAt: noon(2023, 5, 8), refs: [`s1#r${i}`] }));
  bare.putMany(rows);
  bare.close();
  const lines: string[] = [];
  const open = () => {
    const a = new ColdArchive({ home: h, tokenize: (t) => t.split(/\s+/), saidDays, log: { info: (m) => lines.push(m), warn: (m) => lines.push(m) } });
    a.open();
    return a;
  };
  const pending = (a: ColdArchive) => {
    const db = new Database(a.path, { readonly: true });
    try {
      return db.prepare('SELECT count(*) FROM turns WHERE days_done = 0').pluck().get() as number;
    } finally {
      db.close();
    }
  };
  const a = open();
  assert.equal(pending(a), 2_500, 'one batch at open, the rest later');
  a.close();
  await a.whenDaysResolved();
  assert.equal(pending(a), 2_500, 'closing stops the background work');
  const b = open();
  await b.whenDaysResolved();
  assert.equal(pending(b), 0);
  assert.equal(b.saidOn([{ from: 20230507, to: 20230507 }], 10_000).length, 4_500);
  assert.match(lines.join('\n'), /resolved the days said in 2500 archived turns \(2500 days\)/);
  b.close();
});
