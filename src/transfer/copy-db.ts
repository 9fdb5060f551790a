import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** Copies a SQLite database consistently (VACUUM INTO from its own read-only connection). */
export function copyDb(source: string, target: string): void {
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  if (!existsSync(source)) return;
  const src = new Database(source, { readonly: true, fileMustExist: true });
  try {
    src.prepare('VACUUM INTO ?').run(target);
  } finally {
    src.close();
  }
}
