import Database from 'better-sqlite3';
import { z } from 'zod';
import {
  ConflictError,
  HomeAgentError,
  NotFoundError,
  ValidationError,
  type ConfigKeyDef,
  type ConfigKeyInfo,
  type ConfigReader,
  type ConfigValue,
  type SettingsAPI,
  type StoreSalvage,
  salvageInWords,
} from '../spec/index.js';
import { assertPluginName, keyMatchesPrefix, locateConfigKey, type ConfigKeyLocation } from './config-key.js';
import { PeopleRegistry } from './people-registry.js';
import { ensureNamespaceTable, migrateConfigDb } from './config-migrations.js';
import { maskSecret } from './mask-secret.js';
import { PluginSettings } from './plugin-settings.js';
import { privateSqliteFile } from '../fs/index.js';
import { openSalvaging } from '../fs/sqlite/index.js';
import { salvageConfigFile } from './config-salvage.js';

/** Where the registry reports problems (bad stored values, failing listeners). Never given secret values. */
export interface ConfigLogger {
  warn(msg: string, data?: Record<string, unknown>): void;
}

export interface ConfigRegistryOptions {
  /** SQLite file of the registry; its own file (it owns `PRAGMA user_version`). */
  dbPath: string;
  /** Environment for keys with `env` (defaults to `process.env`). */
  env?: Record<string, string | undefined>;
  logger?: ConfigLogger;
  now?: () => number;
  /**
   * Values fixed for this run (command-line flags such as `homed --port`): they win over stored
   * values and are never written. Applied when their key is registered; an override that fails
   * the key's schema is ignored with a warning.
   */
  overrides?: Record<string, ConfigValue>;
  /** How each override was given, for messages (`{ 'plugin.webui.port': '--port' }`). */
  overrideNames?: Record<string, string>;
}

type ChangeListener = (key: string, value: ConfigValue) => void;

interface Entry {
  def: ConfigKeyDef;
  loc: ConfigKeyLocation;
  jsonSchema?: Record<string, unknown>;
}

const consoleLogger: ConfigLogger = {
  warn: (msg, data) => console.warn(`[config] ${msg}`, data ?? ''),
};

/** Human text of a schema failure: `path: message; …` from the zod issues. */
function issuesText(issues: { message: string; path: PropertyKey[] }[]): string {
  return issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message)).join('; ');
}

function isCorruptDbError(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'));
}

/**
 * The config registry (G-1): typed keys registered in code with defaults and schemas, values
 * stored in SQLite (`config` for `core.*`, `config_<plugin>` for `plugin.<plugin>.*`, JSON text),
 * change events for live reconfiguration, secrets masked on every read-out surface (G-2).
 *
 * A value resolves as override (this run's flags) ?? stored ?? env (keys with `env`) ?? default. Stored values that no longer
 * pass the key's schema are ignored with a warning. Only this process's writes are observed.
 *
 * @example
 * const config = new ConfigRegistry({ dbPath: join(home, 'config.db') });
 * config.open();
 * config.register(coreConfigDefaults());
 * const rounds = config.get<number>('core.agent.max_tool_rounds');
 */
export class ConfigRegistry implements ConfigReader {
  private db: Database.Database | undefined;
  private readonly env: Record<string, string | undefined>;
  private readonly logger: ConfigLogger;
  private readonly now: () => number;
  private readonly entries = new Map<string, Entry>();
  /** Rows as read from / written to the DB (JSON text), also for keys not registered yet. */
  private readonly raw = new Map<string, string>();
  /** Validated stored values of registered keys. */
  private readonly stored = new Map<string, ConfigValue>();
  /** Validated env values of registered keys with `env`. */
  private readonly envValues = new Map<string, ConfigValue>();
  /** Validated overrides of registered keys. */
  private readonly overrideValues = new Map<string, ConfigValue>();
  private readonly tables = new Set<string>();
  private readonly listeners = new Set<{ fn: ChangeListener; prefix?: string }>();
  /** Who is who across channels (decision 0090), in the same database. */
  readonly people: PeopleRegistry;

  constructor(private readonly opts: ConfigRegistryOptions) {
    this.env = opts.env ?? process.env;
    this.logger = opts.logger ?? consoleLogger;
    this.now = opts.now ?? Date.now;
    this.people = new PeopleRegistry({
      db: () => this.db,
      configOwnerIds: () => (this.entries.has('core.identity.owner_ids') ? this.get<string[]>('core.identity.owner_ids') : []),
      now: () => this.now(),
    });
  }

  private asideAt: { file: string; at: number; salvaged: StoreSalvage } | undefined;
  /** Settings read back from a damaged file at this open, not yet checked against their key (decision 0310). */
  private readonly salvagedUnchecked = new Set<string>();
  /** Settings read back but dropped: they no longer fit their key. */
  private readonly salvagedDropped: string[] = [];

  /**
   * The corrupt file this process set aside when it opened the store (`*.corrupt-<time>`), if any,
   * with what was read back of it into the new one (decision 0310) — the settings dropped since,
   * as their keys were registered, counted in.
   */
  get setAside(): { file: string; at: number; salvaged: StoreSalvage } | undefined {
    const a = this.asideAt;
    if (!a) return undefined;
    const dropped = this.salvagedDropped;
    if (!dropped.length) return { ...a, salvaged: { ...a.salvaged, tables: { ...a.salvaged.tables } } };
    const tables = { ...a.salvaged.tables };
    for (const key of dropped) {
      const t = locateConfigKey(key).table;
      const c = tables[t] ?? { read: 0, kept: 0, skipped: 0 };
      tables[t] = { read: c.read, kept: c.kept - 1, skipped: c.skipped + 1 };
    }
    return { ...a, salvaged: { ...a.salvaged, kept: a.salvaged.kept - dropped.length, skipped: a.salvaged.skipped + dropped.length, tables, droppedKeys: [...(a.salvaged.droppedKeys ?? []), ...dropped] } };
  }

  /**
   * Opens (creating if needed) the database, migrates it and loads the stored values. Idempotent.
   * A damaged file is read for what can still be read into a new one, then set aside, and the new
   * one takes its place (decision 0310, `openSalvaging`): the settings and people on its readable
   * pages stay in effect.
   */
  open(): void {
    if (this.db) return;
    const opened = openSalvaging({
      file: this.opts.dbPath,
      now: this.now,
      connect: () => this.openDb(),
      isCorrupt: isCorruptDbError,
      salvage: (file, staged) => salvageConfigFile(file, staged),
    });
    this.db = opened.db;
    const a = opened.aside;
    if (a) {
      const salvaged = a.salvage?.report ?? { read: 0, kept: 0, skipped: 0, unreadablePages: 0, tables: {} };
      this.asideAt = { file: a.file, at: a.at, salvaged };
      this.salvagedDropped.length = 0;
      this.salvagedUnchecked.clear();
      for (const k of a.salvage?.keys ?? []) this.salvagedUnchecked.add(k);
      // Counts and keys only: a value (an API key) is never logged.
      const people = a.salvage?.peopleRecreated ? `; ${a.salvage.peopleRecreated} people re-created from their linked ids (their names were lost)` : '';
      const why = a.salvageError ? ` (reading it back failed: ${a.salvageError.message})` : '';
      this.logger.warn(`config database is corrupt (${a.error.message}); kept aside as ${a.file}; started a new one with what could be read back of it${why}: ${salvageInWords(salvaged)}${people}`, {
        path: this.opts.dbPath,
        movedTo: a.file,
        salvaged,
      });
    }
    this.people.reset();
    this.tables.clear();
    this.raw.clear();
    this.stored.clear();
    this.loadRows(this.db);
    for (const [key, entry] of this.entries) {
      this.ensureTable(entry.loc.table);
      this.resolveStored(key);
    }
  }

  /** Closes the database. Registered keys and listeners stay; `open()` again reloads. Idempotent. */
  close(): void {
    const db = this.db;
    this.db = undefined;
    this.people.reset();
    db?.close();
  }

  /**
   * Registers typed keys (full names: `core.x.y`, `plugin.<name>.x`). All or nothing: an invalid
   * key or default → ValidationError, an already registered key → ConflictError. Returns a
   * disposer that unregisters them (stored values stay in the database).
   */
  register(defs: Record<string, ConfigKeyDef>): () => void {
    const added: [string, Entry][] = [];
    for (const [key, def] of Object.entries(defs)) {
      const loc = locateConfigKey(key);
      if (this.entries.has(key)) throw new ConflictError(`config key already registered: ${key}`, { key });
      if (!def || typeof def.schema?.safeParse !== 'function' || typeof def.description !== 'string') {
        throw new ValidationError(`config key ${key}: a definition needs default, description and schema`, { key });
      }
      const check = def.schema.safeParse(def.default);
      if (!check.success) throw new ValidationError(`config key ${key}: default is invalid: ${issuesText(check.error.issues)}`, { key });
      added.push([key, { def, loc }]);
    }
    for (const [key, entry] of added) {
      this.entries.set(key, entry);
      this.resolveEnv(key, entry);
      this.resolveOverride(key, entry);
      if (this.db) {
        this.ensureTable(entry.loc.table);
        this.resolveStored(key);
      }
    }
    let disposed = false;
    return () => {
      if (disposed) return;
      disposed = true;
      for (const [key, entry] of added) {
        if (this.entries.get(key) !== entry) continue;
        this.entries.delete(key);
        this.stored.delete(key);
        this.envValues.delete(key);
        this.overrideValues.delete(key);
      }
    };
  }

  /** Registers a plugin's settings (keys without the `plugin.<name>.` prefix). */
  registerPlugin(plugin: string, defs: Record<string, ConfigKeyDef>): () => void {
    assertPluginName(plugin);
    return this.register(Object.fromEntries(Object.entries(defs).map(([k, d]) => [`plugin.${plugin}.${k}`, d])));
  }

  /** True when `key` is registered. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The effective value: stored ?? env ?? default. Unknown key → NotFoundError. */
  get<T extends ConfigValue = ConfigValue>(key: string): T {
    this.entry(key);
    const value = this.effective(key);
    return (typeof value === 'object' && value !== null ? structuredClone(value) : value) as T;
  }

  /** The effective value, masked when the key is a secret. */
  getMasked(key: string): ConfigValue {
    const { def } = this.entry(key);
    const value = this.get(key);
    return def.secret ? maskSecret(value) : value;
  }

  /** Everything a settings form needs about one key; secrets masked. */
  info(key: string): ConfigKeyInfo {
    const entry = this.entry(key);
    const { def } = entry;
    const secret = def.secret === true;
    const value = this.effective(key);
    const info: ConfigKeyInfo = {
      key,
      value: secret ? maskSecret(value) : structuredClone(value),
      default: secret ? maskSecret(def.default) : structuredClone(def.default),
      description: def.description,
      secret,
      schema: this.jsonSchemaOf(entry),
      origin: this.overrideValues.has(key) ? 'override' : this.stored.has(key) ? 'stored' : this.envValues.has(key) ? 'env' : 'default',
    };
    if (def.env) info.env = def.env;
    if (def.privileged) info.privileged = true;
    if (info.origin === 'override') info.overriddenBy = this.opts.overrideNames?.[key] ?? 'a command-line flag of this run';
    return info;
  }

  /** All registered keys under `prefix` (e.g. `core.memory`), sorted; secrets masked. */
  list(prefix?: string): ConfigKeyInfo[] {
    return [...this.entries.keys()]
      .filter((k) => keyMatchesPrefix(k, prefix))
      .sort()
      .map((k) => this.info(k));
  }

  /**
   * Validates and stores a value (one SQLite transaction), then notifies listeners.
   * Invalid → ValidationError naming the key and the schema's reasons.
   */
  async set(key: string, value: ConfigValue): Promise<void> {
    const entry = this.entry(key);
    const db = this.requireOpen();
    const parsed = entry.def.schema.safeParse(value);
    if (!parsed.success) {
      throw new ValidationError(`invalid value for ${key}: ${issuesText(parsed.error.issues)}`, {
        key,
        issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
      });
    }
    let json: string | undefined;
    try {
      json = JSON.stringify(parsed.data);
    } catch {
      json = undefined;
    }
    const normalized = json === undefined ? undefined : (JSON.parse(json) as ConfigValue);
    if (json === undefined || !entry.def.schema.safeParse(normalized).success) {
      throw new ValidationError(`invalid value for ${key}: not representable as JSON`, { key });
    }
    this.ensureTable(entry.loc.table);
    const stmt = db.prepare(
      `INSERT INTO "${entry.loc.table}" (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
    db.transaction(() => stmt.run(key, json, this.now()))();
    this.raw.set(key, json);
    this.stored.set(key, normalized as ConfigValue);
    this.emit(key);
  }

  /**
   * The stored row of `key` as it is in the database (JSON text, secrets unmasked), or undefined
   * when nothing is stored. Also for keys not registered yet. For saving a value to put back
   * byte for byte (an import's undo); never for showing.
   */
  storedText(key: string): string | undefined {
    return this.raw.get(key);
  }

  /**
   * Puts stored rows back as they were (`value` null: no row), in one transaction, without
   * validation — the rows came from `storedText`. Works before the keys are registered (at start,
   * when an interrupted import is undone); registered keys are re-resolved and notify listeners.
   */
  restoreStored(rows: readonly { key: string; value: string | null }[]): void {
    const db = this.requireOpen();
    const located = rows.map((r) => ({ ...r, table: locateConfigKey(r.key).table }));
    for (const r of located) if (r.value !== null) this.ensureTable(r.table);
    db.transaction(() => {
      for (const r of located) {
        if (r.value === null) {
          if (this.tables.has(r.table)) db.prepare(`DELETE FROM "${r.table}" WHERE key = ?`).run(r.key);
        } else {
          db.prepare(`INSERT INTO "${r.table}" (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`).run(r.key, r.value, this.now());
        }
      }
    })();
    for (const r of located) {
      if (r.value === null) this.raw.delete(r.key);
      else this.raw.set(r.key, r.value);
      if (this.entries.has(r.key)) {
        this.resolveStored(r.key);
        this.emit(r.key);
      }
    }
  }

  /** Removes the stored value (back to env or default) and notifies listeners. */
  async reset(key: string): Promise<void> {
    const entry = this.entry(key);
    const db = this.requireOpen();
    if (this.tables.has(entry.loc.table)) {
      const stmt = db.prepare(`DELETE FROM "${entry.loc.table}" WHERE key = ?`);
      db.transaction(() => stmt.run(key))();
    }
    this.raw.delete(key);
    this.stored.delete(key);
    this.emit(key);
  }

  /**
   * Calls `listener(key, value)` after every `set`/`reset` of a key under `prefix` (all keys
   * when omitted). The value is the new effective value (unmasked: listeners are in-process).
   * A throwing listener is logged and does not affect others. Returns the unsubscriber.
   */
  onChange(listener: ChangeListener, prefix?: string): () => void {
    const sub = { fn: listener, prefix };
    this.listeners.add(sub);
    return () => {
      this.listeners.delete(sub);
    };
  }

  /** Registered namespaces: `core` first, then `plugin.<name>` sorted. */
  namespaces(): string[] {
    const set = new Set([...this.entries.values()].map((e) => e.loc.namespace));
    return [...set].sort((a, b) => (a === 'core' ? -1 : b === 'core' ? 1 : a.localeCompare(b)));
  }

  /** The scoped settings API of one plugin (`plugin.<plugin>.*`, keys without prefix). */
  settingsFor(plugin: string): SettingsAPI {
    assertPluginName(plugin);
    return new PluginSettings(this, plugin);
  }

  private openDb(): Database.Database {
    // It can hold API keys: 0600 before SQLite opens it (SQLite gives -wal/-shm the database's mode).
    privateSqliteFile(this.opts.dbPath);
    const db = new Database(this.opts.dbPath);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      // API keys live here: a key replaced or removed is overwritten on disk, not left in a freed
      // page or cell for a copy of the file (or a salvage, 0310) to read. Config writes are rare.
      db.pragma('secure_delete = ON');
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw Object.assign(new Error(`quick_check: ${String(check)}`), { code: 'SQLITE_CORRUPT' });
      migrateConfigDb(db);
      return db;
    } catch (e) {
      db.close();
      throw e;
    }
  }

  private loadRows(db: Database.Database): void {
    const tables = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND (name = 'config' OR name LIKE 'config\\_%' ESCAPE '\\')`)
      .all() as { name: string }[];
    for (const { name } of tables) {
      this.tables.add(name);
      for (const row of db.prepare(`SELECT key, value FROM "${name}"`).all() as { key: unknown; value: unknown }[]) {
        if (typeof row.key === 'string' && typeof row.value === 'string') this.raw.set(row.key, row.value);
      }
    }
  }

  private ensureTable(table: string): void {
    if (this.tables.has(table) || !this.db) return;
    ensureNamespaceTable(this.db, table);
    this.tables.add(table);
  }

  /**
   * Validates the stored row of `key` (if any) against its schema; bad rows are ignored with a
   * warning — and a row read back from a damaged file at this open is dropped (decision 0310),
   * named by its key only (the value may be a secret).
   */
  private resolveStored(key: string): void {
    this.stored.delete(key);
    const text = this.raw.get(key);
    const entry = this.entries.get(key);
    if (text === undefined || !entry) return;
    const salvaged = this.salvagedUnchecked.delete(key);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (salvaged) this.dropSalvaged(key, entry);
      else this.logger.warn(`stored value of ${key} is not valid JSON; using the default`, { key });
      return;
    }
    const r = entry.def.schema.safeParse(value);
    if (!r.success) {
      if (salvaged) this.dropSalvaged(key, entry);
      else this.logger.warn(`stored value of ${key} no longer passes its schema (${issuesText(r.error.issues)}); using the default`, { key });
      return;
    }
    this.stored.set(key, value as ConfigValue);
  }

  /** Deletes a salvaged setting that does not fit its key, and says so by key. */
  private dropSalvaged(key: string, entry: Entry): void {
    const db = this.db;
    if (db && this.tables.has(entry.loc.table)) db.prepare(`DELETE FROM "${entry.loc.table}" WHERE key = ?`).run(key);
    this.raw.delete(key);
    this.salvagedDropped.push(key);
    this.logger.warn(`config: the setting ${key} read back from the damaged config.db no longer fits its key; dropped (it is still in ${this.asideAt?.file ?? 'the old file'})`, { key });
  }

  private resolveEnv(key: string, entry: Entry): void {
    this.envValues.delete(key);
    const name = entry.def.env;
    if (!name) return;
    const text = this.env[name];
    if (text === undefined || text === '') return;
    const candidates: unknown[] = [text];
    try {
      candidates.push(JSON.parse(text));
    } catch {}
    for (const candidate of candidates) {
      if (entry.def.schema.safeParse(candidate).success) {
        this.envValues.set(key, candidate as ConfigValue);
        return;
      }
    }
    this.logger.warn(`env ${name} does not pass the schema of ${key}; ignored`, { key, env: name });
  }

  private resolveOverride(key: string, entry: Entry): void {
    this.overrideValues.delete(key);
    const overrides = this.opts.overrides;
    if (!overrides || !Object.hasOwn(overrides, key)) return;
    if (entry.def.schema.safeParse(overrides[key]).success) this.overrideValues.set(key, overrides[key]);
    else this.logger.warn(`override of ${key} does not pass its schema; ignored`, { key });
  }

  private effective(key: string): ConfigValue {
    if (this.overrideValues.has(key)) return this.overrideValues.get(key) as ConfigValue;
    if (this.stored.has(key)) return this.stored.get(key) as ConfigValue;
    if (this.envValues.has(key)) return this.envValues.get(key) as ConfigValue;
    return (this.entries.get(key) as Entry).def.default;
  }

  private emit(key: string): void {
    for (const sub of [...this.listeners]) {
      if (!keyMatchesPrefix(key, sub.prefix)) continue;
      try {
        const r = sub.fn(key, this.get(key)) as unknown;
        if (r instanceof Promise) r.catch((e: unknown) => this.listenerFailed(key, e));
      } catch (e) {
        this.listenerFailed(key, e);
      }
    }
  }

  private listenerFailed(key: string, e: unknown): void {
    this.logger.warn(`config change listener failed for ${key}`, { key, error: e instanceof Error ? e.message : String(e) });
  }

  private jsonSchemaOf(entry: Entry): Record<string, unknown> {
    if (entry.def.jsonSchema) return entry.def.jsonSchema;
    if (!entry.jsonSchema) {
      try {
        const s = z.toJSONSchema(entry.def.schema as unknown as z.ZodType, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
        delete s.$schema;
        entry.jsonSchema = s;
      } catch {
        entry.jsonSchema = {};
      }
    }
    return entry.jsonSchema;
  }

  private entry(key: string): Entry {
    const entry = this.entries.get(key);
    if (!entry) throw new NotFoundError('config key', String(key));
    return entry;
  }

  private requireOpen(): Database.Database {
    if (!this.db) throw new HomeAgentError('CONFIG_CLOSED', 'the config registry is not open');
    return this.db;
  }
}
