import { chmodSync, closeSync, existsSync, openSync, renameSync, statSync } from 'node:fs';

/**
 * Makes a SQLite database file private before it is opened (docs/security.md §5: databases 0600):
 * created empty with mode 0600 when missing — SQLite then gives its `-wal` and `-shm` the same
 * mode — and narrowed to 0600 with its companions when an older version made them wider. The data
 * folder is 0700 already; this is the second wall (a library or store moved elsewhere keeps it).
 */
export function privateSqliteFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if ((statSync(f).mode & 0o077) !== 0) chmodSync(f, 0o600);
    } catch {}
  }
}

/**
 * Sets a database found corrupt aside (`<file>.corrupt-<at>`, with its `-wal` and `-shm`), so a
 * fresh one can start and nothing of the old is lost: the stores list what they set aside
 * (decision 0250). Returns where it went.
 */
export function setAsideSqlite(file: string, at: number): { file: string; at: number } {
  const aside = `${file}.corrupt-${at}`;
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
  return { file: aside, at };
}
