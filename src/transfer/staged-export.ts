import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { TransferError, type ContextEvent, type Tombstone, type TransferReplacement } from '../spec/index.js';
import { ARCHIVE_MIGRATIONS, ColdArchive, DOC_MIGRATIONS, GRAPH_MIGRATIONS, GraphDB, readDocumentFile, type ArchivedRow, type GraphFacts, type MemoryDocument } from '../memory/index.js';
import { sessionIdFromFileStem } from '../sessions/index.js';
import type { Manifest } from './manifest.js';
import { unpacked } from './zip-unpack.js';

type Tier = 'documents' | 'archive' | 'graph';
const MIGRATIONS: Record<Tier, readonly string[]> = { documents: DOC_MIGRATIONS, archive: ARCHIVE_MIGRATIONS, graph: GRAPH_MIGRATIONS };
const ENTRY: Record<Tier, string> = { documents: 'memory/documents.db', archive: 'memory/archive.db', graph: 'memory/graph.db' };

const allowedNames = new Map<Tier, Set<string>>();
/** The schema objects a database of this tier can hold: those of a fresh file at this build's version. */
function schemaNames(tier: Tier): Set<string> {
  let names = allowedNames.get(tier);
  if (names) return names;
  const dir = mkdtempSync(join(tmpdir(), 'ha-schema-'));
  const db = new Database(join(dir, 'x.db'));
  try {
    for (const m of MIGRATIONS[tier]) db.exec(m);
    names = new Set((db.prepare('SELECT type, name FROM sqlite_schema').all() as { type: string; name: string }[]).map((r) => `${r.type}:${r.name}`));
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  allowedNames.set(tier, names);
  return names;
}

/**
 * Checks a database snapshot of an archive before anything opens it for use: it is a SQLite file
 * that passes `quick_check`, its schema version is not newer than this build's, and it holds no
 * schema object (table, index, trigger, view) that this tier's schema does not have — an archive is
 * untrusted input, and a trigger of its own would run when the file is migrated or read.
 */
export function checkSnapshotDb(file: string, tier: Tier): number {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new TransferError('TRANSFER_CORRUPT', `${ENTRY[tier]} cannot be opened: ${(e as Error).message}`, { entry: ENTRY[tier] });
  }
  try {
    db.pragma('trusted_schema = OFF');
    let check: unknown;
    try {
      check = db.pragma('quick_check', { simple: true });
    } catch (e) {
      throw new TransferError('TRANSFER_CORRUPT', `${ENTRY[tier]} is not a readable database: ${(e as Error).message}`, { entry: ENTRY[tier] });
    }
    if (check !== 'ok') throw new TransferError('TRANSFER_CORRUPT', `${ENTRY[tier]} is damaged (${String(check).slice(0, 200)})`, { entry: ENTRY[tier] });
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS[tier].length) {
      throw new TransferError('TRANSFER_SCHEMA_TOO_NEW', `${ENTRY[tier]} has schema version ${version}; this HomeAgent knows ${MIGRATIONS[tier].length}: update HomeAgent to import it`, { entry: ENTRY[tier], version });
    }
    const allowed = schemaNames(tier);
    for (const r of db.prepare('SELECT type, name FROM sqlite_schema').all() as { type: string; name: string }[]) {
      if (r.name.startsWith('sqlite_')) continue;
      if (!allowed.has(`${r.type}:${r.name}`)) throw new TransferError('TRANSFER_CORRUPT', `${ENTRY[tier]} holds a ${r.type} "${r.name.slice(0, 60)}" that is not part of HomeAgent's schema`, { entry: ENTRY[tier] });
    }
    return version;
  } finally {
    db.close();
  }
}

const eventSchema = z.object({
  id: z.string().min(1).max(300),
  timestamp: z.number().finite(),
  kind: z.enum(['user', 'agent', 'cold_storage', 'system']),
  source: z.string(),
  channel: z.string(),
  sessionId: z.string(),
  input: z.string(),
  response: z.string(),
  toolOutputs: z.array(z.object({ tool: z.string(), text: z.string(), noMemory: z.boolean().optional() })).optional(),
  refs: z.array(z.string()).optional(),
  speaker: z.looseObject({ id: z.string() }).optional().catch(undefined),
  conversation: z.object({ kind: z.enum(['private', 'group']), id: z.string(), platform: z.string().optional(), title: z.string().optional() }).optional().catch(undefined),
});
const contextSchema = z.object({ version: z.literal(1), events: z.array(z.unknown()), turns: z.record(z.string(), z.object({ turn: z.number().int().nonnegative(), done: z.boolean() })).optional() });
const tombstonesSchema = z.array(z.object({ ref: z.string().min(1).max(500), at: z.number() }));
/** `replacements.json` (decision 0620): its shape; what each id names is checked by the merge against the logs. */
const replacementsSchema = z.array(z.object({ turnId: z.string().min(1).max(400), byTurn: z.string().min(1).max(400) })).max(100_000);
const settingsSchema = z.record(z.string().max(200), z.unknown());

/**
 * An export unpacked and verified in staging, read part by part for an import. The database
 * snapshots are checked (see {@link checkSnapshotDb}) and moved into a folder laid out like a
 * data folder, where the tier classes open (and migrate) them as they would their own.
 */
export class StagedExport {
  private readonly tiers: string;

  constructor(
    readonly dir: string,
    readonly manifest: Manifest,
  ) {
    this.tiers = join(dir, '.tiers');
  }

  has(entry: string): boolean {
    return this.manifest.files.some((f) => f.path === entry);
  }

  private text(entry: string): string | undefined {
    return this.has(entry) ? readFileSync(unpacked(this.dir, entry), 'utf8') : undefined;
  }

  private json<T>(entry: string, schema: z.ZodType<T>): T | undefined {
    const t = this.text(entry);
    if (t === undefined) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(t);
    } catch (e) {
      throw new TransferError('TRANSFER_CORRUPT', `${entry} is not valid JSON: ${(e as Error).message}`, { entry });
    }
    const r = schema.safeParse(raw);
    if (!r.success) throw new TransferError('TRANSFER_CORRUPT', `${entry} is malformed: ${r.error.issues[0]?.message ?? ''}`, { entry });
    return r.data;
  }

  /** Checks every database snapshot and every JSON part up front (so an import fails before it changes anything). */
  verify(): void {
    mkdirSync(join(this.tiers, 'documents'), { recursive: true, mode: 0o700 });
    for (const tier of ['documents', 'archive', 'graph'] as const) {
      if (!this.has(ENTRY[tier])) continue;
      const to = tier === 'graph' ? join(this.tiers, 'graph.db') : join(this.tiers, 'documents', `${tier}.db`);
      if (!existsSync(to)) {
        checkSnapshotDb(unpacked(this.dir, ENTRY[tier]), tier);
        renameSync(unpacked(this.dir, ENTRY[tier]), to);
      }
    }
    this.context();
    this.tombstones();
    this.replacements();
    this.settings();
    this.checkSessionIds();
  }

  /**
   * Every `session` line of a session log names the session of its file name: the store loads a
   * log only then (it skips `sessions/cli%3Aother.jsonl` whose header says `cli:default`), so an
   * import that took such a file would report a session added that never appears.
   */
  private checkSessionIds(): void {
    for (const f of this.manifest.files) {
      if (f.part !== 'sessions') continue;
      const id = sessionIdFromFileStem(f.path.slice('sessions/'.length, -'.jsonl'.length));
      if (id === undefined) throw new TransferError('TRANSFER_CORRUPT', `${f.path} is not named like a session log`, { entry: f.path });
      for (const line of readFileSync(unpacked(this.dir, f.path), 'utf8').split('\n')) {
        // Only `session` lines matter: the others (the bulk of a log) are not parsed here.
        if (!line.includes('"session"')) continue;
        let v: unknown;
        try {
          v = JSON.parse(line);
        } catch {
          continue; // a torn or foreign line: the store skips it too
        }
        const r = v as { type?: unknown; id?: unknown } | null;
        if (r && typeof r === 'object' && r.type === 'session' && typeof r.id === 'string' && r.id !== id) {
          throw new TransferError('TRANSFER_CORRUPT', `${f.path} holds the log of session "${r.id.slice(0, 130)}", not of "${id}"`, { entry: f.path });
        }
      }
    }
  }

  /** Session logs: id and the unpacked file. */
  sessions(): { id: string; file: string }[] {
    return this.manifest.files
      .filter((f) => f.part === 'sessions')
      .map((f) => ({ id: sessionIdFromFileStem(f.path.slice('sessions/'.length, -'.jsonl'.length))!, file: unpacked(this.dir, f.path) }));
  }

  /** The context window's events (invalid single events dropped) and turn marks. */
  context(): { events: ContextEvent[]; marks: Record<string, { turn: number; done: boolean }>; dropped: number } {
    const c = this.json('memory/context.json', contextSchema);
    if (!c) return { events: [], marks: {}, dropped: 0 };
    const events: ContextEvent[] = [];
    let dropped = 0;
    for (const e of c.events) {
      const r = eventSchema.safeParse(e);
      if (r.success) events.push(r.data as ContextEvent);
      else dropped++;
    }
    return { events, marks: c.turns ?? {}, dropped };
  }

  /** The warm documents with their vectors. */
  documents(): { docs: { doc: MemoryDocument; vector?: ArchivedRow['vec'] }[]; unreadable: number } {
    const f = join(this.tiers, 'documents', 'documents.db');
    return existsSync(f) ? readDocumentFile(f) : { docs: [], unreadable: 0 };
  }

  /** The cold archive, opened read for paging (`page(afterN, limit)`); close it after. */
  archive(tokenize: (t: string) => string[]): ColdArchive | undefined {
    if (!existsSync(join(this.tiers, 'documents', 'archive.db'))) return undefined;
    const a = new ColdArchive({ home: this.tiers, tokenize });
    a.open();
    return a;
  }

  /** The graph's entities, relations and merge decisions. */
  graph(): GraphFacts | undefined {
    const f = join(this.tiers, 'graph.db');
    if (!existsSync(f)) return undefined;
    const g = new GraphDB({ path: f });
    g.open();
    try {
      return g.exportFacts();
    } finally {
      g.close();
    }
  }

  /** Library files: `memories/<id>.md` and `pinned/<file>.json`, relative to the library folder. */
  libraryFiles(): { rel: string; file: string }[] {
    return this.manifest.files.filter((f) => f.part === 'library').map((f) => ({ rel: f.path.slice('library/'.length), file: unpacked(this.dir, f.path) }));
  }

  knowledge(): { name: string; file: string }[] {
    return this.manifest.files.filter((f) => f.part === 'knowledge').map((f) => ({ name: f.path.split('/')[1], file: unpacked(this.dir, f.path) }));
  }

  media(): { rel: string; file: string }[] {
    return this.manifest.files.filter((f) => f.part === 'media').map((f) => ({ rel: f.path.slice('media/'.length), file: unpacked(this.dir, f.path) }));
  }

  /** The Lua adapters (`adapters/<name>.lua`): the adapter's name and the unpacked file. */
  adapters(): { name: string; file: string }[] {
    return this.manifest.files.filter((f) => f.part === 'adapters').map((f) => ({ name: f.path.slice('adapters/'.length, -'.lua'.length), file: unpacked(this.dir, f.path) }));
  }

  persona(): string | undefined {
    return this.text('persona.md');
  }

  settings(): Record<string, unknown> {
    return this.json('settings.json', settingsSchema) ?? {};
  }

  tombstones(): Tombstone[] {
    return this.json('tombstones.json', tombstonesSchema) ?? [];
  }

  /** The replacements the archive carries (none in an export made before decision 0620). */
  replacements(): TransferReplacement[] {
    return this.json('replacements.json', replacementsSchema) ?? [];
  }
}
