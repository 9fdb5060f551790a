/**
 * Decision 0280: a memory-control.db SQLite refuses is read for what can still be read — real
 * files written by ControlDB, damaged as disks and kills damage them (a page overwritten, the file
 * cut short, the header garbled, a WAL left behind), then salvaged.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ControlDB } from './control-db.js';
import { salvageControlFile, writeControlSalvage } from './control-salvage.js';
import { freePages, overwriteHeader, overwritePage, readPageBytes, tablePages, writeUint32 } from '../../fs/sqlite/__fixtures__/sqlite-damage.js';
import type { ControlStoreSalvage } from '../../spec/index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-salvage-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const KINDS = ['turn', 'content', 'document', 'fact'] as const;
const hash = (i: number) => createHash('sha256').update(`stone ${i}`).digest('hex');
const T0 = Date.UTC(2026, 0, 1);

/** A real memory-control.db: `stones` tombstones, 5 exclusions (one with a held payload past a page), 40 history entries (some past a page). */
function build(stones = 600): { home: string; file: string; db: ControlDB } {
  const home = path.join(root, `h${n++}`);
  fs.mkdirSync(home, { recursive: true });
  const db = new ControlDB({ home, clock: () => T0 });
  db.open();
  db.addTombstones(Array.from({ length: stones }, (_, i) => ({ hash: hash(i), kind: KINDS[i % 4], at: T0 + i })));
  for (let i = 0; i < 5; i++) {
    db.addExclusion(`webui:1#${i + 1}`, 'webui:1');
    db.setHeld(`webui:1#${i + 1}`, { v: 1, events: [{ id: `e${i}`, kind: 'user', input: i === 0 ? 'held text '.repeat(1500) : `held ${i}`, response: '' } as never], docs: [], archived: [], graph: [], triples: [] });
  }
  for (let i = 0; i < 40; i++) {
    db.insertChanges([{ at: T0 + i, actor: 'user', kind: 'document', target: `doc-${i}`, subjects: [`subject ${i}`], op: 'create', summary: `added doc ${i}`, after: { content: i % 10 === 0 ? 'long '.repeat(2000) : `short ${i}` } }]);
  }
  return { home, file: path.join(home, 'memory-control.db'), db };
}

/** Closes it (SQLite checkpoints the WAL into the file). */
function closed(stones?: number) {
  const b = build(stones);
  b.db.close();
  return b;
}

const pagesOf = (file: string, name: string) => tablePages(file, name);

/** The counts decision 0280 reports (0310 added rows read / kept / skipped by table). */
const counts0280 = (r: ControlStoreSalvage) => ({ tombstones: r.tombstones, tombstonesLostAtMost: r.tombstonesLostAtMost, exclusions: r.exclusions, changes: r.changes, unreadablePages: r.unreadablePages });

const real = (count: number) => new Set(Array.from({ length: count }, (_, i) => hash(i)));

/** Every salvaged tombstone is a real one with its kind and time; returns how many real ones are missing. */
function checkStones(s: ReturnType<typeof salvageControlFile>, count: number): number {
  const want = real(count);
  for (const t of s.tombstones) {
    assert.ok(want.has(t.hash), 'no tombstone is invented');
    const i = Array.from({ length: count }, (_, k) => k).find((k) => hash(k) === t.hash)!;
    assert.deepEqual([t.kind, t.at], [KINDS[i % 4], T0 + i]);
  }
  return count - new Set(s.tombstones.map((t) => t.hash)).size;
}

test('0280: a sound file is read whole by the page reader (the same rows SQLite has)', () => {
  const { file } = closed();
  const s = salvageControlFile(file);
  assert.equal(checkStones(s, 600), 0);
  assert.deepEqual(counts0280(s.report), { tombstones: 600, tombstonesLostAtMost: 0, exclusions: 5, changes: 40, unreadablePages: 0 });
  // Decision 0310: the same in rows read / kept / skipped, by table.
  assert.deepEqual(s.report.tables, { tombstones: { read: 600, kept: 600, skipped: 0 }, exclusions: { read: 5, kept: 5, skipped: 0 }, history: { read: 40, kept: 40, skipped: 0 }, history_subjects: { read: 40, kept: 40, skipped: 0 } });
  assert.deepEqual([s.report.read, s.report.kept, s.report.skipped], [685, 685, 0]);
  const db = new Database(file, { readonly: true });
  const rows = db.prepare('SELECT * FROM history ORDER BY id').all() as Record<string, unknown>[];
  assert.deepEqual(
    s.changes.sort((a, b) => a.id - b.id).map((c) => c.row.slice(1)),
    rows.map((r) => [r.at, r.actor, r.tool, r.turn_id, r.kind, r.target, r.op, r.summary, r.before, r.after, r.undone_at, r.undone_by, r.undo_of, r.redacted]),
    'history rows, the long ones through their overflow pages',
  );
  const held = db.prepare('SELECT held FROM exclusions WHERE turn_id = ?').pluck().get('webui:1#1') as string;
  assert.equal(s.exclusions.find((x) => x.turnId === 'webui:1#1')?.held, held);
  assert.equal(s.subjects.length, 40);
  db.close();
});

test('0280: a tombstone page overwritten with garbage loses only its rows, and says at most how many', () => {
  const { file } = closed();
  const leaves = pagesOf(file, 'tombstones').filter((p) => p.pagetype === 'leaf');
  assert.ok(leaves.length >= 5, `the tombstones span ${leaves.length} leaves`);
  const victim = leaves[Math.floor(leaves.length / 2)];
  overwritePage(file, victim.pageno);
  const sqlite = new Database(file, { readonly: true });
  assert.notEqual(sqlite.pragma('quick_check', { simple: true }), 'ok', 'SQLite finds the file corrupt');
  sqlite.close();
  const s = salvageControlFile(file);
  const missing = checkStones(s, 600);
  // The rows of that page are gone — but for stale copies of some of them in free space, which the
  // raw scan finds (tombstones are never deleted, so any copy is one that was recorded).
  assert.ok(missing > 0 && missing <= victim.ncell, `${missing} of the page's ${victim.ncell} rows are gone`);
  assert.ok(s.report.tombstonesLostAtMost !== null && s.report.tombstonesLostAtMost >= missing, `lost at most ${s.report.tombstonesLostAtMost} ≥ ${missing}`);
  assert.ok(s.report.tombstonesLostAtMost! < 100, 'the bound is one page, not the table');
  assert.deepEqual([s.report.exclusions, s.report.changes, s.report.unreadablePages], [5, 40, 1]);
});

test('0310: the tombstones’ root pointing into the freelist (a stale page) — the free page is skipped unread, the loss bound becomes unknown, the carving still finds every tombstone', () => {
  const { file } = closed();
  // Free pages with old rows in them: a table filled and dropped without secure_delete.
  const raw = new Database(file);
  raw.pragma('secure_delete = OFF');
  raw.exec("CREATE TABLE scratch (id INTEGER PRIMARY KEY, t TEXT); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300) INSERT INTO scratch SELECT i, printf('old row %d', i) || zeroblob(40) FROM c; DROP TABLE scratch;");
  raw.close();
  const free = freePages(file);
  assert.ok(free.length > 2, 'the drop freed pages');
  const rootPage = tablePages(file, 'tombstones').find((p) => p.pagetype === 'internal')!.pageno;
  const head = readPageBytes(file, rootPage, 0, 14);
  assert.equal(head[0], 0x02, 'the tombstones’ root is an interior index page');
  const cell = head.readUInt16BE(12);
  writeUint32(file, rootPage, cell, free[free.length - 1]);
  const s = salvageControlFile(file);
  assert.equal(checkStones(s, 600), 0, 'the leaf no longer pointed to is carved from the raw bytes');
  assert.equal(s.report.freePagesSkipped, 1);
  assert.equal(s.report.unreadablePages, 0, 'the free page was not read as a page of the tree');
  assert.equal(s.report.tombstonesLostAtMost, null, 'which leaves the stale page should name is unknown');
  assert.deepEqual([s.report.exclusions, s.report.changes], [5, 40]);
});

test('0280: a history page overwritten in the middle of the file leaves every tombstone', () => {
  const { file } = closed();
  const pages = pagesOf(file, 'history').filter((p) => p.pagetype === 'leaf');
  overwritePage(file, pages[Math.floor(pages.length / 2)].pageno);
  const s = salvageControlFile(file);
  assert.equal(checkStones(s, 600), 0);
  assert.equal(s.report.tombstonesLostAtMost, 0, 'nothing of the tombstones is lost');
  assert.ok(s.report.changes < 40 && s.report.changes > 0, `some history is lost: ${s.report.changes}`);
  assert.equal(s.report.unreadablePages, 1);
});

test('0280: a file cut short keeps what is before the cut; the bound covers what is after', () => {
  const { file } = closed();
  const size = fs.statSync(file).size;
  fs.truncateSync(file, Math.floor(size / 4096 / 2) * 4096);
  const s = salvageControlFile(file);
  const missing = checkStones(s, 600);
  assert.ok(s.report.tombstones > 0, 'what was before the cut is read');
  assert.ok(s.report.unreadablePages > 0);
  assert.ok(s.report.tombstonesLostAtMost === null || s.report.tombstonesLostAtMost >= missing, `bound ${s.report.tombstonesLostAtMost} ≥ ${missing}`);
  assert.notEqual(s.report.tombstonesLostAtMost, 0);
});

test('0280: a garbage header (the first 100 bytes) loses nothing: the pages are still read', () => {
  const { file } = closed();
  overwriteHeader(file);
  assert.throws(() => new Database(file, { readonly: true }).pragma('quick_check'), /not a database|malformed|corrupt/i);
  const s = salvageControlFile(file);
  assert.equal(checkStones(s, 600), 0);
  assert.deepEqual(counts0280(s.report), { tombstones: 600, tombstonesLostAtMost: 0, exclusions: 5, changes: 40, unreadablePages: 0 });
});

test('0280: a first page all garbage (the schema gone): the tables are where a new file lays them out; nothing is lost', () => {
  const { file } = closed();
  overwritePage(file, 1);
  const s = salvageControlFile(file);
  assert.equal(checkStones(s, 600), 0, 'every tombstone');
  assert.deepEqual(counts0280(s.report), { tombstones: 600, tombstonesLostAtMost: 0, exclusions: 5, changes: 40, unreadablePages: 0 });
});

test('0280: the root page of the tombstones overwritten: the raw scan finds the rows below it; how many were lost is unknown', () => {
  const { file } = closed();
  const interior = pagesOf(file, 'tombstones').filter((p) => p.pagetype === 'internal');
  assert.ok(interior.length >= 1);
  overwritePage(file, interior[0].pageno);
  const s = salvageControlFile(file);
  const missing = checkStones(s, 600);
  assert.ok(missing <= interior[0].ncell, `only the root's own keys are gone: ${missing}`);
  assert.equal(s.report.tombstonesLostAtMost, null, 'the tree below an unreadable root is unknown, so is the loss');
});

test('0280: a file of garbage gives nothing back, and says the loss is unknown', () => {
  const { file } = closed();
  fs.writeFileSync(file, 'garbage '.repeat(1000));
  const s = salvageControlFile(file);
  assert.deepEqual({ ...counts0280(s.report), unreadablePages: s.report.unreadablePages > 0 }, { tombstones: 0, tombstonesLostAtMost: null, exclusions: 0, changes: 0, unreadablePages: true });
});

test('0280: tombstones still in the WAL of a killed run are read back with the main file damaged', () => {
  const { file, db, home } = build(300);
  // More tombstones after the last checkpoint: they are only in the WAL.
  const raw = new Database(file);
  raw.pragma('wal_autocheckpoint = 0');
  raw.prepare('INSERT INTO tombstones(hash, kind, at) VALUES (?, ?, ?)').run(hash(300), 'turn', T0 + 300);
  // A kill: the files as they are on disk now (the connections never close cleanly).
  const copy = path.join(home, 'killed.db');
  fs.copyFileSync(file, copy);
  fs.copyFileSync(`${file}-wal`, `${copy}-wal`);
  raw.close();
  db.close();
  assert.ok(fs.statSync(`${copy}-wal`).size > 0);
  const pages = pagesOf(copy, 'history').filter((p) => p.pagetype === 'leaf');
  overwritePage(copy, pages[0].pageno);
  const s = salvageControlFile(copy);
  assert.equal(checkStones(s, 301), 0, 'the WAL-only tombstone too');
});

test('0280: ControlDB salvages at open — the new store holds what was read back, the old file is kept, the report says how much', () => {
  const { file, home } = closed();
  overwritePage(file, pagesOf(file, 'tombstones').filter((p) => p.pagetype === 'leaf')[2].pageno);
  const before = fs.readFileSync(file);
  const warnings: string[] = [];
  const db = new ControlDB({ home, clock: () => T0 + 5, log: { warn: (m) => warnings.push(m) } });
  db.open();
  const aside = db.setAside!;
  assert.equal(aside.file, `${file}.corrupt-${T0 + 5}`);
  assert.deepEqual(fs.readFileSync(aside.file), before, 'the damaged file is kept as it was');
  assert.equal(db.tombstoneCount(), aside.salvaged.tombstones);
  assert.ok(aside.salvaged.tombstones > 500 && aside.salvaged.tombstonesLostAtMost! > 0);
  assert.equal(db.excluded().length, 5);
  assert.equal(db.held('webui:1#1').events[0].input.length, 'held text '.repeat(1500).length, 'the held payload came back whole');
  assert.equal(db.history({ limit: 1000 }).length, 40);
  assert.deepEqual(db.history({ subject: 'subject 7' }).map((c) => c.target), ['doc-7'], 'history is found by its subjects');
  assert.equal(db.hotTombstone(hash(1)) ?? db.tombstone(hash(1)), db.tombstone(hash(1)));
  assert.match(warnings.join('\n'), /memory-control\.db is corrupt.*read back.*\d+ forget tombstones \(up to \d+ could not be read\), 5 excluded turns, 40 history entries; 1 damaged page could not be read/s);
  // New forgets land in the new store, next to the salvaged ones.
  db.addTombstones([{ hash: hash(9999), kind: 'turn' }]);
  db.close();
  const again = new ControlDB({ home, clock: () => T0 + 6 });
  again.open();
  assert.equal(again.setAside, undefined, 'the new store opens cleanly');
  assert.equal(again.tombstoneCount(), aside.salvaged.tombstones + 1);
  again.close();
});

test('0280: a kill during the salvage loses nothing — before the move the salvage runs again, after it the staged store is moved in', () => {
  const { file, home } = closed();
  overwritePage(file, pagesOf(file, 'history').filter((p) => p.pagetype === 'leaf')[0].pageno);
  // Killed before the corrupt file was moved: a stale staged file is thrown away, the salvage redone.
  fs.writeFileSync(`${file}.salvaged`, 'half-written');
  let db = new ControlDB({ home, clock: () => T0 });
  db.open();
  assert.ok(db.setAside, 'salvaged again');
  assert.equal(db.setAside.salvaged.tombstones, 600);
  assert.equal(db.tombstoneCount(), 600, 'from the damaged file, not from the stale staged one');
  assert.equal(fs.existsSync(`${file}.salvaged`), false);
  db.close();
  // Killed after the corrupt file was moved, before the staged one took its place: it is moved in.
  const { file: f2, home: h2 } = closed(50);
  const s = new ControlDB({ home: h2, clock: () => T0 });
  s.open();
  s.close();
  fs.renameSync(f2, `${f2}.salvaged`);
  db = new ControlDB({ home: h2, clock: () => T0 });
  db.open();
  assert.equal(db.tombstoneCount(), 50, 'the staged store was moved in, not replaced by an empty one');
  db.close();
});

test('0280: a kill between setting the corrupt file aside and its -wal: the stray WAL goes with its file, not onto the salvaged store', () => {
  const home = fs.mkdtempSync(path.join(root, 'wal-'));
  const db = new ControlDB({ home, clock: () => T0 });
  db.open();
  db.addTombstones(Array.from({ length: 300 }, (_, i) => ({ hash: hash(i), kind: 'turn', at: T0 + i })));
  for (let i = 0; i < 40; i++) db.insertChanges([{ at: T0 + i, actor: 'user', kind: 'document', target: `doc-${i}`, subjects: [`s${i}`], op: 'create', summary: `x ${i}`, after: { content: 'long '.repeat(500) } }]);
  const file = path.join(home, 'memory-control.db');
  // The old store's WAL holds more rows (never checkpointed: the process was killed).
  const raw = new Database(file);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.pragma('wal_autocheckpoint = 0');
  for (let i = 40; i < 80; i++) raw.prepare("INSERT INTO history(at, actor, kind, target, op, summary, redacted) VALUES (?, 'user', 'document', ?, 'create', ?, 0)").run(T0 + i, `d${i}`, 'y '.repeat(800));
  const copy = path.join(fs.mkdtempSync(path.join(root, 'wal-copy-')), 'memory-control.db');
  fs.copyFileSync(file, copy);
  fs.copyFileSync(`${file}-wal`, `${copy}-wal`);
  raw.close();
  db.close();
  const h = path.dirname(copy);
  overwritePage(copy, pagesOf(copy, 'tombstones').filter((p) => p.pagetype === 'leaf')[0].pageno);
  // A full salvage of the same damage (in another folder) is what the killed run had staged.
  const ref = path.join(fs.mkdtempSync(path.join(root, 'wal-ref-')), 'memory-control.db');
  fs.copyFileSync(copy, ref);
  fs.copyFileSync(`${copy}-wal`, `${ref}-wal`);
  const full = new ControlDB({ home: path.dirname(ref), clock: () => T0 });
  full.open();
  const expected = { tombstones: full.tombstoneCount(), history: full.history({ limit: 1000 }).length };
  full.close();
  fs.copyFileSync(ref, `${copy}.salvaged`);
  // The kill: the main file was set aside, its -wal not yet.
  fs.renameSync(copy, `${copy}.corrupt-${T0}`);
  const c = new ControlDB({ home: h, clock: () => T0 + 1 });
  c.open();
  assert.equal(c.setAside, undefined, 'the staged store opens cleanly: no second salvage');
  assert.deepEqual({ tombstones: c.tombstoneCount(), history: c.history({ limit: 1000 }).length }, expected);
  c.close();
  assert.ok(fs.existsSync(`${copy}.corrupt-${T0}-wal`), 'the WAL is beside the file it belongs to');
});

test('0410: a forget cut off before the damage is read back, so the next open finishes it', () => {
  const b = build(50);
  const body = JSON.stringify({ request: { turnIds: ['webui:1#9'] }, meta: {}, said: ['the alarm code is ORCA-5150'], other: [], factTexts: [], names: [] });
  b.db.addTombstones([{ hash: hash(9999), kind: 'turn' }], [], { key: 'k-cut-off', body });
  b.db.close();
  overwriteHeader(b.file);
  const s = salvageControlFile(b.file);
  assert.deepEqual(s.pending.map((p) => [p.key, p.body, p.tries]), [['k-cut-off', body, 0]]);
  assert.deepEqual(s.report.tables?.forget_pending, { read: 1, kept: 1, skipped: 0 });
  const fresh = path.join(root, `fresh-${n++}.db`);
  const db = new Database(fresh);
  writeControlSalvage(db, s);
  assert.deepEqual(db.prepare('SELECT key, body FROM forget_pending').all(), [{ key: 'k-cut-off', body }]);
  db.close();
});
