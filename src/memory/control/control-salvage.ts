import type Database from 'better-sqlite3';
import { z } from 'zod';
import type { SalvageRows, ControlStoreSalvage } from '../../spec/index.js';
import { layoutRoots, SalvageSource, type SqliteValue } from '../../fs/sqlite/index.js';
import { migrateControl } from './control-migrations.js';

// The kinds forget records (`pair`: a message with its reply, decision 0320); a 4-letter kind has the header byte of `turn`.
const TOMBSTONE_KINDS = ['turn', 'content', 'pair', 'document', 'fact'] as const;
const int = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const json = z.string().refine((s) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
});

const tombstoneRow = z.tuple([z.string().regex(/^[0-9a-f]{64}$/), z.enum(TOMBSTONE_KINDS), int]);
const pendingRow = z.tuple([z.string().min(1).max(200), z.string(), int, int]);
/** `forget_owed` (WITHOUT ROWID: the key's columns first — participant, key — then body, starts, tries, at). */
const owedRow = z.tuple([z.string().min(1).max(200), z.string().min(1).max(200), z.string(), int, int, int]);
const exclusionBase = [z.string().min(1).max(400), z.string().min(1).max(400), int, z.string()] as const;
/** `exclusions`: a row written since migration 7 (decision 0700) carries `swept_at` too — read, not kept: a salvaged exclusion is swept again. */
const exclusionRow = z.union([z.tuple([...exclusionBase]), z.tuple([...exclusionBase, int.nullable()])]);
const historyRow = z.tuple([
  z.null(), // id: the rowid (INTEGER PRIMARY KEY is stored as NULL in the record)
  int,
  z.string().min(1).max(50),
  z.string().max(200).nullable(),
  z.string().max(400).nullable(),
  z.string().min(1).max(50),
  z.string(),
  z.string().max(50),
  z.string(),
  json.nullable(),
  json.nullable(),
  int.nullable(),
  int.nullable(),
  int.nullable(),
  z.union([z.literal(0), z.literal(1)]),
]);
const subjectRow = z.tuple([z.string().min(1).max(200), int]);

/** A tombstone as `memory-control.db` keeps it: a hash, never text (K-2). */
export interface SalvagedTombstone {
  hash: string;
  kind: string;
  at: number;
}

/** A history row, columns as in the table. */
export interface SalvagedChange {
  id: number;
  row: Exclude<SqliteValue, Uint8Array>[];
}

/** What could be read back of a `memory-control.db` SQLite refused (decision 0280). */
export interface ControlSalvage {
  tombstones: SalvagedTombstone[];
  exclusions: { turnId: string; sessionId: string; at: number; held: string }[];
  changes: SalvagedChange[];
  subjects: { changeId: number; subject: string }[];
  /** Forgets cut off before the damage (decision 0410): finished at this open like any other. */
  pending: { key: string; body: string; tries: number; at: number }[];
  /** What finished forgets owed a plugin's participant (decision 0420): taken when it registers. */
  owed: { participant: string; key: string; body: string; starts: number; tries: number; at: number }[];
  report: ControlStoreSalvage;
}

/** The smallest tombstone record: header 5 bytes, the 64-byte hash, a 4-letter kind, `at` 0 or 1. */
const MIN_TOMBSTONE_RECORD = 5 + 64 + 4;

/**
 * A tombstone record anywhere in the bytes: its header — 5 bytes: the hash is text of 64 (serial
 * type 141, varint 0x81 0x0d), the kind text of 4, 7 or 8 (21, 27, 29), `at` an integer (1–6) or
 * the constants 0 and 1 (8, 9) — then the hash itself.
 */
// eslint-disable-next-line no-control-regex -- a record header is bytes, matched in a latin1 string
const TOMBSTONE_BYTES = /\x05\x81\x0d([\x15\x1b\x1d])([\x01-\x06\x08\x09])([0-9a-f]{64})/g;

/**
 * Reads what can still be read of a corrupt `memory-control.db` (set aside, with its `-wal`): the
 * four tables by walking their b-trees page by page (rows that decode and validate are kept; rows
 * of unreadable pages are lost), and — tombstones being append-only hashes, so any copy found is
 * one that was recorded — every tombstone-shaped record in the raw bytes of the file and its WAL,
 * free pages and damaged pages included. Never throws: a file that cannot be read at all gives
 * nothing, with the loss unknown.
 */
export function salvageControlFile(file: string): ControlSalvage {
  const out: ControlSalvage = { tombstones: [], exclusions: [], changes: [], subjects: [], pending: [], owed: [], report: emptyControlReport() };
  const src = SalvageSource.open(file, () => layoutRoots(migrateControl));
  if (!src) return out;
  const r = src.reader;
  const stones = new Map<string, SalvagedTombstone>();
  const tables: Record<string, SalvageRows> = {};
  /** Counts a walk: rows found (decoded or not) and the ones taken. */
  const count = (name: string, w: { rows: number; badCells: number } | undefined, kept: number, extraRead = 0) => {
    if (w) tables[name] = { read: w.rows + w.badCells + extraRead, kept, skipped: w.rows + w.badCells + extraRead - kept };
  };
  try {
    const tw = src.walk('tombstones', 'index', (v) => {
      const p = tombstoneRow.safeParse(v);
      if (p.success) stones.set(p.data[0], { hash: p.data[0], kind: p.data[1], at: p.data[2] });
      return p.success;
    });
    const walked = stones.size;
    count('exclusions', src.walk('exclusions', 'table', (v) => {
      const p = exclusionRow.safeParse(v);
      if (p.success) out.exclusions.push({ turnId: p.data[0], sessionId: p.data[1], at: p.data[2], held: p.data[3] });
      return p.success;
    }), out.exclusions.length);
    count('history', src.walk('history', 'table', (v, rowid) => {
      const p = historyRow.safeParse(v);
      const ok = p.success && rowid !== undefined && rowid > 0;
      if (ok) out.changes.push({ id: rowid, row: p.data });
      return ok;
    }), out.changes.length);
    const ids = new Set(out.changes.map((c) => c.id));
    count('history_subjects', src.walk('history_subjects', 'index', (v) => {
      const p = subjectRow.safeParse(v);
      const ok = p.success && ids.has(p.data[1]);
      if (ok) out.subjects.push({ subject: p.data[0], changeId: p.data[1] });
      return ok;
    }), out.subjects.length);

    const pw = src.walk('forget_pending', 'index', (v) => {
      const p = pendingRow.safeParse(v);
      if (p.success) out.pending.push({ key: p.data[0], body: p.data[1], tries: p.data[2], at: p.data[3] });
      return p.success;
    });
    // Named in the report only when it held something: it is empty but for a forget cut off.
    if (pw && pw.rows + pw.badCells > 0) count('forget_pending', pw, out.pending.length);
    const ow = src.walk('forget_owed', 'index', (v) => {
      const p = owedRow.safeParse(v);
      if (p.success) out.owed.push({ participant: p.data[0], key: p.data[1], body: p.data[2], starts: p.data[3], tries: p.data[4], at: p.data[5] });
      return p.success;
    });
    if (ow && ow.rows + ow.badCells > 0) count('forget_owed', ow, out.owed.length);

    // Tombstones wherever their bytes are: pages the walk could not reach or read, the WAL.
    r.scanRaw((chunk) => {
      const s = chunk.toString('latin1');
      for (const m of s.matchAll(TOMBSTONE_BYTES)) {
        const t = carveTombstone(chunk, m.index + 5 + 64, m[1].charCodeAt(0), m[2].charCodeAt(0), m[3]);
        if (t && !stones.has(t.hash)) stones.set(t.hash, t);
      }
    });

    out.tombstones = [...stones.values()];
    count('tombstones', tw ?? { rows: 0, badCells: 0 }, out.tombstones.length, out.tombstones.length - walked);
    // What may be lost: nothing when every page of the tree was read and every row was valid;
    // else at most what the unreadable leaves could hold plus the rows that did not decode;
    // unknown when the tree's root or an interior page could not be read (its subtree is unknown).
    let lost: number | null = null;
    if (tw && tw.unreadable === tw.unreadableLeaves) lost = tw.unreadableLeaves * r.maxRowsPerLeaf(MIN_TOMBSTONE_RECORD) + tw.badCells + tw.invalid;
    if (tw && tw.pages === 0) lost = null;
    // A pointer into the freelist: that inner page is stale, so which leaves it should name is unknown.
    if (tw && tw.freePages > 0) lost = null;
    out.report = report(out, tables, lost, src);
    return out;
  } catch {
    // A reader bug on a file stranger than the tests': keep what was read; the loss is unknown.
    out.tombstones = [...stones.values()];
    out.report = report(out, tables, null, src);
    return out;
  } finally {
    src.close();
  }
}

/** Nothing read back, the loss unknown: the report of a file that could not be read at all. */
export function emptyControlReport(): ControlStoreSalvage {
  return { read: 0, kept: 0, skipped: 0, unreadablePages: 0, tables: {}, tombstones: 0, tombstonesLostAtMost: null, exclusions: 0, changes: 0 };
}

function report(s: ControlSalvage, tables: Record<string, SalvageRows>, lost: number | null, src: SalvageSource): ControlStoreSalvage {
  const all = Object.values(tables);
  const sum = (k: keyof SalvageRows) => all.reduce((n, t) => n + t[k], 0);
  const free = { freePagesSkipped: src.freePagesSkipped, ...(src.freelistDamaged ? { freelistDamaged: src.freelistDamaged } : {}) };
  return { read: sum('read'), kept: sum('kept'), skipped: sum('skipped'), unreadablePages: src.unreadablePages, ...free, tables, tombstones: s.tombstones.length, tombstonesLostAtMost: lost, exclusions: s.exclusions.length, changes: s.changes.length };
}

/**
 * Writes what was read back into `db` (a new store, migrated), in one transaction: the staged
 * file of a salvage at open (decision 0280).
 */
export function writeControlSalvage(db: Database.Database, s: ControlSalvage): void {
  migrateControl(db);
  const stone = db.prepare('INSERT OR IGNORE INTO tombstones(hash, kind, at) VALUES (?, ?, ?)');
  const excl = db.prepare('INSERT OR IGNORE INTO exclusions(turn_id, session_id, at, held) VALUES (?, ?, ?, ?)');
  const change = db.prepare('INSERT OR IGNORE INTO history(id, at, actor, tool, turn_id, kind, target, op, summary, before, after, undone_at, undone_by, undo_of, redacted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const subject = db.prepare('INSERT OR IGNORE INTO history_subjects(change_id, subject) VALUES (?, ?)');
  const pending = db.prepare('INSERT OR IGNORE INTO forget_pending(key, body, tries, at) VALUES (?, ?, ?, ?)');
  const owed = db.prepare('INSERT OR IGNORE INTO forget_owed(participant, key, body, starts, tries, at) VALUES (?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (const p of s.pending) pending.run(p.key, p.body, p.tries, p.at);
    for (const o of s.owed) owed.run(o.participant, o.key, o.body, o.starts, o.tries, o.at);
    for (const t of s.tombstones) stone.run(t.hash, t.kind, t.at);
    for (const x of s.exclusions) excl.run(x.turnId, x.sessionId, x.at, x.held);
    for (const c of s.changes) change.run(c.id, ...c.row.slice(1));
    for (const x of s.subjects) subject.run(x.changeId, x.subject);
  })();
}

/** The rest of a tombstone record after its hash: the kind's text and `at`; undefined when they do not fit. */
function carveTombstone(buf: Buffer, at: number, kindType: number, atType: number, hash: string): SalvagedTombstone | undefined {
  const kindLen = (kindType - 13) / 2;
  if (at + kindLen > buf.length) return undefined;
  const kind = buf.toString('latin1', at, at + kindLen);
  let when: number;
  const p = at + kindLen;
  if (atType === 8 || atType === 9) when = atType - 8;
  else {
    const n = [0, 1, 2, 3, 4, 6, 8][atType];
    if (p + n > buf.length) return undefined;
    when = n === 8 ? Number(buf.readBigInt64BE(p)) : buf.readIntBE(p, n);
  }
  const v = tombstoneRow.safeParse([hash, kind, when]);
  return v.success ? { hash, kind: v.data[1], at: v.data[2] } : undefined;
}
