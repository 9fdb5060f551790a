/**
 * Decision 0310: a graph.db SQLite refuses is read back — real files written by GraphDB (facts
 * with sources and speakers, a timeline of a single-valued predicate, attributes, merge
 * decisions), damaged as disks and kills damage them, then opened again. The facts on readable
 * pages come back exactly (ids, validity, sources); what the graph derives from them holds.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { GraphChange } from './graph-state.js';
import { GraphDB } from './graph-db.js';
import { migrateGraph } from './graph-migrations.js';
import { overwriteHeader, overwritePage, tablePages } from '../../fs/sqlite/__fixtures__/sqlite-damage.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-graph-salvage-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const T0 = Date.UTC(2026, 0, 1);
const FACTS = 400;

type Row = Record<string, unknown>;
interface Snapshot {
  entities: Map<number, Row>;
  relations: Map<number, Row>;
  sources: Map<number, Row[]>;
  decisions: Row[];
}

function snapshot(file: string): Snapshot {
  const db = new Database(file, { readonly: true });
  try {
    const sources = new Map<number, Row[]>();
    for (const s of db.prepare('SELECT * FROM relation_sources ORDER BY relation_id, ref').all() as Row[]) sources.set(s.relation_id as number, [...(sources.get(s.relation_id as number) ?? []), s]);
    return {
      entities: new Map((db.prepare('SELECT * FROM entities').all() as Row[]).map((r) => [r.id as number, r])),
      relations: new Map((db.prepare('SELECT * FROM relations').all() as Row[]).map((r) => [r.id as number, r])),
      sources,
      decisions: db.prepare('SELECT * FROM merge_decisions ORDER BY a, b').all() as Row[],
    };
  } finally {
    db.close();
  }
}

/** A real graph.db: 400 facts (each with a turn and its speaker), a timeline of where the user lived, attributes, a merge decision; the last change's record kept. */
function build(): { file: string; before: Snapshot; last: GraphChange } {
  const file = path.join(root, `g${n++}`, 'graph.db');
  let clock = T0;
  const changes: GraphChange[] = [];
  const g = new GraphDB({ path: file, now: () => clock++, onChange: (c) => changes.push(...c) });
  g.open();
  for (let i = 0; i < FACTS; i += 50) {
    g.commit(
      Array.from({ length: 50 }, (_, k) => ({
        subject: `Person ${i + k}`,
        predicate: 'likes',
        object: `Thing ${(i + k) % 60}`,
        subjectType: 'person',
        confidence: 0.5 + ((i + k) % 5) / 10,
        sentence: `Person ${i + k} said they like thing ${(i + k) % 60} very much indeed`,
        refs: [`webui:s#${i + k}`],
        speaker: `telegram:${i + k}`,
      })),
    );
  }
  g.commit([{ subject: 'user', predicate: 'lives_in', object: '杭州', refs: ['webui:s#900'], speaker: 'user', validFrom: T0 - 86_400_000 * 400 }]);
  g.commit([{ subject: 'user', predicate: 'lives_in', object: '上海', refs: ['webui:s#901'], speaker: 'user', validFrom: T0 - 86_400_000 * 10 }]);
  g.editEntity('Thing 7', { attributes: { colour: 'green', since: 2019 } });
  g.recordMergeDecision('Thing 1', 'Thing 2', 'distinct');
  g.commit([{ subject: 'user', predicate: 'owns', object: 'Thing 3', refs: ['webui:s#902'] }]);
  g.close();
  return { file, before: snapshot(file), last: changes.at(-1)! };
}

const pages = (file: string, name: string) => tablePages(file, name, 'leaf');

function reopen(file: string, clock = T0 + 1e6): { g: GraphDB; logs: string[] } {
  const logs: string[] = [];
  const log = { error: (m: string) => logs.push(m), warn: (m: string) => logs.push(m), info: () => {}, debug: () => {} };
  const g = new GraphDB({ path: file, now: () => clock, log: log as never });
  g.open();
  return { g, logs };
}

/** SQLite's own view of the new file: sound, every foreign key satisfied. */
function assertSound(file: string): void {
  const db = new Database(file);
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    assert.deepEqual(db.pragma('foreign_key_check'), []);
    assert.equal(db.pragma('user_version', { simple: true }), 5, "the migrations' current version");
    // Throws SQLITE_CORRUPT_VTAB when the name index does not match the entities.
    db.prepare("INSERT INTO entities_fts(entities_fts, rank) VALUES ('integrity-check', 1)").run();
  } finally {
    db.close();
  }
}

test('0310: a page of facts overwritten — every other fact comes back exactly (id, confidence, sentence, refs, validity), with its sources and speakers; the rest of the graph holds', () => {
  const { file, before } = build();
  const victim = pages(file, 'relations')[4];
  overwritePage(file, victim.pageno);
  const { g, logs } = reopen(file);
  const aside = g.setAside!;
  assert.ok(aside, 'set aside');
  assert.ok(fs.existsSync(aside.file));
  g.close();
  const now = snapshot(file);
  assert.equal(now.relations.size, before.relations.size - victim.ncell, 'exactly the rows of the overwritten page are gone');
  for (const [id, r] of now.relations) assert.deepEqual(r, before.relations.get(id), `relation ${id} as it was`);
  for (const [id] of now.relations) assert.deepEqual(now.sources.get(id), before.sources.get(id), `the sources of ${id} with their speakers`);
  assert.deepEqual(now.entities, before.entities, 'every entity (with its attributes)');
  assert.deepEqual(now.decisions, before.decisions);
  assertSound(file);
  const s = aside.salvaged;
  assert.equal(s.unreadablePages, 1);
  assert.deepEqual(s.tables.relations, { read: before.relations.size - victim.ncell, kept: before.relations.size - victim.ncell, skipped: 0 });
  assert.match(logs.join('\n'), /graph\.db is corrupt.*kept aside as .*started a new graph with what could be read back of it: \d+ of \d+ rows \(\d+ entities, \d+ facts, 1 merge decisions, \d+ fact sources\); \d+ left out: invalid, or belonging to a row that was lost; 1 damaged page could not be read/s);
  // What the graph derives from its rows: the name index finds them, the timeline reads as before.
  const g2 = reopen(file).g;
  assert.deepEqual(g2.search('Thing 7').map((e) => e.name), ['Thing 7']);
  assert.deepEqual(g2.getEntity('Thing 7')?.attributes, { colour: 'green', since: 2019 });
  const lived = g2.relationsOf('user', 'lives_in');
  assert.deepEqual(lived.map((r) => [r.object, r.validTo === undefined]), [['上海', true], ['杭州', false]], 'the move: 上海 now, 杭州 until then');
  assert.equal(g2.setAside, undefined, 'the new file opens cleanly');
  g2.close();
});

test('0310: a page of entities overwritten — facts about a lost entity are left out and counted; no fact points at nothing', () => {
  const { file, before } = build();
  const victim = pages(file, 'entities')[1];
  overwritePage(file, victim.pageno);
  const { g } = reopen(file);
  const s = g.setAside!.salvaged;
  g.close();
  const now = snapshot(file);
  assert.equal(now.entities.size, before.entities.size - victim.ncell);
  const orphaned = [...before.relations.values()].filter((r) => !now.entities.has(r.subject_id as number) || !now.entities.has(r.object_id as number));
  assert.ok(orphaned.length > 0);
  assert.equal(now.relations.size, before.relations.size - orphaned.length);
  assert.deepEqual(s.tables.relations, { read: before.relations.size, kept: before.relations.size - orphaned.length, skipped: orphaned.length });
  assertSound(file);
});

test('0310: a page of fact sources overwritten — the facts get their sources back from their refs, so forget by turn still finds them', () => {
  const { file, before } = build();
  const victim = pages(file, 'relation_sources')[2];
  overwritePage(file, victim.pageno);
  const { g, logs } = reopen(file);
  assert.match(logs.join('\n'), /\d+ fact sources put back from the facts' refs/);
  g.close();
  const now = snapshot(file);
  assert.equal(now.relations.size, before.relations.size);
  for (const [id, src] of before.sources) assert.deepEqual(now.sources.get(id)?.map((x) => x.ref), src.map((x) => x.ref), `relation ${id} has its sources`);
  assertSound(file);
  const g2 = reopen(file).g;
  const lostOne = [...before.sources].find(([id, src]) => now.sources.get(id)?.[0].speaker_id !== src[0].speaker_id)!;
  assert.ok(lostOne, 'one whose source row was lost (its speaker is not known any more)');
  assert.deepEqual(g2.onlySourcedBy([lostOne[1][0].ref as string]), [lostOne[0]], 'forget of that turn takes the fact');
  g2.close();
});

test('0310: the history of changes (in memory-control.db, by id) still fits: the last change is undone on the salvaged graph', () => {
  const { file, last } = build();
  overwritePage(file, pages(file, 'relations')[1].pageno);
  const { g } = reopen(file);
  assert.ok(g.setAside);
  assert.equal(last.target.startsWith('relation:'), true);
  const id = Number(last.target.slice('relation:'.length));
  assert.equal(g.relation(id)?.object, 'Thing 3');
  g.applyUndo(last.before, last.after);
  assert.equal(g.relation(id), undefined, 'undone: the fact it created is gone');
  g.close();
});

test('0310: a garbage header, a garbage schema page, a file cut short — nothing throws; the first two lose nothing, the cut keeps what is before it', () => {
  for (const damage of ['header', 'page 1', 'cut'] as const) {
    const { file, before } = build();
    if (damage === 'header') {
      overwriteHeader(file);
    } else if (damage === 'page 1') overwritePage(file, 1);
    else fs.truncateSync(file, Math.floor(fs.statSync(file).size / 4096 / 2) * 4096);
    const { g } = reopen(file);
    assert.ok(g.setAside, damage);
    g.close();
    const now = snapshot(file);
    if (damage !== 'cut') {
      assert.deepEqual(now.relations, before.relations, damage);
      assert.deepEqual(now.entities, before.entities, damage);
    } else assert.ok(now.relations.size > 0 && now.relations.size < before.relations.size, `cut: ${now.relations.size}`);
    for (const [id, r] of now.relations) assert.deepEqual(r, before.relations.get(id));
    assertSound(file);
  }
});

test('0310: a file that is not SQLite, and an empty file over a WAL of facts — the graph opens; the WAL’s facts come back', () => {
  const { file } = build();
  fs.writeFileSync(file, 'not a database at all '.repeat(300));
  let { g } = reopen(file);
  assert.deepEqual([g.setAside?.salvaged.read, g.stats().relations], [0, 0], 'nothing to read back; an empty graph that works');
  g.commit([{ subject: 'a', predicate: 'knows', object: 'b' }]);
  g.close();

  // A young graph (each table one page) whose file lost its content in a crash; the last facts
  // were in the WAL — with every page they touched, the roots among them.
  const young = path.join(root, `young${n++}`, 'graph.db');
  const first = new GraphDB({ path: young });
  first.open();
  first.commit([{ subject: 'user', predicate: 'likes', object: 'tea', refs: ['webui:s#1'], speaker: 'user' }]);
  first.close();
  const live = new GraphDB({ path: young });
  live.open();
  live.commit([{ subject: 'user', predicate: 'owns', object: 'a bicycle', refs: ['webui:s#2'], speaker: 'user' }]);
  const copy = path.join(fs.mkdtempSync(path.join(root, 'zero-')), 'graph.db');
  fs.copyFileSync(`${young}-wal`, `${copy}-wal`);
  fs.writeFileSync(copy, '');
  live.close();
  ({ g } = reopen(copy));
  assert.ok(g.setAside, 'an empty file over a WAL with frames is damaged, not new');
  assert.deepEqual(g.relations().items.map((r) => `${r.subject} ${r.predicate} ${r.object}`).sort(), ['user likes tea', 'user owns a bicycle'], 'the facts came back from the WAL');
  assert.deepEqual(g.sourcesOf(g.relations().items.find((r) => r.object === 'a bicycle')!.id), [{ ref: 'webui:s#2', speaker: 'user' }]);
  g.close();
});

test('0310: a graph.db of an older schema (before validity) is read back and migrated: each fact holds since it was learned', () => {
  const file = path.join(root, `old${n++}`, 'graph.db');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  migrateGraph(db, 4);
  const ent = db.prepare('INSERT INTO entities(name, created_at, updated_at) VALUES (?, ?, ?)');
  const rel = db.prepare('INSERT INTO relations(subject_id, predicate, object_id, refs, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
  const src = db.prepare('INSERT INTO relation_sources(relation_id, ref, speaker_id) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 300; i++) ent.run(`E${i}`, T0, T0);
    for (let i = 1; i < 300; i++) {
      const id = Number(rel.run(i, 'next', i + 1, JSON.stringify([`t${i}`]), T0 + i, T0 + i).lastInsertRowid);
      src.run(id, `t${i}`, 'user');
    }
  })();
  db.close();
  overwritePage(file, pages(file, 'relations')[1].pageno);
  const { g } = reopen(file);
  assert.ok(g.setAside);
  const items = g.relations({ limit: 1000 }).items;
  assert.ok(items.length > 200 && items.length < 299, `${items.length}`);
  for (const r of items) assert.equal(r.validFrom, g.stateOf({ relations: [r.id] }).relations[0].createdAt, 'migration 5 applied to the rows read back');
  g.close();
  assertSound(file);
});

test('0310: a kill during the salvage — a staged file beside the damaged one is thrown away and redone; a staged file alone is moved in', () => {
  const { file, before } = build();
  overwritePage(file, pages(file, 'relations')[0].pageno);
  fs.writeFileSync(`${file}.salvaged`, 'half-written');
  let { g } = reopen(file);
  assert.ok(g.setAside, 'salvaged again');
  assert.ok(g.stats().relations > 300);
  g.close();
  assert.equal(fs.existsSync(`${file}.salvaged`), false);

  const b2 = build();
  fs.renameSync(b2.file, `${b2.file}.salvaged`);
  fs.writeFileSync(`${b2.file}.corrupt-${T0}`, 'the damaged one, set aside');
  ({ g } = reopen(b2.file));
  assert.equal(g.setAside, undefined, 'the complete staged graph is moved in');
  g.close();
  assert.deepEqual(snapshot(b2.file).relations, b2.before.relations);
  assert.ok(before.relations.size > 0);
});
