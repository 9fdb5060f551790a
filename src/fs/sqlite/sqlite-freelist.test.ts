/**
 * Decision 0310 (amended): the salvage reads the file's freelist and never reads a page on it. A
 * stale interior page (a lost write) still names pages freed since; without `secure_delete` they
 * keep the deleted rows — a removed API key, a forgotten memory — which must not come back.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { salvageRowsInto } from './sqlite-salvage-copy.js';
import { SqlitePageReader } from './sqlite-page-reader.js';
import { freePages, overwritePage, readPageBytes, stepMigrator, tablePages, writeUint32 } from './__fixtures__/sqlite-damage.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-fs-freelist-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const dir = () => fs.mkdtempSync(path.join(root, `d${n++}-`));

const STEPS = [`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER);`];
const migrate = stepMigrator(STEPS);

const name = (i: number) => `item ${i} `.padEnd(60, '-');
const DELETED = { from: 801, to: 1200 };
const deleted = (id: number) => id >= DELETED.from && id <= DELETED.to;

/** 2000 rows in ~30 leaves under one root; ids 801–1200 deleted (whole leaves go to the freelist, their bytes kept). */
function buildWithFreedLeaves(file: string): void {
  const db = new Database(file);
  db.pragma('secure_delete = OFF');
  migrate(db);
  const item = db.prepare('INSERT INTO items(id, name, n) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 2000; i++) item.run(i, name(i), i);
  })();
  db.prepare('DELETE FROM items WHERE id BETWEEN ? AND ?').run(DELETED.from, DELETED.to);
  db.close();
}

/** A freed page that still reads as a table leaf holding deleted rows (what a stale pointer would bring back). */
function freedLeafWithDeletedRows(file: string): number {
  const leaf = freePages(file).find((p) => {
    const page = readPageBytes(file, p, 0, 4096);
    return page[0] === 0x0d && page.readUInt16BE(3) > 0 && /item \d+ -/.test(page.toString('latin1'));
  });
  assert.ok(leaf, 'a freed page keeps its leaf header and cells');
  const text = readPageBytes(file, leaf, 0, 4096).toString('latin1');
  const ids = [...text.matchAll(/item (\d+) -/g)].map((m) => Number(m[1]));
  assert.ok(ids.length > 0 && ids.every(deleted), 'the freed leaf holds only deleted rows');
  return leaf;
}

/** Root page of `items` and the offset (in that page) of its first cell, whose first 4 bytes are a child pointer. */
function rootFirstCell(file: string): { rootPage: number; cellOffset: number; child: number } {
  const db = new Database(file, { readonly: true });
  const rootPage = db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'items'").pluck().get() as number;
  db.close();
  const head = readPageBytes(file, rootPage, 0, 14);
  assert.equal(head[0], 0x05, 'the root is an interior table page');
  const cellOffset = head.readUInt16BE(12);
  return { rootPage, cellOffset, child: readPageBytes(file, rootPage, cellOffset, 4).readUInt32BE(0) };
}

function salvage(file: string) {
  const staged = new Database(path.join(path.dirname(file), `staged-${n++}.db`));
  try {
    const report = salvageRowsInto(file, staged, { migrate, newest: STEPS.length });
    const ids = staged.prepare('SELECT id FROM items ORDER BY id').pluck().all() as number[];
    return { report, ids };
  } finally {
    staged.close();
  }
}

test('0310: a stale inner page pointing at a freed leaf — its deleted rows do not come back; rows on live pages do; the report counts the free page', () => {
  const file = path.join(dir(), 'store.db');
  buildWithFreedLeaves(file);
  const freed = freedLeafWithDeletedRows(file);
  const free = freePages(file);
  const { rootPage, cellOffset, child } = rootFirstCell(file);
  const lost = tablePages(file, 'items', 'leaf').find((p) => p.pageno === child)!;
  assert.ok(lost, 'the first child is a live leaf');
  // The lost write: the root's first child pointer names the freed page instead of the live leaf.
  writeUint32(file, rootPage, cellOffset, freed);

  const { report, ids } = salvage(file);
  assert.deepEqual(ids.filter(deleted), [], 'no deleted row comes back');
  assert.equal(ids.length, 1600 - lost.ncell, 'every row of every live page the tree still reaches');
  assert.equal(report.tables.items.kept, 1600 - lost.ncell);
  assert.equal(report.freePagesSkipped, 1);
  assert.equal(report.unreadablePages, 0);
  assert.equal(report.freelistDamaged, undefined);

  const reader = SqlitePageReader.open(file);
  assert.equal(reader.freelist.damaged, undefined);
  assert.deepEqual([...reader.freelist.pages].sort((a, b) => a - b), free, 'the reader’s freelist is the one SQLite keeps');
  reader.close();
});

test('0310: the freelist is read from the WAL’s page 1 — a page freed in a transaction not yet checkpointed is skipped too', () => {
  const d = dir();
  const live = path.join(d, 'live.db');
  const db = new Database(live);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.pragma('secure_delete = OFF');
  migrate(db);
  db.exec('CREATE TABLE gone (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER)');
  const item = db.prepare('INSERT INTO items(id, name, n) VALUES (?, ?, ?)');
  const gone = db.prepare('INSERT INTO gone(id, name, n) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 2000; i++) item.run(i, name(i), i);
    for (let i = 5001; i <= 5400; i++) gone.run(i, `secret ${i} `.padEnd(60, '-'), i);
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  const goneLeaves = (db.prepare("SELECT pageno FROM dbstat WHERE name = 'gone' AND pagetype = 'leaf'").pluck().all() as number[]);
  // Only the WAL knows these pages are free: the main file's page 1 says the freelist is empty.
  db.exec('DELETE FROM gone');
  const file = path.join(d, 'store.db');
  fs.copyFileSync(live, file);
  fs.copyFileSync(`${live}-wal`, `${file}-wal`);
  db.close();
  assert.equal(readPageBytes(file, 1, 36, 4).readUInt32BE(0), 0, 'the main file’s header: no free page');

  // items was not touched after the checkpoint: its root's image is the main file's.
  const { rootPage, cellOffset, child } = rootFirstCell(file);
  const lostRows = (() => {
    const r = SqlitePageReader.open(file);
    let rows = 0;
    r.walk(child, 'table', () => rows++);
    r.close();
    return rows;
  })();
  writeUint32(file, rootPage, cellOffset, goneLeaves[1]);
  const { report, ids } = salvage(file);
  assert.deepEqual(ids.filter((id) => id > 2000), [], 'no row of the dropped rows comes back');
  assert.equal(ids.length, 2000 - lostRows);
  assert.equal(report.freePagesSkipped, 1);

  const reader = SqlitePageReader.open(file);
  assert.ok(reader.freelist.pages.has(goneLeaves[1]), 'the WAL’s freelist names the page');
  assert.equal(reader.freelist.damaged, undefined);
  reader.close();
});

for (const damage of [
  { what: 'a trunk whose leaf count does not fit its page', apply: (file: string, trunk: number) => writeUint32(file, trunk, 4, 0xffffffff), says: /leaves; at most/ },
  { what: 'a trunk that names itself as the next (a loop)', apply: (file: string, trunk: number) => writeUint32(file, trunk, 0, trunk), says: /loop/ },
  { what: 'a trunk naming a page past the end', apply: (file: string, trunk: number) => writeUint32(file, trunk, 0, 1_000_000), says: /out of range/ },
  { what: 'a trunk overwritten with random bytes', apply: (file: string, trunk: number) => overwritePage(file, trunk), says: /./ },
  { what: 'a header naming a first trunk past the end', apply: (file: string) => writeUint32(file, 1, 32, 1_000_000), says: /out of range/ },
]) {
  test(`0310: a damaged freelist — ${damage.what} — does not throw; the salvage says so and reads every live row`, () => {
    const file = path.join(dir(), 'store.db');
    buildWithFreedLeaves(file);
    const trunk = readPageBytes(file, 1, 32, 4).readUInt32BE(0);
    assert.ok(trunk > 1, 'the deletion made a freelist');
    damage.apply(file, trunk);
    const { report, ids } = salvage(file);
    assert.deepEqual(ids.filter(deleted), []);
    assert.equal(ids.length, 1600, 'a damaged freelist hides no live page');
    assert.equal(report.freePagesSkipped, 0);
    assert.match(report.freelistDamaged ?? '', damage.says);
    const reader = SqlitePageReader.open(file);
    const fl = reader.freelist;
    reader.close();
    assert.match(fl.damaged ?? '', damage.says);
  });
}
