import Database from 'better-sqlite3';
import { z } from 'zod';
import type { StoreSalvage } from '../../spec/index.js';
import { SqlitePageReader, type BtreeWalk, type SqliteValue } from '../../fs/index.js';
import { CONTROL_MIGRATIONS, migrateControl } from './control-migrations.js';

const TOMBSTONE_KINDS = ['turn', 'content', 'document', 'fact'] as const;
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
const exclusionRow = z.tuple([z.string().min(1).max(400), z.string().min(1).max(400), int, z.string()]);
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
  report: StoreSalvage;
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

/** Root pages of the four tables as this build's migrations lay a new file out (when the schema page is unreadable). */
let freshRoots: Map<string, number> | undefined;
function layoutRoots(): Map<string, number> {
  if (!freshRoots) {
    const db = new Database(':memory:');
    try {
      migrateControl(db);
      freshRoots = new Map((db.prepare('SELECT name, rootpage FROM sqlite_schema').all() as { name: string; rootpage: number }[]).map((r) => [r.name, r.rootpage]));
    } finally {
      db.close();
    }
  }
  return freshRoots;
}

/**
 * Reads what can still be read of a corrupt `memory-control.db` (set aside, with its `-wal`): the
 * four tables by walking their b-trees page by page (rows that decode and validate are kept; rows
 * of unreadable pages are lost), and — tombstones being append-only hashes, so any copy found is
 * one that was recorded — every tombstone-shaped record in the raw bytes of the file and its WAL,
 * free pages and damaged pages included. Never throws: a file that cannot be read at all gives
 * nothing, with the loss unknown.
 */
export function salvageControlFile(file: string): ControlSalvage {
  const out: ControlSalvage = { tombstones: [], exclusions: [], changes: [], subjects: [], report: { tombstones: 0, tombstonesLostAtMost: null, exclusions: 0, changes: 0, unreadablePages: 0 } };
  let r: SqlitePageReader;
  try {
    r = SqlitePageReader.open(file);
  } catch {
    return out;
  }
  const stones = new Map<string, SalvagedTombstone>();
  try {
    const roots = schemaRoots(r);
    let unreadable = 0;
    const walk = (name: string, kind: 'table' | 'index', visit: (v: SqliteValue[], rowid: number | undefined) => boolean): (BtreeWalk & { invalid: number }) | undefined => {
      const root = roots.get(name);
      if (root === undefined) return undefined;
      let invalid = 0;
      const w = r.walk(root, kind, (v, rowid) => {
        if (!visit(v, rowid)) invalid++;
      });
      unreadable += w.unreadable;
      return { ...w, invalid };
    };

    const tw = walk('tombstones', 'index', (v) => {
      const p = tombstoneRow.safeParse(v);
      if (p.success) stones.set(p.data[0], { hash: p.data[0], kind: p.data[1], at: p.data[2] });
      return p.success;
    });
    walk('exclusions', 'table', (v) => {
      const p = exclusionRow.safeParse(v);
      if (p.success) out.exclusions.push({ turnId: p.data[0], sessionId: p.data[1], at: p.data[2], held: p.data[3] });
      return p.success;
    });
    walk('history', 'table', (v, rowid) => {
      const p = historyRow.safeParse(v);
      const ok = p.success && rowid !== undefined && rowid > 0;
      if (ok) out.changes.push({ id: rowid, row: p.data });
      return ok;
    });
    const ids = new Set(out.changes.map((c) => c.id));
    walk('history_subjects', 'index', (v) => {
      const p = subjectRow.safeParse(v);
      if (p.success && ids.has(p.data[1])) out.subjects.push({ subject: p.data[0], changeId: p.data[1] });
      return p.success;
    });

    // Tombstones wherever their bytes are: pages the walk could not reach or read, the WAL.
    r.scanRaw((chunk) => {
      const s = chunk.toString('latin1');
      for (const m of s.matchAll(TOMBSTONE_BYTES)) {
        const t = carveTombstone(chunk, m.index + 5 + 64, m[1].charCodeAt(0), m[2].charCodeAt(0), m[3]);
        if (t && !stones.has(t.hash)) stones.set(t.hash, t);
      }
    });

    out.tombstones = [...stones.values()];
    // What may be lost: nothing when every page of the tree was read and every row was valid;
    // else at most what the unreadable leaves could hold plus the rows that did not decode;
    // unknown when the tree's root or an interior page could not be read (its subtree is unknown).
    let lost: number | null = null;
    if (tw && tw.unreadable === tw.unreadableLeaves) lost = tw.unreadableLeaves * r.maxRowsPerLeaf(MIN_TOMBSTONE_RECORD) + tw.badCells + tw.invalid;
    if (tw && tw.pages === 0) lost = null;
    out.report = { tombstones: out.tombstones.length, tombstonesLostAtMost: lost, exclusions: out.exclusions.length, changes: out.changes.length, unreadablePages: unreadable };
    return out;
  } catch {
    // A reader bug on a file stranger than the tests': keep what was read; the loss is unknown.
    out.tombstones = [...stones.values()];
    out.report = { tombstones: out.tombstones.length, tombstonesLostAtMost: null, exclusions: out.exclusions.length, changes: out.changes.length, unreadablePages: out.report.unreadablePages };
    return out;
  } finally {
    r.close();
  }
}

/**
 * Root pages by table name from the schema (page 1); where the schema cannot be read (a garbage
 * first page), the roots a new file has — the layout of the first migration does not move (no
 * auto-vacuum), and a wrong guess only finds rows that fail validation.
 */
function schemaRoots(r: SqlitePageReader): Map<string, number> {
  const roots = new Map<string, number>();
  r.walk(1, 'table', (v) => {
    if ((v[0] === 'table' || v[0] === 'index') && typeof v[1] === 'string' && typeof v[3] === 'number' && v[3] > 0) roots.set(v[1], v[3]);
  });
  if (!roots.has('tombstones') && CONTROL_MIGRATIONS.length >= 1) for (const [k, v] of layoutRoots()) if (!roots.has(k)) roots.set(k, v);
  return roots;
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
