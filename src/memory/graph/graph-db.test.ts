import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { GraphDB } from './graph-db.js';
import { firstPersonAs } from './graph-input.js';
import { GRAPH_MIGRATIONS } from './graph-migrations.js';
import { ConflictError, NotFoundError, ValidationError } from '../../spec/index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-graph-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
function fresh(): GraphDB {
  const g = new GraphDB({ path: path.join(root, `g${n++}`, 'graph.db') });
  g.open();
  return g;
}

test('commit upserts entities with types and dedupes relations, raising confidence', () => {
  const g = fresh();
  assert.equal(g.commit([{ subject: '张三', predicate: 'lives in', object: '北京', subjectType: 'person', objectType: 'place', confidence: 0.5, sentence: '张三住在北京' }]), 1);
  g.commit([{ subject: '张三', predicate: 'LIVES  IN', object: '北京', confidence: 0.5, refs: ['t1'] }]);
  const rels = g.relations().items;
  assert.equal(rels.length, 1);
  assert.equal(rels[0].predicate, 'lives_in');
  assert.equal(rels[0].confidence, 0.75);
  assert.equal(rels[0].sentence, '张三住在北京');
  assert.deepEqual(rels[0].refs, ['t1']);
  assert.equal(g.getEntity('张三')?.type, 'person');
  assert.equal(g.getEntity('北京')?.type, 'place');
  // case-insensitive entity names: no duplicate entity
  g.commit([{ subject: 'alice', predicate: 'knows', object: 'Bob' }, { subject: 'ALICE', predicate: 'likes', object: 'tea' }]);
  assert.equal(g.stats().entities, 5);
  g.close();
});

test('commit rejects empty names, huge strings, self loops and non-arrays with ValidationError; nothing is written', () => {
  const g = fresh();
  assert.throws(() => g.commit([{ subject: '  ', predicate: 'p', object: 'x' }]), ValidationError);
  assert.throws(() => g.commit([{ subject: 'a'.repeat(201), predicate: 'p', object: 'x' }]), ValidationError);
  assert.throws(() => g.commit([{ subject: 'a', predicate: 'p', object: 'x', sentence: 's'.repeat(5000) }]), ValidationError);
  assert.throws(() => g.commit([{ subject: 'a', predicate: 'p', object: 'A' }]), ValidationError);
  assert.throws(() => g.commit('nope' as never), ValidationError);
  assert.throws(() => g.commit([{ subject: 'a', predicate: 'p', object: 'b' }, { subject: 'c', predicate: '', object: 'd' }]), /triple 1/);
  assert.equal(g.stats().entities, 0);
  g.close();
});

test('recall finds seeds by LIKE and walks relations up to the given depth', () => {
  const g = fresh();
  // chain a - b - c - d - e
  g.commit([
    { subject: 'Alpha', predicate: 'next', object: 'Bravo' },
    { subject: 'Charlie', predicate: 'prev', object: 'Bravo' },
    { subject: 'Charlie', predicate: 'next', object: 'Delta' },
    { subject: 'Delta', predicate: 'next', object: 'Echo' },
  ]);
  const names = (d: number) => g.recall(['alp'], d).entities.map((e) => e.name).sort();
  assert.deepEqual(names(0), ['Alpha']);
  assert.deepEqual(names(1), ['Alpha', 'Bravo']);
  assert.deepEqual(names(2), ['Alpha', 'Bravo', 'Charlie']);
  assert.deepEqual(g.recall(['alp']).entities.length, 3, 'default depth is 2');
  assert.deepEqual(names(5), ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']);
  assert.equal(g.recall(['alp'], 2).relations.length, 2);
  assert.equal(g.recall(['nothing-here']).entities.length, 0);
  assert.throws(() => g.recall(['x'], 9), ValidationError);
  assert.throws(() => g.recall(['x'], -1), ValidationError);
  assert.throws(() => g.recall('x' as never), ValidationError);
  // bounded result size
  const many = Array.from({ length: 100 }, (_, i) => ({ subject: 'Hub', predicate: 'has', object: `Spoke${i}` }));
  g.commit(many);
  const r = g.recall(['Hub'], 1, { maxEntities: 10, maxRelations: 5 });
  assert.ok(r.entities.length <= 10);
  assert.ok(r.relations.length <= 5);
  g.close();
});

test('SQL-significant characters in keywords are literal and harmless', () => {
  const g = fresh();
  g.commit([
    { subject: '100% cotton', predicate: 'is', object: 'fabric' },
    { subject: 'snake_case', predicate: 'is', object: 'style' },
    { subject: "O'Brien", predicate: 'is', object: 'person' },
    { subject: 'say "hi"', predicate: 'is', object: 'phrase' },
    { subject: 'plain', predicate: 'is', object: 'word' },
  ]);
  const seeds = (kw: string) => g.recall([kw], 0).entities.map((e) => e.name);
  assert.deepEqual(seeds('%'), ['100% cotton']);
  assert.deepEqual(seeds('_'), ['snake_case']);
  assert.deepEqual(seeds("'"), ["O'Brien"]);
  assert.deepEqual(seeds('"'), ['say "hi"']);
  assert.deepEqual(seeds("'; DROP TABLE entities;--"), []);
  assert.deepEqual(seeds('\\'), []);
  assert.equal(g.stats().entities, 10, 'tables intact');
  assert.deepEqual(g.search('%').map((e) => e.name), ['100% cotton']);
  g.close();
});

test('merge moves relations, combines duplicates, drops self loops, keeps aliases', () => {
  const g = fresh();
  g.commit([
    { subject: 'Bob', predicate: 'likes', object: 'tea', confidence: 0.5 },
    { subject: 'Robert', predicate: 'likes', object: 'tea', confidence: 0.5 },
    { subject: 'Robert', predicate: 'lives_in', object: 'Paris' },
    { subject: 'Robert', predicate: 'same_as', object: 'Bob' },
  ]);
  g.editEntity('Robert', { type: 'person', attributes: { age: 40 } });
  const r = g.merge('Bob', 'Robert');
  assert.deepEqual(r, { kept: 'Bob', removed: 'Robert', moved: 1, combined: 1 });
  assert.equal(g.getEntity('Robert'), undefined);
  const bob = g.getEntity('bob');
  assert.equal(bob?.type, 'person');
  assert.deepEqual(bob?.attributes, { age: 40, aliases: ['Robert'] });
  const rels = g.relations({ entity: 'Bob' }).items.map((x) => `${x.subject} ${x.predicate} ${x.object} ${x.confidence}`).sort();
  assert.deepEqual(rels, ['Bob likes tea 0.75', 'Bob lives_in Paris 0.8']);
  assert.throws(() => g.merge('Bob', 'bob'), ValidationError);
  assert.throws(() => g.merge('Bob', 'Nobody'), NotFoundError);
  g.close();
});

test('deleteEntity, purge, editEntity, editRelation', () => {
  const g = fresh();
  g.commit([
    { subject: 'A', predicate: 'p', object: 'B', confidence: 0.2 },
    { subject: 'A', predicate: 'q', object: 'C', confidence: 0.9 },
    { subject: 'D', predicate: 'p', object: 'E', confidence: 0.9 },
  ]);
  assert.deepEqual(g.deleteEntity('d'), { entity: 'D', relations: 1 });
  assert.throws(() => g.deleteEntity('D'), NotFoundError);
  assert.deepEqual(g.purge({ belowConfidence: 0.5, orphans: true }), { entities: 2, relations: 1 }); // B and E orphaned
  assert.deepEqual(g.listEntities().items.map((e) => e.name).sort(), ['A', 'C']);
  assert.throws(() => g.editEntity('A', { name: 'C' }), ConflictError);
  const e = g.editEntity('A', { name: 'Anna', attributes: { x: 1 } });
  assert.equal(e.name, 'Anna');
  assert.deepEqual(g.editEntity('Anna', { attributes: { x: null } }).attributes, {});
  const rel = g.relations().items[0];
  const edited = g.editRelation(rel.id, { predicate: 'Works With', confidence: 0.3, object: 'Zed' });
  assert.equal(edited.predicate, 'works_with');
  assert.equal(edited.object, 'Zed');
  assert.throws(() => g.editRelation(9999, { confidence: 0.1 }), NotFoundError);
  assert.throws(() => g.editRelation(rel.id, { confidence: 2 }), ValidationError);
  assert.deepEqual(g.purge({ names: ['Anna'] }), { entities: 1, relations: 1 });
  g.close();
});

test('stats, neighborhood, listEntities paging', () => {
  const g = fresh();
  g.commit([
    { subject: 'Ann', predicate: 'knows', object: 'Ben', subjectType: 'person', objectType: 'person', sentence: 'Ann knows Ben' },
    { subject: 'Ben', predicate: 'knows', object: 'Cat', objectType: 'person' },
  ]);
  const s = g.stats();
  assert.equal(s.entities, 3);
  assert.equal(s.persons, 3);
  assert.equal(s.relations, 2);
  assert.equal(s.unreviewed, 1);
  const nb = g.neighborhood('ann', 1);
  assert.equal(nb.center.name, 'Ann');
  assert.deepEqual(nb.nodes.map((x) => x.name), ['Ann', 'Ben']);
  assert.equal(nb.edges.length, 1);
  assert.equal(nb.edges[0].source, nb.nodes[0].id);
  assert.throws(() => g.neighborhood('nobody'), NotFoundError);
  const page = g.listEntities({ limit: 2, offset: 2 });
  assert.equal(page.total, 3);
  assert.equal(page.items.length, 1);
  g.close();
});

test('migrations are idempotent on reopen and data survives', () => {
  const dir = path.join(root, 'reopen');
  const p = path.join(dir, 'graph.db');
  const g = new GraphDB({ path: p });
  g.open();
  g.open(); // idempotent
  g.commit([{ subject: 'x', predicate: 'y', object: 'z' }]);
  g.close();
  g.close(); // idempotent
  const g2 = new GraphDB({ path: p });
  g2.open();
  assert.equal(g2.stats().relations, 1);
  g2.close();
  const raw = new Database(p);
  assert.equal(raw.pragma('user_version', { simple: true }), GRAPH_MIGRATIONS.length);
  assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
  raw.close();
});

test('a corrupt graph.db is kept aside with a clear log line and a fresh graph starts', () => {
  const dir = path.join(root, 'corrupt');
  fs.mkdirSync(dir);
  const p = path.join(dir, 'graph.db');
  fs.writeFileSync(p, 'this is not a sqlite database, just garbage bytes '.repeat(200));
  const lines: string[] = [];
  const log = { debug() {}, info() {}, warn() {}, error: (m: string) => lines.push(m) };
  const g = new GraphDB({ path: p, log, now: () => 42 });
  g.open();
  assert.equal(g.stats().entities, 0);
  g.commit([{ subject: 'a', predicate: 'b', object: 'c' }]);
  assert.ok(fs.existsSync(`${p}.corrupt-42`));
  assert.match(fs.readFileSync(`${p}.corrupt-42`, 'utf8'), /garbage/);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /graph\.db is corrupt .*kept aside as .*corrupt-42/);
  g.close();
});

test('a graph.db from a newer HomeAgent is refused, not overwritten', () => {
  const dir = path.join(root, 'newer');
  fs.mkdirSync(dir);
  const p = path.join(dir, 'graph.db');
  const raw = new Database(p);
  raw.pragma('user_version = 99');
  raw.close();
  const g = new GraphDB({ path: p });
  assert.throws(() => g.open(), /newer/);
  assert.equal(g.isOpen, false);
});

test('the trigram index follows inserts, renames, merges and deletes; short keywords use LIKE', () => {
  const g = fresh();
  g.commit([
    { subject: 'Alice Smith', predicate: 'lives_in', object: '北京市' },
    { subject: 'Bob', predicate: 'has', object: '100% cotton shirt' },
  ]);
  const seeds = (kw: string) => g.recall([kw], 0).entities.map((e) => e.name);
  assert.deepEqual(seeds('ICE SM'), ['Alice Smith']);
  assert.deepEqual(seeds('北京'), ['北京市'], '2 characters: LIKE');
  assert.deepEqual(seeds('北京市'), ['北京市'], '3 characters: trigram');
  assert.deepEqual(seeds('0% cot'), ['100% cotton shirt']);
  assert.deepEqual(seeds('"; DROP'), []);
  g.editEntity('Alice Smith', { name: 'Alicia Keys' });
  assert.deepEqual(seeds('alice'), []);
  assert.deepEqual(seeds('licia'), ['Alicia Keys']);
  g.merge('Bob', 'Alicia Keys');
  assert.deepEqual(seeds('licia'), []);
  g.deleteEntity('Bob');
  assert.deepEqual(seeds('Bob'), []);
  assert.deepEqual(g.search('cotton').map((e) => e.name), ['100% cotton shirt']);
  g.close();
});

test('upgrading a v2 graph.db indexes the existing entities', () => {
  const dir = path.join(root, 'upgrade');
  fs.mkdirSync(dir);
  const p = path.join(dir, 'graph.db');
  const raw = new Database(p);
  raw.exec(GRAPH_MIGRATIONS[0]);
  raw.exec(GRAPH_MIGRATIONS[1]);
  raw.pragma('user_version = 2');
  raw.prepare("INSERT INTO entities(name, type, attributes, created_at, updated_at) VALUES ('Old Friend', 'person', '{}', 1, 1)").run();
  raw.close();
  const g = new GraphDB({ path: p });
  g.open();
  assert.deepEqual(g.recall(['friend'], 0).entities.map((e) => e.name), ['Old Friend']);
  g.close();
});

test('each relation records its sources (turns) with the speaker; sources survive a merge; removing the only sources removes the fact (forget seam)', () => {
  const g = fresh();
  g.commit([{ subject: 'Anna', predicate: 'likes', object: 'tennis', refs: ['e1', 'webui:1#1'], speaker: 'anna' }]);
  g.commit([{ subject: 'Anna', predicate: 'likes', object: 'tennis', refs: ['e9', 'webui:1#4'], speaker: 'anna' }]);
  g.commit([{ subject: 'Anna B.', predicate: 'lives_in', object: 'Hangzhou', refs: ['e2'] }]);
  g.commit([{ subject: 'Anna', predicate: 'knows', object: 'Ben' }]);
  const tennis = g.relations({ entity: 'tennis' }).items[0];
  assert.deepEqual(g.sourcesOf(tennis.id), [{ ref: 'e1', speaker: 'anna' }, { ref: 'e9', speaker: 'anna' }, { ref: 'webui:1#1', speaker: 'anna' }, { ref: 'webui:1#4', speaker: 'anna' }]);
  g.merge('Anna', 'Anna B.');
  const home = g.relations({ entity: 'Hangzhou' }).items[0];
  assert.deepEqual(g.sourcesOf(home.id), [{ ref: 'e2' }], 'the moved relation keeps its source');
  assert.deepEqual(g.deleteByRefs(['e1', 'webui:1#1']), { relations: 0, entities: 0 }, 'tennis still has other sources');
  assert.deepEqual(g.deleteByRefs(['e9', 'webui:1#4', 'e2']), { relations: 2, entities: 2 }, 'tennis and Hangzhou go, with the entities left bare');
  assert.deepEqual(g.relations().items.map((r) => `${r.subject} ${r.predicate} ${r.object}`), ['Anna knows Ben'], 'a fact without any source is not touched');
  g.close();
});

test('migration 4 records the sources of relations written by the previous version', () => {
  const dir = path.join(root, `g${n++}`);
  fs.mkdirSync(dir);
  const db = new Database(path.join(dir, 'graph.db'));
  for (const m of GRAPH_MIGRATIONS.slice(0, 3)) db.exec(m);
  db.pragma('user_version = 3');
  db.exec(`INSERT INTO entities(id, name, created_at, updated_at) VALUES (1, 'user', 0, 0), (2, '杭州', 0, 0);
    INSERT INTO relations(subject_id, predicate, object_id, refs, created_at, updated_at) VALUES (1, 'lives_in', 2, '["e7","cli:a#3"]', 0, 0)`);
  db.close();
  const g = new GraphDB({ path: path.join(dir, 'graph.db') });
  g.open();
  assert.deepEqual(g.sourcesOf(g.relations().items[0].id), [{ ref: 'cli:a#3' }, { ref: 'e7' }]);
  g.close();
});

test('recall keeps its reads only while the graph is unchanged: every write, a forget, an undo of state and another connection\'s commit are seen at the next recall', () => {
  const g = fresh();
  const facts = (kws = ['Reykjavik', 'Anna']) => g.recall(kws, 1, { touch: false }).relations.map((r) => `${r.subject} ${r.predicate} ${r.object}`).sort();
  g.commit([{ subject: 'Anna', predicate: 'lives_in', object: 'Reykjavik', refs: ['t1'] }]);
  assert.deepEqual(facts(), ['Anna lives_in Reykjavik']);
  assert.deepEqual(facts(), ['Anna lives_in Reykjavik'], 'the same from the kept reads');
  // The objects handed out are fresh each time: a caller changing one changes nothing kept.
  const first = g.recall(['Anna'], 1, { touch: false }).relations[0];
  first.refs!.push('tampered');
  first.object = 'tampered';
  assert.deepEqual(g.recall(['Anna'], 1, { touch: false }).relations[0].refs, ['t1']);
  g.commit([{ subject: 'Anna', predicate: 'likes', object: 'tennis', refs: ['t2'] }]);
  assert.deepEqual(facts(), ['Anna likes tennis', 'Anna lives_in Reykjavik'], 'a commit');
  const before = g.peekRefs(['t2']);
  g.deleteByRefs(['t1']);
  assert.deepEqual(facts(), ['Anna likes tennis'], 'a forget by source turn');
  g.forgetRelations(g.recall(['tennis'], 1, { touch: false }).relations.map((r) => r.id));
  assert.deepEqual(facts(), [], 'a forget by fact');
  g.reattach(before, ['t2']);
  assert.deepEqual(facts(), ['Anna likes tennis'], 'put back (undo)');
  g.editEntity('Anna', { name: 'Anne' });
  assert.deepEqual(facts(['Anne']), ['Anne likes tennis'], 'an edit');
  assert.deepEqual(facts(['Anna']), []);
  // Recall's own touch (the indexer's, on every prompt) is not a change of what recall reads; a
  // write after it still is.
  assert.equal(g.recall(['Anne']).relations.length, 1);
  assert.ok((g.getEntity('Anne') as unknown as { id: number }).id > 0);
  g.commit([{ subject: 'Anne', predicate: 'owns', object: 'a kayak' }]);
  assert.deepEqual(facts(['Anne']), ['Anne likes tennis', 'Anne owns a kayak']);
  g.forgetRelations(g.recall(['kayak'], 1, { touch: false }).relations.map((r) => r.id));
  g.recall(['Anne']);
  assert.deepEqual(facts(['Anne']), ['Anne likes tennis'], 'a forget between two touches');
  // Another connection to the same file (another process): its commit is seen too.
  const other = new GraphDB({ path: g.path });
  other.open();
  other.commit([{ subject: 'Anne', predicate: 'plays', object: 'chess' }]);
  other.close();
  assert.deepEqual(facts(['Anne']), ['Anne likes tennis', 'Anne plays chess'], 'another connection');
  g.close();
  g.open();
  assert.deepEqual(facts(['Anne']), ['Anne likes tennis', 'Anne plays chess'], 'reopened');
  g.close();
  assert.deepEqual(g.recall([]), { entities: [], relations: [] }, 'no keyword reads nothing, even closed');
  assert.throws(() => g.recall(['Anne']), { code: 'GRAPH_CLOSED' });
});

test('the owner is one entity on the owner\'s own surface: "Owner", "me", "我" become `user` (firstPersonAs); the shared schema leaves names as written', () => {
  const g = fresh();
  g.commit([{ subject: 'user', predicate: 'name', object: 'Carol' }]);
  g.commit(firstPersonAs([{ subject: 'Owner', predicate: 'lives_in', object: 'Lisbon' }, { subject: '我', predicate: 'likes', object: '龙井茶' }, { subject: 'Alice', predicate: 'knows', object: 'me' }]));
  assert.deepEqual(g.relations().items.map((r) => `${r.subject} ${r.predicate} ${r.object}`).sort(), ['Alice knows user', 'user likes 龙井茶', 'user lives_in Lisbon', 'user name Carol']);
  assert.equal(g.getEntity('Owner'), undefined);
  // Elsewhere (a group's distilled facts, the model's own commits) "me" is not the owner.
  g.commit([{ subject: 'me', predicate: 'likes', object: 'jazz' }]);
  assert.ok(g.getEntity('me'));
  assert.throws(() => g.commit(firstPersonAs([{ subject: 'Owner', predicate: 'is', object: 'me' }])), ValidationError, 'the same entity on both sides');
});
