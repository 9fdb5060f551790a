import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';
import { HomeAgentError } from '../../spec/errors/index.js';

/**
 * Versioned schema of `documents/archive.db`, the cold archive (T-3). Index `i` brings the file from
 * `user_version = i` to `i + 1`. Never edit a shipped step: append a new one.
 *
 * `turns` holds every archived document with its lexical tokens (our tokenizer's output joined by
 * spaces: jieba words for Chinese, Porter stems for English — never SQLite's own segmentation) and
 * the row numbers of the turns before and after it in its session (`prev_n`, `next_n`).
 * `postings` is the inverted index, clustered by term: each (term, row) with the term's count in the
 * row and the row's length, so BM25 with our own parameters is a short range read per query term.
 * `terms` numbers the tokens and keeps their document frequency; `meta` the row and token counts.
 * Nothing is read at open: the archive costs the same to open at 10 rows and at 1,000,000.
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
    speaker TEXT,
    conversation_id TEXT,
    conversation TEXT,
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
    prev_n INTEGER,
    next_n INTEGER,
    vec BLOB,
    vec_model TEXT
  );
  CREATE INDEX turns_turn ON turns(turn_id, event_kind);
  CREATE INDEX turns_session ON turns(session_id, created_at, id);
  CREATE INDEX turns_speaker ON turns(speaker_id);
  CREATE INDEX turns_conversation ON turns(conversation_id);
  CREATE INDEX turns_rank ON turns(n, session_id, created_at, ntok, prev_n, next_n, event_kind, kind, conversation_id);
  CREATE TABLE terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE, df INTEGER NOT NULL DEFAULT 0);
  CREATE TABLE postings (term_id INTEGER NOT NULL, n INTEGER NOT NULL, tf INTEGER NOT NULL, len INTEGER NOT NULL, PRIMARY KEY (term_id, n)) WITHOUT ROWID;
  CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
  INSERT INTO meta(key, value) VALUES ('docs', 0), ('tokens', 0);
  `,
  // 2 (issue 15): who said it and whether it asks, read with the light columns while ranking (the
  // covering index gains speaker_id and asks); the people heard (`speakers`: id, latest display
  // name, row count) so a query can name them; rows by time (the newest-first listing). `asks`
  // mirrors documents/asks-question.ts for rows archived before.
  `
  ALTER TABLE turns ADD COLUMN asks INTEGER NOT NULL DEFAULT 0;
  UPDATE turns SET asks = 1 WHERE instr(content, '?') > 0 OR instr(content, '？') > 0
    OR substr(rtrim(content, ' ' || char(9, 10, 13) || '。.!！~…'), -1) IN ('吗', '呢', '么');
  DROP INDEX turns_rank;
  CREATE INDEX turns_rank ON turns(n, session_id, created_at, ntok, prev_n, next_n, event_kind, kind, conversation_id, speaker_id, asks);
  CREATE INDEX turns_time ON turns(created_at);
  CREATE TABLE speakers (id TEXT PRIMARY KEY, name TEXT, n INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
  INSERT INTO speakers (id, name, n)
    SELECT t.speaker_id, (
        SELECT json_extract(u.speaker, '$.name') FROM turns u
        WHERE u.speaker_id = t.speaker_id AND json_valid(u.speaker) AND json_extract(u.speaker, '$.name') IS NOT NULL
        ORDER BY u.created_at DESC LIMIT 1),
      count(*)
    FROM turns t WHERE t.speaker_id IS NOT NULL GROUP BY t.speaker_id;
  `,
  // 3 (decision 0160): the days said inside a turn ("yesterday" said on 8 May 2023 is 7 May 2023),
  // as YYYYMMDD keys per row, so a query's days are one range read. Rows archived before have
  // `days_done` 0 (the partial index lists them): the archive resolves their days at open, in
  // JavaScript (our expression tables), and marks them done — as it does for any row written by a
  // process that had no resolver.
  `
  ALTER TABLE turns ADD COLUMN days_done INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX turns_days_todo ON turns(n) WHERE days_done = 0;
  CREATE TABLE turn_days (day INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (day, n)) WITHOUT ROWID;
  CREATE INDEX turn_days_n ON turn_days(n);
  `,
];

/**
 * Applies the pending migrations in one transaction each; a newer file is refused. A step that
 * rewrites rows (2: every row's `asks`, two indexes rebuilt) takes minutes at a million rows, once:
 * `progress` hears each step before it starts (with the row count) and after it ends (with its time),
 * so the daemon's log says why this start is slow.
 */
export function migrateArchive(db: Database.Database, progress?: (p: { from: number; to: number; rows: number; ms?: number }) => void): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > ARCHIVE_MIGRATIONS.length) {
    throw new HomeAgentError('ARCHIVE_SCHEMA_TOO_NEW', `archive.db has schema version ${current}, this build knows ${ARCHIVE_MIGRATIONS.length}`, { details: { current } });
  }
  // A fresh file (version 0) has no rows to rewrite: nothing to report.
  const report = current > 0 && current < ARCHIVE_MIGRATIONS.length && progress !== undefined;
  const rows = report ? ((db.prepare('SELECT max(n) FROM turns').pluck().get() as number | null) ?? 0) : 0;
  for (let v = current; v < ARCHIVE_MIGRATIONS.length; v++) {
    const t0 = performance.now();
    if (report) progress?.({ from: v, to: v + 1, rows });
    db.transaction(() => {
      db.exec(ARCHIVE_MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
    if (report) progress?.({ from: v, to: v + 1, rows, ms: Math.round(performance.now() - t0) });
  }
}
