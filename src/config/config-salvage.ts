import type Database from 'better-sqlite3';
import type { StoreSalvage } from '../spec/index.js';
import { salvageRowsInto, type SalvagedRow } from '../fs/sqlite/index.js';
import { locateConfigKey } from './config-key.js';
import { CONFIG_DB_VERSION, ensureNamespaceTable, migrateConfigDb } from './config-migrations.js';
import { PERSON_ID_RE, SPEAKER_ID_RE } from './people-registry.js';

/** What was read back of a damaged `config.db` (decision 0310). */
export interface ConfigSalvage {
  report: StoreSalvage;
  /** The keys of the settings now in the new file: each is checked against its key's schema when the key is registered. */
  keys: string[];
  /** People re-created because a linked id was read back but the person's row was not (named after their first id). */
  peopleRecreated: number;
}

/** A namespace table of config.db: `config` (core) or `config_<plugin>`. */
const NAMESPACE_TABLE = /^config(_[a-z0-9_]{1,64})?$/;

function isJson(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A store's own rules for a row that fits its columns. */
function check(table: string, row: SalvagedRow): boolean {
  if (NAMESPACE_TABLE.test(table)) {
    // The key belongs in this table (a core key in `config`, a plugin's in its own) and its value is JSON.
    try {
      if (locateConfigKey(row.key as string).table !== table) return false;
    } catch {
      return false;
    }
    return isJson(row.value);
  }
  if (table === 'people') return PERSON_ID_RE.test(row.id as string) && typeof row.name === 'string' && row.name.trim() !== '';
  if (table === 'person_ids') return SPEAKER_ID_RE.test(row.speaker_id as string) && PERSON_ID_RE.test(row.person_id as string);
  if (table === 'private_chats') return typeof row.conversation_id === 'string' && row.conversation_id !== '' && SPEAKER_ID_RE.test(row.speaker_id as string);
  return true;
}

/**
 * Reads what can be read of a damaged `config.db` into `staged` (a new, empty file): every
 * namespace table (`config`, `config_<plugin>` — created here as the registry creates them on
 * demand) and the people registry's tables, each row as stored — a secret stays exactly the text
 * it was, and is never logged. A linked speaker id whose person's row was on an unreadable page
 * keeps its link: the person is re-created, named after the id (as `link` names a new person).
 * Whether a setting still fits its key is checked when the key is registered
 * (`ConfigRegistry`: a salvaged value that does not is dropped, by key). Never throws for damage.
 */
export function salvageConfigFile(file: string, staged: Database.Database): ConfigSalvage {
  let peopleRecreated = 0;
  const dropped: string[] = [];
  const report: StoreSalvage = salvageRowsInto(file, staged, {
    migrate: migrateConfigDb,
    newest: CONFIG_DB_VERSION,
    check,
    adopt: (table, db) => {
      if (!NAMESPACE_TABLE.test(table) || table === 'config') return false;
      ensureNamespaceTable(db, table);
      return true;
    },
    beforeInsert: (table, row, db) => {
      if (table !== 'person_ids' || db.prepare('SELECT 1 FROM people WHERE id = ?').get(row.person_id)) return;
      const at = row.linked_at as number;
      db.prepare('INSERT INTO people (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run(row.person_id, row.speaker_id, at, at);
      peopleRecreated++;
    },
    // A setting that does not decode is named (by key: its value may be a secret).
    skipped: (table, values) => {
      if (NAMESPACE_TABLE.test(table) && typeof values[0] === 'string' && values[0].length <= 200) dropped.push(values[0]);
    },
  });
  if (dropped.length) report.droppedKeys = dropped;
  const tables = staged.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND (name = 'config' OR name LIKE 'config\\_%' ESCAPE '\\')").pluck().all() as string[];
  const keys = tables.flatMap((t) => staged.prepare(`SELECT key FROM "${t}"`).pluck().all() as string[]);
  return { report, keys, peopleRecreated };
}
