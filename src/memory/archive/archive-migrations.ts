import type Database from 'better-sqlite3';
import { HomeAgentError } from '../../spec/errors/index.js';

/**
 * Versioned schema of `documents/archive.db`, the cold archive (T-3). Index `i` brings the file from
 * `user_version = i` to `i + 1`. Never edit a shipped step: append a new one.
 *
 * `turns` holds every archived document with its lexical tokens (our tokenizer's output joined by
 * spaces: jieba words for Chinese, Porter stems for English — never SQLite's own segmentation).
 * `turns_fts` indexes those tokens (FTS5, `detail=none`: only which rows hold a token) and is used
 * to find candidates; `terms` keeps each token's document frequency and `meta` the row and token
 * counts, so BM25 is computed by the ranker exactly as for the in-memory tiers, without reading
 * the whole archive at open.
 */
export const ARCHIVE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE turns (
    n INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    turn_id TEXT,
    event_kind TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT 'archive',
    source TEXT NOT NULL DEFAULT '',
    channel TEXT NOT NULL DEFAULT '',
    session_id TEXT NOT NULL DEFAULT '',
    speaker_id TEXT,
    speaker_name TEXT,
    title TEXT,
    created_at INTEGER NOT NULL,
    added_at INTEGER NOT NULL,
    archived_at INTEGER NOT NULL,
    access_count INTEGER NOT NULL DEFAULT 0,
    content TEXT NOT NULL,
    input TEXT,
    response TEXT NOT NULL DEFAULT '',
    refs TEXT NOT NULL DEFAULT '[]',
    meta TEXT,
    tokens TEXT NOT NULL DEFAULT '',
    ntok INTEGER NOT NULL DEFAULT 0,
    vec BLOB,
    vec_model TEXT
  );
  CREATE INDEX turns_turn ON turns(turn_id, event_kind);
  CREATE INDEX turns_session ON turns(session_id, created_at, id);
  CREATE INDEX turns_speaker ON turns(speaker_id);
  CREATE VIRTUAL TABLE turns_fts USING fts5(tokens, content='turns', content_rowid='n', detail='none', tokenize='unicode61 remove_diacritics 0');
  CREATE TRIGGER turns_fts_ai AFTER INSERT ON turns BEGIN
    INSERT INTO turns_fts(rowid, tokens) VALUES (new.n, new.tokens);
  END;
  CREATE TRIGGER turns_fts_ad AFTER DELETE ON turns BEGIN
    INSERT INTO turns_fts(turns_fts, rowid, tokens) VALUES ('delete', old.n, old.tokens);
  END;
  CREATE TRIGGER turns_fts_au AFTER UPDATE OF tokens ON turns BEGIN
    INSERT INTO turns_fts(turns_fts, rowid, tokens) VALUES ('delete', old.n, old.tokens);
    INSERT INTO turns_fts(rowid, tokens) VALUES (new.n, new.tokens);
  END;
  CREATE TABLE terms (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
  INSERT INTO meta(key, value) VALUES ('docs', 0), ('tokens', 0);
  `,
];

/** Applies the pending migrations in one transaction each; a newer file is refused. */
export function migrateArchive(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > ARCHIVE_MIGRATIONS.length) {
    throw new HomeAgentError('ARCHIVE_SCHEMA_TOO_NEW', `archive.db has schema version ${current}, this build knows ${ARCHIVE_MIGRATIONS.length}`, { details: { current } });
  }
  for (let v = current; v < ARCHIVE_MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(ARCHIVE_MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
