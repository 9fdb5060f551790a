import type Database from 'better-sqlite3';

/**
 * Runs `fn` (deletes) with SQLite's `secure_delete` on, then truncates the WAL: what a forget removes
 * is overwritten on disk, not only unlinked from its table, and no copy lingers in the log (K-2).
 * The one implementation behind every memory tier's `scrubbed`.
 */
export function scrubbedSqlite<T>(db: Database.Database, fn: () => T): T {
  db.pragma('secure_delete = ON');
  try {
    return fn();
  } finally {
    db.pragma('secure_delete = OFF');
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
}
