import type Database from 'better-sqlite3';
import { HomeAgentError } from '../spec/index.js';

/**
 * Numbered schema migrations of the config database, applied in order inside one transaction
 * each; `PRAGMA user_version` records the last applied number. Append only: never edit or
 * reorder an entry that has shipped. Plugin tables (`config_<plugin>`) are created on demand
 * with {@link ensureNamespaceTable}; a migration that changes their shape must visit every
 * `config_%` table listed in `sqlite_master`.
 */
export const CONFIG_MIGRATIONS: readonly { version: number; description: string; up: (db: Database.Database) => void }[] = [
  {
    version: 1,
    description: 'config table for core.* keys',
    up: (db) => {
      db.exec(`CREATE TABLE IF NOT EXISTS config (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      ) WITHOUT ROWID`);
    },
  },
  {
    version: 2,
    description: 'core.webui.host/port merged into the webui plugin\'s plugin.webui.host/port (one setting each)',
    up: (db) => moveCoreWebuiKeys(db, ['host', 'port']),
  },
  {
    version: 3,
    description: 'people registry: persons, their linked speaker ids, and whose private chat each conversation is (decision 0090)',
    up: (db) => {
      db.exec(`CREATE TABLE IF NOT EXISTS people (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS person_ids (
        speaker_id TEXT PRIMARY KEY,
        person_id TEXT NOT NULL REFERENCES people(id) ON DELETE CASCADE,
        linked_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS person_ids_person ON person_ids(person_id);
      CREATE TABLE IF NOT EXISTS private_chats (
        conversation_id TEXT PRIMARY KEY,
        speaker_id TEXT NOT NULL,
        first_seen INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS private_chats_speaker ON private_chats(speaker_id);`);
      const now = Date.now();
      db.prepare("INSERT OR IGNORE INTO people (id, name, created_at, updated_at) VALUES ('owner', 'Owner', ?, ?)").run(now, now);
    },
  },
  {
    version: 4,
    description: 'core.webui.token (read by nothing: the WebUI checks plugin.webui.token) merged into plugin.webui.token',
    up: (db) => moveCoreWebuiKeys(db, ['token']),
  },
];

/** Moves stored `core.webui.<name>` values to the webui plugin's `plugin.webui.<name>` (one setting each). */
function moveCoreWebuiKeys(db: Database.Database, names: readonly string[]): void {
  for (const name of names) {
    const row = db.prepare('SELECT value, updated_at FROM config WHERE key = ?').get(`core.webui.${name}`) as { value: string; updated_at: number } | undefined;
    if (!row) continue;
    ensureNamespaceTable(db, 'config_webui');
    // A value the user gave the plugin key wins; otherwise the old core value moves over.
    db.prepare('INSERT OR IGNORE INTO config_webui (key, value, updated_at) VALUES (?, ?, ?)').run(`plugin.webui.${name}`, row.value, row.updated_at);
    db.prepare('DELETE FROM config WHERE key = ?').run(`core.webui.${name}`);
  }
}

/** The newest schema version of the config database. */
export const CONFIG_DB_VERSION = CONFIG_MIGRATIONS[CONFIG_MIGRATIONS.length - 1].version;

/**
 * Applies the pending migrations (up to `upTo`, default all: a salvage stops at the damaged file's
 * version, copies its rows, then goes on — decision 0310). Throws when the file was written by a
 * newer HomeAgent.
 */
export function migrateConfigDb(db: Database.Database, upTo = CONFIG_DB_VERSION): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = CONFIG_MIGRATIONS[CONFIG_MIGRATIONS.length - 1].version;
  if (current > latest) {
    throw new HomeAgentError('CONFIG_DB_TOO_NEW', `config database schema version ${current} is newer than this HomeAgent understands (${latest})`, {
      details: { current, latest },
    });
  }
  for (const m of CONFIG_MIGRATIONS) {
    if (m.version <= current || m.version > upTo) continue;
    db.transaction(() => {
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return latest;
}

/** Creates the key/value table of a namespace if missing. `table` must already be sanitized. */
export function ensureNamespaceTable(db: Database.Database, table: string): void {
  if (!/^config(_[a-z0-9_]{1,64})?$/.test(table)) throw new HomeAgentError('CONFIG_BAD_TABLE', `refusing table name ${table}`);
  db.exec(`CREATE TABLE IF NOT EXISTS "${table}" (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  ) WITHOUT ROWID`);
}
