import type Database from 'better-sqlite3';
import { HomeAgentError } from '../../spec/errors/index.js';

/**
 * Versioned schema of documents.db (T-3). Index `i` brings the file from `user_version = i` to
 * `i + 1`. Never edit a shipped step: append a new one.
 */
export const DOC_MIGRATIONS: readonly string[] = [
  // 1: documents with their lexical tokens and their vector (with the model that made it).
  `
  CREATE TABLE documents (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    content TEXT NOT NULL,
    input TEXT NOT NULL DEFAULT '',
    response TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT 'note',
    source TEXT NOT NULL DEFAULT '',
    channel TEXT NOT NULL DEFAULT '',
    session_id TEXT NOT NULL DEFAULT '',
    title TEXT,
    created_at INTEGER NOT NULL,
    added_at INTEGER NOT NULL,
    access_count INTEGER NOT NULL DEFAULT 0,
    last_access INTEGER,
    refs TEXT NOT NULL DEFAULT '[]',
    meta TEXT,
    tokens TEXT,
    vec BLOB,
    vec_model TEXT
  );
  CREATE INDEX documents_created ON documents(created_at, seq);
  CREATE INDEX documents_cold ON documents(access_count, last_access);
  `,
];

/** Applies the pending migrations in one transaction each. */
export function migrateDocs(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > DOC_MIGRATIONS.length) {
    throw new HomeAgentError('DOCS_SCHEMA_TOO_NEW', `documents.db has schema version ${current}, this build knows ${DOC_MIGRATIONS.length}`, { details: { current } });
  }
  for (let v = current; v < DOC_MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(DOC_MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
