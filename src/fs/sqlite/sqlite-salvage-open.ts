import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { fsyncPathsSync } from '../atomic-file.js';
import { privateSqliteFile, setAsideSqlite } from '../private-file.js';

/** How a store opens its SQLite file and what it reads back of one that is damaged. */
export interface SalvagingOpenOptions<S> {
  /** The store's database file. */
  file: string;
  /** The time a set-aside file is named after. */
  now: () => number;
  /** Opens `file` with SQLite, checks it (`quick_check`) and migrates it; throws when it is damaged. */
  connect(): Database.Database;
  /** Whether an error of `connect` means the file is damaged (any other error is thrown on). */
  isCorrupt(e: unknown): boolean;
  /**
   * Reads what can be read of the damaged `file` (and its `-wal`) and writes it into `staged`, a
   * new empty database; returns what it did. Should not throw for damage; if it throws anyway, the
   * store starts empty (the old file is still set aside).
   */
  salvage(file: string, staged: Database.Database): S;
}

/** A damaged file set aside at open, and what was read back of it into the new store. */
export interface SalvagedAside<S> {
  /** Where the damaged file is now (`<file>.corrupt-<at>`, with its `-wal` and `-shm`). */
  file: string;
  at: number;
  /** Why it was found damaged. */
  error: Error;
  /** What `salvage` returned; undefined when it threw (then `salvageError` says why). */
  salvage?: S;
  salvageError?: Error;
}

/**
 * Opens a store's SQLite file (decisions 0280, 0310). A damaged one is read for what can still be
 * read into a new file beside it (`<file>.salvaged`: written, flushed to disk), then set aside
 * (`*.corrupt-<time>`, with its `-wal` and `-shm`), and the new file is renamed into its place.
 * A kill at any step leaves either the damaged file in place — a staged file beside it is then a
 * killed run's leftover, removed, and the salvage runs again — or no file but the complete staged
 * one, which the next open moves in. A main file of zero bytes whose `-wal` holds frames counts as
 * damaged: SQLite would start an empty database over that log and lose it.
 */
export function openSalvaging<S>(o: SalvagingOpenOptions<S>): { db: Database.Database; aside?: SalvagedAside<S> } {
  fs.mkdirSync(path.dirname(o.file), { recursive: true });
  finishStaged(o.file);
  let error: Error;
  try {
    if (!emptyOverLog(o.file)) return { db: o.connect() };
    error = Object.assign(new Error('the database file is empty but its write-ahead log is not'), { code: 'SQLITE_CORRUPT' });
  } catch (e) {
    if (!o.isCorrupt(e)) throw e;
    error = e as Error;
  }
  let salvage: S | undefined;
  let salvageError: Error | undefined;
  try {
    salvage = stage(o.file, (db) => o.salvage(o.file, db));
  } catch (e) {
    salvageError = e as Error;
    removeStaged(o.file);
  }
  const aside = setAsideSqlite(o.file, o.now());
  finishStaged(o.file);
  return { db: o.connect(), aside: { ...aside, error, ...(salvage !== undefined ? { salvage } : {}), ...(salvageError ? { salvageError } : {}) } };
}

/** The new file a salvage writes before the damaged one is set aside. */
function stagedPath(file: string): string {
  return `${file}.salvaged`;
}

function removeStaged(file: string): void {
  const tmp = stagedPath(file);
  for (const f of [tmp, `${tmp}-journal`, `${tmp}-wal`, `${tmp}-shm`]) fs.rmSync(f, { force: true });
}

/** Writes a new database at the staged path with `fill`, private from the start, closed and flushed to disk. */
function stage<S>(file: string, fill: (db: Database.Database) => S): S {
  removeStaged(file);
  const tmp = stagedPath(file);
  privateSqliteFile(tmp);
  const db = new Database(tmp);
  let out: S;
  try {
    out = fill(db);
  } finally {
    db.close();
  }
  fsyncPathsSync([tmp]);
  return out;
}

/** True when the main file is empty while its `-wal` holds at least one frame. */
function emptyOverLog(file: string): boolean {
  try {
    return fs.statSync(file).size === 0 && fs.statSync(`${file}-wal`).size > 32;
  } catch {
    return false;
  }
}

/**
 * Moves a staged salvage into place once the damaged file is gone (set aside — also by a run
 * killed right after that); while the damaged file is still there a staged file is unfinished
 * business of a killed run, and is removed (the salvage runs again).
 */
function finishStaged(file: string): void {
  const tmp = stagedPath(file);
  if (!fs.existsSync(tmp)) return;
  if (fs.existsSync(file)) {
    removeStaged(file);
    return;
  }
  // A kill between the set-aside's renames leaves the damaged file's -wal (and -shm) here: SQLite
  // would replay that foreign WAL onto the salvaged file. They go with the file they belong to.
  moveStrayWal(file);
  fs.renameSync(tmp, file);
  fsyncPathsSync([], [path.dirname(file)]);
}

/** Moves a `-wal` left at the live path next to the newest set-aside copy (its own); drops a `-shm` (an index SQLite rebuilds). */
function moveStrayWal(file: string): void {
  const wal = `${file}-wal`;
  fs.rmSync(`${file}-shm`, { force: true });
  if (!fs.existsSync(wal)) return;
  const dir = path.dirname(file);
  const base = `${path.basename(file)}.corrupt-`;
  const asides = fs
    .readdirSync(dir)
    .filter((f) => f.startsWith(base) && /^\d+(-\d+)?$/.test(f.slice(base.length)))
    .sort((a, b) => Number(b.slice(base.length).split('-')[0]) - Number(a.slice(base.length).split('-')[0]));
  const owner = asides.find((f) => !fs.existsSync(path.join(dir, `${f}-wal`)));
  fs.renameSync(wal, owner ? path.join(dir, `${owner}-wal`) : `${wal}.stray-${Date.now()}`);
}
