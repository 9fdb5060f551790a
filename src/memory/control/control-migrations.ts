import type Database from 'better-sqlite3';
import { HomeAgentError } from '../../spec/errors/index.js';

/**
 * Versioned schema of `memory-control.db` (M-9, K-2, K-3). Index `i` brings the file from
 * `user_version = i` to `i + 1`. Never edit a shipped step: append a new one.
 *
 * `exclusions`: the excluded turns, each with what the tiers held of it (`held`, JSON), kept aside
 * until it is restored. `tombstones`: hashes (never text) of forgotten turn ids, contents, facts
 * and documents, so reindex and import do not bring them back. `history`: every change to memory
 * with who made it, when, from which turn, and the rows before and after (what undo puts back);
 * `history_subjects` indexes it by the names a person looks it up by. `forget_files`: files a
 * forget committed to deleting and has not deleted yet (decision 0370). `replacements`: turns
 * a regenerate or an edit-and-resend replaced (decision 0550); `done_at`, once its steps are all done
 * (decision 0600). `exclusions.swept_at`: once every tier was swept of the turn (decision 0700);
 * `turn_refs`: the ids of what a tier held of an excluded or replaced turn (its window events, documents,
 * archived rows), so a fact or document that names only one of them is known to come from the turn.
 */
export const CONTROL_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE exclusions (
    turn_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    held TEXT NOT NULL DEFAULT '{}'
  );
  CREATE TABLE tombstones (
    hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE history (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    actor TEXT NOT NULL,
    tool TEXT,
    turn_id TEXT,
    kind TEXT NOT NULL,
    target TEXT NOT NULL,
    op TEXT NOT NULL,
    summary TEXT NOT NULL,
    before TEXT,
    after TEXT,
    undone_at INTEGER,
    undone_by INTEGER,
    undo_of INTEGER,
    redacted INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX history_target ON history(target, id);
  CREATE INDEX history_turn ON history(turn_id);
  CREATE INDEX history_kind ON history(kind, id);
  CREATE TABLE history_subjects (
    change_id INTEGER NOT NULL REFERENCES history(id) ON DELETE CASCADE,
    subject TEXT NOT NULL COLLATE NOCASE,
    PRIMARY KEY (subject, change_id)
  ) WITHOUT ROWID;
  `,
  // Decision 0370: the files a forget takes (attachments of its turns), recorded with its
  // tombstones in one transaction and deleted after; what a kill leaves here is deleted at the next open.
  `
  CREATE TABLE forget_files (
    path TEXT PRIMARY KEY,
    at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // Decision 0410: a forget committed but not finished (a kill, a failing step) — its request and
  // the texts it was removing, recorded with its tombstones and dropped when it is done; the next
  // open finishes it.
  `
  CREATE TABLE forget_pending (
    key TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    tries INTEGER NOT NULL DEFAULT 0,
    at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // Decision 0420: what a forget finished at open owes a plugin's participant that had not
  // registered yet (the library, timers): its memory ids, quotes and turn ids, kept until that
  // participant registers and takes them, or dropped after three starts without it.
  `
  CREATE TABLE forget_owed (
    key TEXT NOT NULL,
    participant TEXT NOT NULL,
    body TEXT NOT NULL,
    starts INTEGER NOT NULL DEFAULT 0,
    tries INTEGER NOT NULL DEFAULT 0,
    at INTEGER NOT NULL,
    PRIMARY KEY (participant, key)
  ) WITHOUT ROWID;
  `,
  // Decision 0550: a turn replaced by regenerate or edit-and-resend. `by_turn` NULL: pending — what
  // the tiers held of the turn is kept in `held` until the new turn is in the session log (then it is
  // dropped and `by_turn` set) or the send failed (then it is put back and the row goes). The rows
  // stay: they are the gate that keeps the replaced turn out of every tier.
  `
  CREATE TABLE replacements (
    turn_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    by_turn TEXT,
    at INTEGER NOT NULL,
    held TEXT NOT NULL DEFAULT '{}'
  ) WITHOUT ROWID;
  `,
  // Decision 0600: a replacement whose three steps are done (`done_at`) is not swept again at every
  // open — only an import's swapped tiers make every one unfinished again. NULL: swept at the next open.
  `
  ALTER TABLE replacements ADD COLUMN done_at INTEGER;
  `,
  // Decision 0700: an exclusion swept with every tier up (`swept_at`) is not swept again at every
  // open; NULL: swept at the next. `turn_refs` ties the ids of a swept turn's items to the turn —
  // filled from what the exclusions and pending replacements hold; a committed replacement held
  // nothing, so its ids are known from its next sweep on.
  `
  ALTER TABLE exclusions ADD COLUMN swept_at INTEGER;
  CREATE TABLE turn_refs (
    ref TEXT PRIMARY KEY,
    turn_id TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX turn_refs_turn ON turn_refs(turn_id);
  INSERT OR IGNORE INTO turn_refs(ref, turn_id)
    WITH h(turn_id, held) AS (
      SELECT turn_id, CASE WHEN json_valid(held) THEN held ELSE '{}' END FROM exclusions
      UNION ALL SELECT turn_id, CASE WHEN json_valid(held) THEN held ELSE '{}' END FROM replacements
    )
    SELECT json_extract(j.value, '$.id'), h.turn_id FROM h, json_each(h.held, '$.events') j WHERE json_type(j.value, '$.id') = 'text'
    UNION ALL SELECT json_extract(j.value, '$.doc.id'), h.turn_id FROM h, json_each(h.held, '$.docs') j WHERE json_type(j.value, '$.doc.id') = 'text'
    UNION ALL SELECT json_extract(j.value, '$.doc.id'), h.turn_id FROM h, json_each(h.held, '$.archived') j WHERE json_type(j.value, '$.doc.id') = 'text'
    UNION ALL SELECT r.value, h.turn_id FROM h, json_each(h.held, '$.graph') g, json_each(g.value, '$.refs') r WHERE r.type = 'text' AND r.value <> h.turn_id;
  `,
];

/** Applies the pending migrations in one transaction each; a newer file is refused. */
export function migrateControl(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > CONTROL_MIGRATIONS.length) {
    throw new HomeAgentError('CONTROL_SCHEMA_TOO_NEW', `memory-control.db has schema version ${current}, this build knows ${CONTROL_MIGRATIONS.length}`, { details: { current } });
  }
  for (let v = current; v < CONTROL_MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(CONTROL_MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
