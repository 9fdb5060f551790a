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
  // 2: the turn a document belongs to (its first ref), the kind of the event it was archived from,
  // who said it and where — as columns, so crash recovery, reindex and forget find a turn
  // without reading every row, and recall can rank by speaker and scope by conversation (K-1).
  `
  ALTER TABLE documents ADD COLUMN turn_id TEXT;
  ALTER TABLE documents ADD COLUMN event_kind TEXT NOT NULL DEFAULT '';
  ALTER TABLE documents ADD COLUMN speaker_id TEXT;
  ALTER TABLE documents ADD COLUMN speaker TEXT;
  ALTER TABLE documents ADD COLUMN conversation_id TEXT;
  ALTER TABLE documents ADD COLUMN conversation TEXT;
  UPDATE documents SET turn_id = json_extract(refs, '$[0]') WHERE json_valid(refs);
  UPDATE documents SET event_kind = COALESCE(json_extract(meta, '$.eventKind'), '') WHERE meta IS NOT NULL AND json_valid(meta);
  CREATE INDEX documents_turn ON documents(turn_id, event_kind);
  `,
  // 3 (decision 0160): the days said inside a document ("yesterday" said on 8 May 2023 is 7 May
  // 2023) as YYYYMMDD keys. Documents stored before have `days_done` 0: the store resolves their
  // days at open (JavaScript: our expression tables) and marks them done.
  `
  ALTER TABLE documents ADD COLUMN days_done INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE turn_days (day INTEGER NOT NULL, id TEXT NOT NULL, PRIMARY KEY (day, id)) WITHOUT ROWID;
  CREATE INDEX turn_days_id ON turn_days(id);
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
