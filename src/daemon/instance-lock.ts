import Database from 'better-sqlite3';

/**
 * The lock that says "homed runs in this data folder": an OS file lock on `<home>/homed.lock`,
 * held by the process that writes `homed.pid` (the foreground daemon, or the supervisor of
 * `homed start`) for as long as it lives. A pid alone proves nothing after a crash — the number
 * may belong to another program by now — while the OS drops the lock of a process that dies, even
 * by `kill -9`. The lock is SQLite's (an exclusive transaction left open on an empty database):
 * fcntl locks on Linux and macOS, LockFileEx on Windows, with nothing to install.
 */
export class InstanceLock {
  private constructor(private db: Database.Database | undefined) {}

  /**
   * Takes the lock, waiting up to `waitMs` for a process that is only looking (see `isHeld`).
   * Undefined when another process holds it.
   */
  static acquire(file: string, waitMs = 2_000): InstanceLock | undefined {
    const db = new Database(file, { timeout: waitMs });
    try {
      db.exec('BEGIN EXCLUSIVE');
      return new InstanceLock(db);
    } catch (e) {
      db.close();
      if (isBusy(e)) return undefined;
      throw e;
    }
  }

  /** True when some process holds the lock (this one included, through another `acquire`). */
  static isHeld(file: string): boolean {
    let db: Database.Database;
    try {
      db = new Database(file, { timeout: 0, fileMustExist: true });
    } catch {
      // No lock file: nobody of this version ever took it here.
      return false;
    }
    try {
      db.exec('BEGIN EXCLUSIVE');
      db.exec('ROLLBACK');
      return false;
    } catch (e) {
      if (isBusy(e)) return true;
      throw e;
    } finally {
      db.close();
    }
  }

  /** Lets the lock go. Safe to call twice. */
  release(): void {
    this.db?.close();
    this.db = undefined;
  }
}

function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}
