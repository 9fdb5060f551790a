import Database from 'better-sqlite3';
import { SqlitePageReader, type BtreeWalk, type SqliteValue } from './sqlite-page-reader.js';

/** One walk of a table of a damaged file: what the page reader met, and the rows the caller refused. */
export interface TableWalk extends BtreeWalk {
  /** Rows that decoded but the caller's check refused. */
  invalid: number;
}

/** Root pages of the tables a store's migrations lay out in a new file, by migrate function. */
const layouts = new WeakMap<object, Map<string, number>>();

/**
 * The root page of every table and index a new file gets from `migrate` (an in-memory database
 * migrated from scratch). Without auto-vacuum roots never move, so these are where an old file
 * of the same build keeps them — the guess when its schema page is unreadable.
 */
export function layoutRoots(migrate: (db: Database.Database) => unknown): Map<string, number> {
  let roots = layouts.get(migrate);
  if (!roots) {
    const db = new Database(':memory:');
    try {
      migrate(db);
      roots = new Map((db.prepare('SELECT name, rootpage FROM sqlite_schema WHERE rootpage > 0').all() as { name: string; rootpage: number }[]).map((r) => [r.name, r.rootpage]));
    } finally {
      db.close();
    }
    layouts.set(migrate, roots);
  }
  return roots;
}

/**
 * A damaged SQLite file opened for salvage (decisions 0280, 0310): the page reader, the root page
 * of each table — from the file's schema (page 1); where that could not be read, from the layout a
 * new file of this build gets (a wrong guess only yields rows that fail their checks) — and a
 * count of the pages that could not be read over every walk. Close it when done.
 */
export class SalvageSource {
  /** Pages of the walked tables that could not be read (their rows are lost). */
  unreadablePages = 0;
  /**
   * Pages the walked tables pointed to that are on the freelist: skipped, never read (a stale
   * interior page names pages freed since; their rows were deleted).
   */
  freePagesSkipped = 0;

  private constructor(
    readonly reader: SqlitePageReader,
    /** Root page by table or index name. */
    readonly roots: ReadonlyMap<string, number>,
  ) {}

  /**
   * Opens `file` (with its `-wal`) read-only. `layout` gives the roots a new file would have.
   * Undefined when the file cannot be opened at all (gone, unreadable).
   */
  static open(file: string, layout: () => ReadonlyMap<string, number>): SalvageSource | undefined {
    let reader: SqlitePageReader;
    try {
      reader = SqlitePageReader.open(file);
    } catch {
      return undefined;
    }
    const roots = new Map<string, number>();
    let schema: BtreeWalk;
    try {
      schema = reader.walk(1, 'table', (v) => {
        if ((v[0] === 'table' || v[0] === 'index') && typeof v[1] === 'string' && typeof v[3] === 'number' && v[3] > 0) roots.set(v[1], v[3]);
      });
    } catch {
      schema = { pages: 0, unreadable: 1, unreadableLeaves: 0, badCells: 0, rows: 0, freePages: 0 };
    }
    // A schema not (wholly) read: the tables it did not name are where a new file has them.
    if (schema.unreadable > 0 || schema.freePages > 0 || schema.badCells > 0 || roots.size === 0) {
      try {
        for (const [name, root] of layout()) if (!roots.has(name)) roots.set(name, root);
      } catch {
        // no layout to guess from: only what the schema named is read
      }
    }
    // The schema's own pages are not counted as unreadable (no row of the store is on them), nor as free.
    return new SalvageSource(reader, roots);
  }

  /**
   * Why the freelist could not be read whole (undefined: it was): pages on its unread part are
   * not known to be free, so a stale pointer into them is followed.
   */
  get freelistDamaged(): string | undefined {
    return this.reader.freelist.damaged;
  }

  /** The schema version the file's header gives (`PRAGMA user_version`), if it is readable. */
  get userVersion(): number | undefined {
    return this.reader.userVersion;
  }

  /**
   * Walks the table `name` (`table`: a rowid table; `index`: an index or a WITHOUT ROWID table):
   * `visit` gets each row that decodes and says whether it was taken. Undefined when the file has
   * no such table (its schema did not name it and a new file would not have it). Never throws.
   */
  walk(name: string, kind: 'table' | 'index', visit: (values: SqliteValue[], rowid: number | undefined) => boolean): TableWalk | undefined {
    const root = this.roots.get(name);
    if (root === undefined) return undefined;
    let invalid = 0;
    let w: BtreeWalk;
    try {
      w = this.reader.walk(root, kind, (v, rowid) => {
        if (!visit(v, rowid)) invalid++;
      });
    } catch {
      // A reader bug on a file stranger than the tests': what was visited stays; the rest is lost.
      w = { pages: 0, unreadable: 1, unreadableLeaves: 0, badCells: 0, rows: 0, freePages: 0 };
    }
    this.unreadablePages += w.unreadable;
    this.freePagesSkipped += w.freePages;
    return { ...w, invalid };
  }

  close(): void {
    this.reader.close();
  }
}
