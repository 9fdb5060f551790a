import { closeSync, openSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';

/** A page of a table or index as SQLite's `dbstat` lists it. */
export interface TablePage {
  pageno: number;
  /** `internal`, `leaf` or `overflow`. */
  pagetype: string;
  ncell: number;
}

/** The pages SQLite says belong to `name` (a closed file), in page order; only those of `pagetype` when given. */
export function tablePages(file: string, name: string, pagetype?: string): TablePage[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT pageno, pagetype, ncell FROM dbstat WHERE name = ? ORDER BY pageno').all(name) as TablePage[];
    return pagetype ? rows.filter((r) => r.pagetype === pagetype) : rows;
  } finally {
    db.close();
  }
}

/** Overwrites one page (1-based) of a SQLite file with random bytes, as a bad sector or a torn write does. */
export function overwritePage(file: string, page: number, pageSize = 4096): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, randomBytes(pageSize), 0, pageSize, (page - 1) * pageSize);
  } finally {
    closeSync(fd);
  }
}

/** Overwrites the 100-byte file header with random bytes (SQLite then refuses the file: "not a database"). */
export function overwriteHeader(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, randomBytes(100), 0, 100, 0);
  } finally {
    closeSync(fd);
  }
}
