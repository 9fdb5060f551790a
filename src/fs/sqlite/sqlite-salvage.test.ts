/**
 * Decision 0310: the shared salvage parts on their own — the schema-driven row copy (types, NOT
 * NULL, rowid aliases, WITHOUT ROWID key order, columns added later, foreign keys, the store's
 * hooks) and the open flow (what a failing salvage or a non-corruption error does).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openSalvaging } from './sqlite-salvage-open.js';
import { salvageRowsInto } from './sqlite-salvage-copy.js';
import { overwritePage, stepMigrator, tablePages } from './__fixtures__/sqlite-damage.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-fs-salvage-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const dir = () => fs.mkdtempSync(path.join(root, `d${n++}-`));

/** A little store: version 1 makes `items` and `tags`; version 2 adds a column to `items`. */
const STEPS = [
  `CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER, r REAL, note TEXT);
   CREATE TABLE tags (item_id INTEGER NOT NULL REFERENCES items(id), tag TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (tag, item_id)) WITHOUT ROWID;`,
  `ALTER TABLE items ADD COLUMN flag INTEGER NOT NULL DEFAULT 7;`,
];
const migrate = stepMigrator(STEPS);

test('0310: rows are copied by the new file’s columns — a wrong type, a row the store refuses and a row whose parent is gone left out and counted, ids and key order kept, a column added later gets its default', () => {
  const file = path.join(dir(), 'store.db');
  const db = new Database(file);
  migrate(db, 1);
  const item = db.prepare('INSERT INTO items(id, name, n, r, note) VALUES (?, ?, ?, ?, ?)');
  const tag = db.prepare('INSERT INTO tags(item_id, tag, at) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 300; i++) item.run(i * 10, `item ${i}`, i, i / 4, i % 3 ? null : 'x'.repeat(50));
    // SQLite takes text in an INTEGER column and a fraction in REAL is fine: the first is no row our code writes.
    item.run(5000, 'bad n', 'not a number', 1.5, null);
    for (let i = 1; i <= 300; i++) tag.run(i * 10, `tag ${i % 7}`, 1000 + i);
  })();
  db.close();
  const staged = new Database(path.join(path.dirname(file), 'staged.db'));
  const skipped: string[] = [];
  const r = salvageRowsInto(file, staged, { migrate, newest: STEPS.length, check: (t, row) => t !== 'items' || row.name !== 'item 13', skipped: (t, v) => skipped.push(`${t}:${String(v[1])}`) });
  assert.deepEqual(r.tables.items, { read: 301, kept: 299, skipped: 2 }, 'the wrong type and the one the store refused');
  assert.deepEqual(skipped.sort(), ['items:bad n', 'items:item 13', 'tags:130'], 'told of each, values as read (the tag of item 13 has no parent)');
  assert.deepEqual(r.tables.tags, { read: 300, kept: 299, skipped: 1 });
  assert.equal(staged.pragma('user_version', { simple: true }), 2, 'migrated to the newest after the copy');
  assert.deepEqual(staged.prepare('SELECT id, name, n, r, note, flag FROM items WHERE id = 30').get(), { id: 30, name: 'item 3', n: 3, r: 0.75, note: 'x'.repeat(50), flag: 7 });
  assert.deepEqual(staged.prepare('SELECT item_id, tag, at FROM tags WHERE item_id = 70').get(), { item_id: 70, tag: 'tag 0', at: 1007 }, 'a WITHOUT ROWID record read key-first');
  assert.deepEqual(staged.pragma('foreign_key_check'), []);
  staged.close();
});

test('0310: a page overwritten — the rows of the other pages come back; the report counts the page', () => {
  const file = path.join(dir(), 'store.db');
  const db = new Database(file);
  migrate(db);
  const item = db.prepare('INSERT INTO items(id, name, n) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 2000; i++) item.run(i, `item ${i} `.padEnd(60, '-'), i);
  })();
  db.close();
  const victim = tablePages(file, 'items', 'leaf')[5];
  overwritePage(file, victim.pageno);
  const staged = new Database(path.join(path.dirname(file), 'staged.db'));
  const r = salvageRowsInto(file, staged, { migrate, newest: STEPS.length });
  assert.equal(r.unreadablePages, 1);
  assert.equal(r.tables.items.kept, 2000 - victim.ncell);
  assert.equal(staged.prepare('SELECT COUNT(*) FROM items').pluck().get(), 2000 - victim.ncell);
  staged.close();
});

test('0310: openSalvaging — an error that is not damage is thrown on; a salvage that throws still sets the file aside and starts empty', () => {
  const d = dir();
  const file = path.join(d, 'store.db');
  fs.writeFileSync(file, 'not sqlite '.repeat(100));
  const connect = () => {
    const db = new Database(file);
    if (db.pragma('quick_check', { simple: true }) !== 'ok') throw Object.assign(new Error('bad'), { code: 'SQLITE_CORRUPT' });
    migrate(db);
    return db;
  };
  assert.throws(() => openSalvaging({ file, now: () => 1, connect: () => { throw new Error('EACCES'); }, isCorrupt: () => false, salvage: () => 0 }), /EACCES/);
  assert.ok(fs.existsSync(file), 'not set aside');
  const o = openSalvaging({ file, now: () => 2, connect, isCorrupt: (e) => (e as { code?: string }).code?.startsWith('SQLITE_') ?? false, salvage: () => { throw new Error('reader bug'); } });
  assert.equal(o.aside?.file, `${file}.corrupt-2`);
  assert.equal(o.aside?.salvageError?.message, 'reader bug');
  assert.equal(o.aside?.salvage, undefined);
  assert.equal(fs.readFileSync(o.aside!.file, 'utf8'), 'not sqlite '.repeat(100));
  assert.equal(o.db.prepare('SELECT COUNT(*) FROM items').pluck().get(), 0, 'a new, empty store');
  assert.equal(fs.existsSync(`${file}.salvaged`), false);
  o.db.close();
});
