import { closeSync, openSync, readSync, writeSync } from 'node:fs';
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

/** The pages of a closed file on no b-tree SQLite's `dbstat` knows (tables, indexes, overflow, the schema): its free pages, ascending. */
export function freePages(file: string): number[] {
  const db = new Database(file, { readonly: true });
  try {
    const count = db.pragma('page_count', { simple: true }) as number;
    const used = new Set(db.prepare('SELECT pageno FROM dbstat').pluck().all() as number[]);
    const out: number[] = [];
    for (let p = 1; p <= count; p++) if (!used.has(p)) out.push(p);
    return out;
  } finally {
    db.close();
  }
}

/**
 * Writes `value` as a big-endian 32-bit number at `offset` of page `page` (1-based) — a child
 * pointer of an interior page (its cell's first 4 bytes), a freelist trunk's next or count — as a
 * lost or torn write leaves it.
 */
export function writeUint32(file: string, page: number, offset: number, value: number, pageSize = 4096): void {
  const fd = openSync(file, 'r+');
  try {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(value >>> 0);
    writeSync(fd, b, 0, 4, (page - 1) * pageSize + offset);
  } finally {
    closeSync(fd);
  }
}

/** `length` bytes of page `page` (1-based) of a file, from `offset` in the page. */
export function readPageBytes(file: string, page: number, offset: number, length: number, pageSize = 4096): Buffer {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(length);
    readSync(fd, b, 0, length, (page - 1) * pageSize + offset);
    return b;
  } finally {
    closeSync(fd);
  }
}

/**
 * A store's versioned migrations as the salvage calls them: runs `steps` from the file's
 * `user_version` up to `upTo` (default all), and returns the version reached.
 */
export function stepMigrator(steps: readonly string[]): (db: Database.Database, upTo?: number) => number {
  return (db, upTo = steps.length) => {
    const v = db.pragma('user_version', { simple: true }) as number;
    for (let i = v; i < Math.min(upTo, steps.length); i++) {
      db.exec(steps[i]);
      db.pragma(`user_version = ${i + 1}`);
    }
    return upTo;
  };
}
