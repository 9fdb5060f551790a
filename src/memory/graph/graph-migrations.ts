import type Database from 'better-sqlite3';

/**
 * Versioned schema of graph.db (T-4). Index `i` brings the file from `user_version = i` to `i + 1`.
 * Never edit a shipped step: append a new one.
 */
export const GRAPH_MIGRATIONS: readonly string[] = [
  // 1: entities and relations.
  `
  CREATE TABLE entities (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    type TEXT NOT NULL DEFAULT 'entity',
    attributes TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    recalled_at INTEGER,
    recall_count INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX entities_type ON entities(type);
  CREATE INDEX entities_updated ON entities(updated_at);
  CREATE TABLE relations (
    id INTEGER PRIMARY KEY,
    subject_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    predicate TEXT NOT NULL,
    object_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    confidence REAL NOT NULL DEFAULT 0.8,
    sentence TEXT,
    refs TEXT NOT NULL DEFAULT '[]',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    reviewed_at INTEGER
  );
  CREATE UNIQUE INDEX relations_spo ON relations(subject_id, predicate, object_id);
  CREATE INDEX relations_object ON relations(object_id);
  CREATE INDEX relations_reviewed ON relations(reviewed_at);
  `,
  // 2: decisions of the merge heartbeat, so a pair the LLM rejected is not asked about again.
  `
  CREATE TABLE merge_decisions (
    a TEXT NOT NULL COLLATE NOCASE,
    b TEXT NOT NULL COLLATE NOCASE,
    decision TEXT NOT NULL,
    decided_at INTEGER NOT NULL,
    PRIMARY KEY (a, b)
  );
  `,
  // 3: trigram index on entity names, so substring recall of keywords with 3+ characters does not
  // scan the table (shorter keywords still use LIKE).
  `
  CREATE VIRTUAL TABLE entities_fts USING fts5(name, content='entities', content_rowid='id', tokenize='trigram');
  CREATE TRIGGER entities_fts_ai AFTER INSERT ON entities BEGIN
    INSERT INTO entities_fts(rowid, name) VALUES (new.id, new.name);
  END;
  CREATE TRIGGER entities_fts_ad AFTER DELETE ON entities BEGIN
    INSERT INTO entities_fts(entities_fts, rowid, name) VALUES ('delete', old.id, old.name);
  END;
  CREATE TRIGGER entities_fts_au AFTER UPDATE OF name ON entities BEGIN
    INSERT INTO entities_fts(entities_fts, rowid, name) VALUES ('delete', old.id, old.name);
    INSERT INTO entities_fts(rowid, name) VALUES (new.id, new.name);
  END;
  INSERT INTO entities_fts(entities_fts) VALUES ('rebuild');
  `,
  // 4: the turns each relation was distilled from, one row per source with who said it, so a fact
  // can bring back its source and forget (K-2) can find the facts whose only sources are gone.
  `
  CREATE TABLE relation_sources (
    relation_id INTEGER NOT NULL REFERENCES relations(id) ON DELETE CASCADE,
    ref TEXT NOT NULL,
    speaker_id TEXT,
    PRIMARY KEY (relation_id, ref)
  ) WITHOUT ROWID;
  CREATE INDEX relation_sources_ref ON relation_sources(ref);
  INSERT OR IGNORE INTO relation_sources(relation_id, ref)
    SELECT r.id, j.value FROM relations r, json_each(r.refs) j WHERE json_valid(r.refs) AND j.type = 'text';
  `,
  // 5: facts that supersede (K-4): since when a fact holds and until when (a later value of a
  // single-valued predicate replaced it); the timeline of one subject's predicate is an index
  // range. The entity-name index overwrites deleted names (forget, K-2: no trace in its segments).
  `
  ALTER TABLE relations ADD COLUMN valid_from INTEGER;
  ALTER TABLE relations ADD COLUMN valid_to INTEGER;
  UPDATE relations SET valid_from = created_at;
  CREATE INDEX relations_subject_predicate ON relations(subject_id, predicate);
  INSERT INTO entities_fts(entities_fts, rank) VALUES ('secure-delete', 1);
  `,
];

/**
 * Applies the missing migration steps in one transaction each, up to `upTo` (default all: a
 * salvage stops at the damaged file's version, copies its rows, then goes on — decision 0310).
 * Returns the final version.
 */
export function migrateGraph(db: Database.Database, upTo = GRAPH_MIGRATIONS.length): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > GRAPH_MIGRATIONS.length) {
    throw new Error(`graph.db has schema version ${current}, newer than this HomeAgent (${GRAPH_MIGRATIONS.length})`);
  }
  for (let v = current; v < Math.min(upTo, GRAPH_MIGRATIONS.length); v++) {
    db.transaction(() => {
      db.exec(GRAPH_MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return Math.max(current, Math.min(upTo, GRAPH_MIGRATIONS.length));
}
