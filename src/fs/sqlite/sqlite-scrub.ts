import type Database from 'better-sqlite3';

/**
 * Files that hold what a person said are opened with `secure_delete` on, for their whole life
 * (decision 0400): SQLite then zeroes a row's bytes whenever it leaves a page — a delete, and also
 * the old copy a page split or an update leaves behind. Turned on only during a forget, copies
 * moved by ordinary growth stayed readable in the file after the row itself was forgotten.
 */
export function secureDeleteOn(db: Database.Database): void {
  db.pragma('secure_delete = ON');
}

/**
 * Runs `fn` (deletes) with `secure_delete` on, then truncates the WAL, so no copy of what was
 * removed lingers in the log (K-2). The one implementation behind every memory tier's `scrubbed`.
 * Returns what `fn` returns; whether the WAL could be emptied is {@link truncateWal}'s to say.
 */
export function scrubbedSqlite<T>(db: Database.Database, fn: () => T): T {
  secureDeleteOn(db);
  try {
    return fn();
  } finally {
    truncateWal(db);
  }
}

/**
 * Copies every page of the WAL into the database and empties it. False when a reader held it (the
 * busy timeout ran out): the log still has pages, and the next checkpoint takes them.
 */
export function truncateWal(db: Database.Database): boolean {
  const rows = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
  const r = rows[0];
  return !r || (r.busy === 0 && (r.log <= 0 || r.log === r.checkpointed));
}

/** Files up to this size are rebuilt after a forget; a larger one only has its WAL emptied. */
export const COMPACT_MAX_BYTES = 256 * 1024 * 1024;

/** What {@link compactSqlite} did. */
export type CompactOutcome = 'rebuilt' | 'too-large' | 'busy';

/**
 * After a forget: rebuilds the file (`VACUUM`) so that no page keeps a copy written before
 * `secure_delete` was on (an install older than decision 0400), then empties the WAL. A file over
 * `maxBytes` is not rebuilt (minutes of I/O for a rare residue); a VACUUM refused because a
 * statement of this connection is still reading leaves the file as it is. Never throws.
 */
export function compactSqlite(db: Database.Database, maxBytes = COMPACT_MAX_BYTES): CompactOutcome {
  try {
    const pages = db.pragma('page_count', { simple: true }) as number;
    const size = db.pragma('page_size', { simple: true }) as number;
    if (pages * size > maxBytes) return truncateWal(db) ? 'too-large' : 'busy';
    db.exec('VACUUM');
    return truncateWal(db) ? 'rebuilt' : 'busy';
  } catch {
    return 'busy';
  }
}
