import { chmodSync, closeSync, openSync, statSync } from 'node:fs';

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
