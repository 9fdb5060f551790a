import type Database from 'better-sqlite3';
import type { SqliteValue } from './sqlite-page-reader.js';
import { layoutRoots, SalvageSource } from './sqlite-salvage-source.js';

/** How the rows of one table fared in a salvage (the shape of the status's `StoreSalvage` counts). */
export interface SalvageRowCounts {
  /** Rows found on the readable pages of the old file (cells that did not decode count too). */
  read: number;
  /** Of those, rows in the new store. */
  kept: number;
  /** Of those, rows left out: undecodable, not fitting the table's columns or the store's checks, or refused by a constraint. */
  skipped: number;
}

/** A salvage's counts over every table, the pages that could not be read, and the free pages skipped. */
export interface RowSalvageReport extends SalvageRowCounts {
  unreadablePages: number;
  /** Pages on the freelist a (stale) interior page pointed to: not read (decision 0310). */
  freePagesSkipped: number;
  /** Set when the freelist could not be read whole: why (then a stale pointer into its unread part is followed). */
  freelistDamaged?: string;
  tables: Record<string, SalvageRowCounts>;
}

/** A row of a salvaged table by column name (`undefined`: the old record ended before the column — added later by ALTER TABLE). */
export type SalvagedRow = Record<string, SqliteValue | undefined>;

/** What a store adds to the generic copy. */
export interface RowCopyHooks {
  /** The store's own checks on a row that fits its columns (JSON text, id formats …): false leaves it out. */
  check?(table: string, row: SalvagedRow): boolean;
  /** Called before a row that passed is inserted (a store can create what it needs first, e.g. a parent row). */
  beforeInsert?(table: string, row: SalvagedRow, staged: Database.Database): void;
  /**
   * A table of the old file the new one lacks: a store that creates tables on demand (config's
   * `config_<plugin>`) creates it in `staged` and returns true; false leaves it out.
   */
  adopt?(table: string, staged: Database.Database): boolean;
  /** Told of each row that decoded but was left out (its values as read), e.g. to name it in a log. */
  skipped?(table: string, values: SqliteValue[]): void;
}

interface Column {
  name: string;
  declared: string;
  affinity: 'INTEGER' | 'TEXT' | 'BLOB' | 'REAL' | 'NUMERIC';
  notNull: boolean;
  pk: number;
}

/** SQLite's column affinity of a declared type (https://www.sqlite.org/datatype3.html §3.1). */
function affinity(declared: string): Column['affinity'] {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'INTEGER';
  if (/CHAR|CLOB|TEXT/.test(t)) return 'TEXT';
  if (t === '' || t.includes('BLOB')) return 'BLOB';
  if (/REAL|FLOA|DOUB/.test(t)) return 'REAL';
  return 'NUMERIC';
}

/** Whether a value read from the old file is one the column holds as our code writes it. */
function fits(c: Column, v: SqliteValue): boolean {
  if (v === null) return !c.notNull;
  switch (c.affinity) {
    case 'INTEGER':
      return typeof v === 'number' && Number.isSafeInteger(v);
    case 'REAL':
    case 'NUMERIC':
      return typeof v === 'number' && Number.isFinite(v);
    case 'TEXT':
      return typeof v === 'string';
    default:
      return true;
  }
}

/**
 * Copies every row the page reader can read of `src`'s tables into `staged` (a new database of the
 * same store, migrated to the old file's schema version), table by table in the order the
 * migrations created them (parents before the rows that refer to them), in the caller's
 * transaction. The new file's schema drives it: a row is taken when it has no more values than the
 * table has columns, each value fits its column's declared type and NOT NULL, and the store's
 * `check` passes; it is inserted as is (`INSERT OR REPLACE`: a row the migrations seeded gives way
 * to the one read back), and a constraint that refuses it (a foreign key whose parent was on an
 * unreadable page) leaves it out. Virtual tables and their shadow tables are not copied: their
 * triggers fill them from the rows inserted. Never throws for damage.
 */
export function copyReadableRows(src: SalvageSource, staged: Database.Database, hooks: RowCopyHooks = {}): RowSalvageReport {
  const list = staged.prepare("SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main'").all() as { name: string; type: string; wr: number }[];
  const kinds = new Map(list.map((t) => [t.name, t]));
  // Creation order: a table is created after the tables it refers to.
  const order = (staged.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rowid").pluck().all() as string[]).filter((n) => kinds.get(n)?.type === 'table' && !n.startsWith('sqlite_'));
  for (const name of src.roots.keys()) {
    if (order.includes(name) || name.startsWith('sqlite_') || kinds.has(name)) continue;
    if (hooks.adopt?.(name, staged)) order.push(name);
  }
  const report: RowSalvageReport = { read: 0, kept: 0, skipped: 0, unreadablePages: 0, freePagesSkipped: 0, tables: {} };
  for (const table of order) {
    const counts = copyTable(src, staged, table, hooks);
    if (!counts) continue;
    report.tables[table] = counts;
    report.read += counts.read;
    report.kept += counts.kept;
    report.skipped += counts.skipped;
  }
  report.unreadablePages = src.unreadablePages;
  report.freePagesSkipped = src.freePagesSkipped;
  if (src.freelistDamaged) report.freelistDamaged = src.freelistDamaged;
  return report;
}

/** One table: walk, check, insert. Undefined when the old file has no such table. */
function copyTable(src: SalvageSource, staged: Database.Database, table: string, hooks: RowCopyHooks): SalvageRowCounts | undefined {
  const withoutRowid = (staged.prepare("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?").pluck().get(table) as number) === 1;
  const cols = (staged.prepare('SELECT name, type, "notnull" AS nn, pk FROM pragma_table_info(?) ORDER BY cid').all(table) as { name: string; type: string; nn: number; pk: number }[]).map(
    (c): Column => ({ name: c.name, declared: c.type, affinity: affinity(c.type), notNull: c.nn === 1, pk: c.pk }),
  );
  const pks = cols.filter((c) => c.pk > 0);
  // A rowid table's INTEGER PRIMARY KEY is the rowid: its record holds NULL in its place.
  const rowidAlias = !withoutRowid && pks.length === 1 && /^INTEGER$/i.test(pks[0].declared) ? pks[0].name : undefined;
  // A WITHOUT ROWID table's record: its primary key's columns first (in key order), then the others.
  const recordCols = withoutRowid ? [...pks.sort((a, b) => a.pk - b.pk), ...cols.filter((c) => c.pk === 0)] : cols;
  const statements = new Map<string, Database.Statement>();
  const insert = (names: string[]) => {
    const k = names.join('\u0000');
    let st = statements.get(k);
    if (!st) statements.set(k, (st = staged.prepare(`INSERT OR REPLACE INTO "${table}" (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`)));
    return st;
  };
  let kept = 0;
  /** Checks one record against the columns and the store, and inserts it; false: left out. */
  const take = (values: SqliteValue[], rowid: number | undefined): boolean => {
    if (values.length > recordCols.length) return false;
    const row: SalvagedRow = {};
    for (let i = 0; i < recordCols.length; i++) {
      const c = recordCols[i];
      let v: SqliteValue | undefined = values[i];
      if (c.name === rowidAlias) v = rowid;
      if (v === undefined) {
        // The record ended before this column (added by a later ALTER TABLE): its default applies.
        if (c.pk > 0) return false;
        row[c.name] = undefined;
        continue;
      }
      if (!fits(c, v)) return false;
      row[c.name] = v;
    }
    if (hooks.check && !hooks.check(table, row)) return false;
    try {
      hooks.beforeInsert?.(table, row, staged);
      const names = Object.keys(row).filter((n) => row[n] !== undefined);
      const r = insert(names).run(...names.map((n) => bindable(row[n] as SqliteValue)));
      if (r.changes > 0) kept++;
      return r.changes > 0;
    } catch {
      // A constraint refused it (its parent row was lost): left out, counted.
      return false;
    }
  };
  const walk = src.walk(table, withoutRowid ? 'index' : 'table', (values, rowid) => {
    const ok = take(values, rowid);
    if (!ok) hooks.skipped?.(table, values);
    return ok;
  });
  if (!walk) return undefined;
  const read = walk.rows + walk.badCells;
  return { read, kept, skipped: read - kept };
}

/** better-sqlite3 binds Buffers, not bare Uint8Arrays. */
function bindable(v: SqliteValue): SqliteValue | Buffer {
  return v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;
}

/** A store's migrations: bring `db` to `upTo` (default: the newest version this build knows). */
export type SalvageMigrate = (db: Database.Database, upTo?: number) => unknown;

/** Options of {@link salvageRowsInto}. */
export interface RowSalvageOptions extends RowCopyHooks {
  migrate: SalvageMigrate;
  /** The newest schema version `migrate` knows. */
  newest: number;
  /** After the rows are in, before the newest migrations: what the store derives from them and must hold (e.g. sources from refs). */
  finish?(staged: Database.Database): void;
}

/**
 * Reads what can be read of the damaged SQLite `file` into `staged`, a new empty database of the
 * same store (decision 0310), in one transaction: `staged` is migrated to the old file's schema
 * version (its header's `user_version`; the newest when unreadable), every readable row is copied
 * ({@link copyReadableRows}), `finish` runs, and the remaining migrations bring it to the newest
 * version — so an old file's rows get what the migrations since did to every row. Foreign keys are
 * enforced while copying. Never throws for damage: a file that cannot be read gives nothing.
 */
export function salvageRowsInto(file: string, staged: Database.Database, opts: RowSalvageOptions): RowSalvageReport {
  const src = SalvageSource.open(file, () => layoutRoots(opts.migrate));
  staged.pragma('foreign_keys = ON');
  try {
    let report: RowSalvageReport = { read: 0, kept: 0, skipped: 0, unreadablePages: src ? src.unreadablePages : 0, freePagesSkipped: 0, tables: {} };
    staged.transaction(() => {
      const from = src?.userVersion;
      opts.migrate(staged, from !== undefined && from > 0 && from < opts.newest ? from : opts.newest);
      if (src) report = copyReadableRows(src, staged, opts);
      opts.finish?.(staged);
      opts.migrate(staged);
    })();
    return report;
  } finally {
    src?.close();
  }
}
