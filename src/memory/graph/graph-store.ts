import Database from 'better-sqlite3';
import type { GraphEntity, GraphRelation, PluginLogger, StoreSalvage, Triple } from '../../spec/index.js';
import { HomeAgentError, NotFoundError, salvageInWords } from '../../spec/index.js';
import { migrateGraph } from './graph-migrations.js';
import type { GraphChange } from './graph-state.js';
import { escapeLike, parseDepth, parseKeywords, parseName } from './graph-input.js';
import { privateSqliteFile } from '../../fs/index.js';
import { openSalvaging, secureDeleteOn } from '../../fs/sqlite/index.js';
import { salvageGraphFile } from './graph-salvage.js';

export interface EntityRow { id: number; name: string; type: string; attributes: string; created_at: number; updated_at: number; recalled_at: number | null; recall_count: number }
export interface RelationRow { id: number; subject_id: number; predicate: string; object_id: number; confidence: number; sentence: string | null; refs: string; subject: string; object: string; created_at: number; reviewed_at: number | null; valid_from: number | null; valid_to: number | null }

/** What a recall returns: the entities reached and the relations between them. */
export interface RecallResult { entities: GraphEntity[]; relations: GraphRelation[] }

export interface RecallOptions {
  /** Most entities returned (default 60). */
  maxEntities?: number;
  /** Most relations returned (default 120). */
  maxRelations?: number;
  /** Record the recall on the seed entities (default true). */
  touch?: boolean;
}

/** A node/edge view for the WebUI graph panel. */
export interface GraphNeighborhood {
  center: GraphEntity;
  nodes: { id: number; name: string; type: string }[];
  edges: { id: number; source: number; target: number; predicate: string; confidence: number }[];
}

export interface GraphStats {
  entities: number;
  relations: number;
  persons: number;
  types: Record<string, number>;
  topPredicates: { predicate: string; count: number }[];
  avgConfidence: number;
  unreviewed: number;
}

export interface PurgeOptions {
  names?: string[];
  relationIds?: number[];
  /** Delete relations whose confidence is below this. */
  belowConfidence?: number;
  /** Delete entities without relations and attributes. */
  orphans?: boolean;
}

export interface EntityPatch { name?: string; type?: string; attributes?: Record<string, unknown> }
export interface RelationPatch { subject?: string; predicate?: string; object?: string; confidence?: number; sentence?: string }

export interface GraphDBOptions {
  /** Path of graph.db. */
  path: string;
  log?: PluginLogger;
  now?: () => number;
  /** Every committed write's changes (history, K-3). Called after the transaction commits; must not throw. */
  onChange?: (changes: GraphChange[]) => void;
  /**
   * The gate of every commit (M-9, K-2): returns the triples that may enter (facts citing an
   * excluded turn are held with it, facts of a forgotten turn dropped).
   */
  admit?: (triples: Triple[]) => Triple[];
}

export function parseJson<T>(text: string | null, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function toEntity(r: EntityRow): GraphEntity {
  return { id: r.id, name: r.name, type: r.type, attributes: parseJson<Record<string, unknown>>(r.attributes, {}) };
}

export function toRelation(r: RelationRow): GraphRelation {
  const rel: GraphRelation = { id: r.id, subject: r.subject, predicate: r.predicate, object: r.object, confidence: r.confidence };
  if (r.sentence) rel.sentence = r.sentence;
  const refs = parseJson<string[]>(r.refs, []);
  if (refs.length) rel.refs = refs;
  if (r.valid_from !== null && r.valid_from !== undefined) rel.validFrom = r.valid_from;
  if (r.valid_to !== null && r.valid_to !== undefined) rel.validTo = r.valid_to;
  return rel;
}

/** A breadth-first walk's rows (entities in visiting order, relations in the order taken). */
interface BfsRows {
  entities: EntityRow[];
  relations: RelationRow[];
}

/** What `recall` keeps between calls while the graph is unchanged: seed ids per keyword, walks per seed list. */
interface GraphReads {
  key: string;
  match: Map<string, number[]>;
  bfs: Map<string, BfsRows>;
}

/** Keywords and walks kept, at most (a few KiB each; the cache starts afresh beyond). */
const GRAPH_READS_KEPT = 2_000;

export const REL_SELECT = `SELECT r.*, s.name AS subject, o.name AS object FROM relations r JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id`;

/** True when an error from better-sqlite3 means the file is not a usable database. */
function isCorruption(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT')) || e instanceof GraphCorruptError;
}

class GraphCorruptError extends Error {}

/**
 * The knowledge graph's storage and reads (T-4): SQLite `graph.db` in WAL mode with `entities` and
 * `relations`, every query parameterized. `GraphDB` adds the writes (with their history, K-3).
 */
export class GraphStore {
  private db: Database.Database | undefined;
  protected readonly now: () => number;
  private readonly cache = new Map<string, Database.Statement>();
  private cacheOf: Database.Database | undefined;
  /** Recall's reads of the graph as it was at `key` (see `readCache`). */
  private reads: GraphReads = { key: '', match: new Map(), bfs: new Map() };
  private opens = 0;
  /** Rows changed by recall's own bookkeeping (`recalled_at`, `recall_count`: nothing recall reads). */
  private touches = 0;

  constructor(protected readonly opts: GraphDBOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Path of the database file. */
  get path(): string {
    return this.opts.path;
  }

  private asideAt: { file: string; at: number; salvaged: StoreSalvage } | undefined;

  /**
   * The corrupt file this process set aside when it opened the store (`*.corrupt-<time>`), if
   * any, with what was read back of it into the new graph (decision 0310).
   */
  get setAside(): { file: string; at: number; salvaged: StoreSalvage } | undefined {
    return this.asideAt && { ...this.asideAt, salvaged: { ...this.asideAt.salvaged, tables: { ...this.asideAt.salvaged.tables } } };
  }

  /** True between open() and close(). */
  get isOpen(): boolean {
    return this.db !== undefined;
  }

  /**
   * Opens (creating and migrating) graph.db. A corrupt file is read for what can still be read
   * into a new one (decision 0310: facts, their validity, sources and entities on readable pages),
   * then set aside as `graph.db.corrupt-<time>`, and the new one takes its place — atomically
   * (`openSalvaging`); a log line says how much came back.
   */
  open(): void {
    if (this.db) return;
    this.opens++;
    this.touches = 0;
    const opened = openSalvaging({ file: this.opts.path, now: this.now, connect: () => this.connect(), isCorrupt: isCorruption, salvage: (file, staged) => salvageGraphFile(file, staged) });
    this.db = opened.db;
    const a = opened.aside;
    if (a) {
      const salvaged = a.salvage?.report ?? { read: 0, kept: 0, skipped: 0, unreadablePages: 0, tables: {} };
      this.asideAt = { file: a.file, at: a.at, salvaged };
      const why = a.salvageError ? ` (reading it back failed: ${a.salvageError.message})` : '';
      const sources = a.salvage?.sourcesFromRefs ? `; ${a.salvage.sourcesFromRefs} fact sources put back from the facts' refs` : '';
      this.opts.log?.error(`graph.db is corrupt (${a.error.message}); kept aside as ${a.file}; started a new graph with what could be read back of it${why}: ${salvageInWords(salvaged)}${sources}`, { path: this.opts.path, aside: a.file, salvaged });
    }
  }

  private connect(): Database.Database {
    privateSqliteFile(this.opts.path);
    const db = new Database(this.opts.path);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // What was said leaves no copy in a page when its row moves or goes (decision 0400).
      secureDeleteOn(db);
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 3000');
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new GraphCorruptError(`quick_check: ${String(check)}`);
      migrateGraph(db);
      return db;
    } catch (e) {
      db.close();
      throw e;
    }
  }

  /** Closes the database. Safe to call twice. */
  close(): void {
    if (!this.db) return;
    this.cache.clear();
    this.cacheOf = undefined;
    this.db.close();
    this.db = undefined;
  }

  protected get conn(): Database.Database {
    if (!this.db) throw new HomeAgentError('GRAPH_CLOSED', 'the graph database is not open');
    return this.db;
  }

  /** Prepared statements are cached per connection (preparing dominates small queries). */
  protected stmt(sql: string): Database.Statement {
    const db = this.conn;
    if (this.cacheOf !== db) {
      this.cache.clear();
      this.cacheOf = db;
    }
    let st = this.cache.get(sql);
    if (!st) {
      if (this.cache.size >= 300) this.cache.clear();
      st = db.prepare(sql);
      this.cache.set(sql, st);
    }
    return st;
  }

  protected entityRow(name: string): EntityRow | undefined {
    return this.stmt('SELECT * FROM entities WHERE name = ?').get(name) as EntityRow | undefined;
  }

  protected requireEntity(name: string): EntityRow {
    const row = this.entityRow(name);
    if (!row) throw new NotFoundError('entity', name);
    return row;
  }

  /** The sources of a relation (turn / event ids) with who said them. */
  sourcesOf(relationId: number): { ref: string; speaker?: string }[] {
    return (this.stmt('SELECT ref, speaker_id FROM relation_sources WHERE relation_id = ? ORDER BY ref').all(relationId) as { ref: string; speaker_id: string | null }[]).map((r) =>
      r.speaker_id ? { ref: r.ref, speaker: r.speaker_id } : { ref: r.ref },
    );
  }

  /** One entity by name (case-insensitive), or undefined. */
  getEntity(name: string): GraphEntity | undefined {
    const row = this.entityRow(parseName(name));
    return row ? toEntity(row) : undefined;
  }

  /**
   * Keyword LIKE search (the keywords' `%`/`_` are literal) for seed entities, then BFS over
   * relations in both directions up to `depth`, bounded by `maxEntities`/`maxRelations`.
   */
  recall(keywords: string[], depth = 2, opts: RecallOptions = {}): RecallResult {
    const kws = parseKeywords(keywords);
    const d = parseDepth(depth);
    const maxEntities = opts.maxEntities ?? 60;
    const maxRelations = opts.maxRelations ?? 120;
    // No keyword reads nothing (not even the change counters: a closed graph answers empty, as before).
    if (!kws.length) return { entities: [], relations: [] };
    const reads = this.readCache();
    const seeds: number[] = [];
    for (const kw of kws) {
      const key = `${maxEntities}\u0000${kw}`;
      let ids = reads.match.get(key);
      if (!ids) reads.match.set(key, (ids = this.matchIds(kw, maxEntities)));
      for (const id of ids) {
        if (!seeds.includes(id) && seeds.length < maxEntities) seeds.push(id);
      }
    }
    const key = `${d}:${maxEntities}:${maxRelations}:${seeds.join(',')}`;
    let rows = reads.bfs.get(key);
    if (!rows) reads.bfs.set(key, (rows = this.bfsRows(seeds, d, maxEntities, maxRelations)));
    // Fresh objects for every caller: the kept rows are never handed out.
    const result: RecallResult = { entities: rows.entities.map(toEntity), relations: rows.relations.map(toRelation) };
    if (opts.touch !== false && seeds.length) {
      const t = this.now();
      const upd = this.stmt('UPDATE entities SET recalled_at = ?, recall_count = recall_count + 1 WHERE id = ?');
      this.conn.transaction(() => seeds.forEach((id) => (this.touches += upd.run(t, id).changes)))();
    }
    return result;
  }

  /**
   * Ids of entities whose name contains `kw` (case-insensitive), exact match first, then shortest.
   * 3+ characters go through the trigram index as a quoted phrase; shorter ones through LIKE with
   * `%`, `_` and `\` escaped. Both bind the keyword as a parameter.
   */
  private matchIds(kw: string, limit: number): number[] {
    const order = 'ORDER BY (e.name = ?) DESC, length(e.name) ASC, e.updated_at DESC LIMIT ?';
    const rows =
      [...kw].length >= 3
        ? this.stmt(`SELECT e.id FROM entities_fts f JOIN entities e ON e.id = f.rowid WHERE entities_fts MATCH ? ${order}`).all(`"${kw.replace(/"/g, '""')}"`, kw, limit)
        : this.stmt(`SELECT e.id FROM entities e WHERE e.name LIKE ? ESCAPE '\\' ${order}`).all(`%${escapeLike(kw)}%`, kw, limit);
    return (rows as { id: number }[]).map((r) => r.id);
  }

  /**
   * The reads `recall` keeps for the graph as it is now: emptied whenever anything may have changed
   * it — a write on this connection (SQLite's `total_changes()`, which counts every row any statement
   * or trigger changed), a commit by another connection (`data_version`), a reopen — and bounded.
   * A forgotten fact is therefore never served from here. Recall's own touch of the entities it
   * found (a column no trigger watches and no read here uses) does not count: the indexer touches on
   * every prompt.
   */
  private readCache(): GraphReads {
    const v = this.stmt('SELECT total_changes() AS c, data_version AS d FROM pragma_data_version').get() as { c: number; d: number };
    const key = `${this.opens}:${v.c - this.touches}:${v.d}`;
    if (key !== this.reads.key || this.reads.match.size + this.reads.bfs.size > GRAPH_READS_KEPT) this.reads = { key, match: new Map(), bfs: new Map() };
    return this.reads;
  }

  protected bfs(seeds: number[], depth: number, maxEntities: number, maxRelations: number): RecallResult {
    const rows = this.bfsRows(seeds, depth, maxEntities, maxRelations);
    return { entities: rows.entities.map(toEntity), relations: rows.relations.map(toRelation) };
  }

  private bfsRows(seeds: number[], depth: number, maxEntities: number, maxRelations: number): BfsRows {
    const visited = new Set<number>(seeds);
    const order = [...seeds];
    const rels = new Map<number, RelationRow>();
    let frontier = [...seeds];
    for (let level = 0; level < depth && frontier.length && rels.size < maxRelations; level++) {
      const next: number[] = [];
      {
        const rows = this.stmt(`${REL_SELECT} WHERE r.subject_id IN (SELECT value FROM json_each(@ids)) OR r.object_id IN (SELECT value FROM json_each(@ids)) ORDER BY r.confidence DESC, r.id ASC LIMIT @lim`)
          .all({ ids: JSON.stringify(frontier), lim: maxRelations * 2 }) as RelationRow[];
        for (const row of rows) {
          if (rels.has(row.id) || rels.size >= maxRelations) continue;
          for (const id of [row.subject_id, row.object_id]) {
            if (!visited.has(id) && visited.size < maxEntities) {
              visited.add(id);
              order.push(id);
              next.push(id);
            }
          }
          if (visited.has(row.subject_id) && visited.has(row.object_id)) rels.set(row.id, row);
        }
      }
      frontier = next;
    }
    return { entities: this.entityRowsByIds(order), relations: [...rels.values()] };
  }

  protected entitiesByIds(ids: number[]): GraphEntity[] {
    return this.entityRowsByIds(ids).map(toEntity);
  }

  private entityRowsByIds(ids: number[]): EntityRow[] {
    const byId = new Map<number, EntityRow>();
    if (ids.length) for (const r of this.stmt('SELECT * FROM entities WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as EntityRow[]) byId.set(r.id, r);
    return ids.map((id) => byId.get(id)).filter((e): e is EntityRow => e !== undefined);
  }

  /** BFS from one entity by exact name (no LIKE), as a recall result; NotFoundError if missing. */
  expand(name: string, depth = 1, opts: Omit<RecallOptions, 'touch'> = {}): RecallResult {
    const row = this.requireEntity(parseName(name));
    return this.bfs([row.id], parseDepth(depth), opts.maxEntities ?? 60, opts.maxRelations ?? 120);
  }

  /** The 1…depth-hop neighborhood of one entity, as nodes and edges (WebUI graph view). */
  neighborhood(name: string, depth = 1, limit = 150): GraphNeighborhood {
    const center = this.requireEntity(parseName(name));
    const r = this.bfs([center.id], parseDepth(depth), limit, limit * 2);
    const ids = new Map(r.entities.map((e) => [e.name.toLowerCase(), e.id]));
    return {
      center: toEntity(center),
      nodes: r.entities.map((e) => ({ id: e.id, name: e.name, type: e.type })),
      edges: r.relations.map((rel) => ({
        id: rel.id,
        source: ids.get(rel.subject.toLowerCase()) ?? -1,
        target: ids.get(rel.object.toLowerCase()) ?? -1,
        predicate: rel.predicate,
        confidence: rel.confidence,
      })),
    };
  }

  /** One relation by id. */
  relation(id: number): GraphRelation | undefined {
    const row = this.stmt(`${REL_SELECT} WHERE r.id = ?`).get(id) as RelationRow | undefined;
    return row ? toRelation(row) : undefined;
  }

  /** Counts for `memory_introspect` and the WebUI. */
  stats(): GraphStats {
    const c = this.conn;
    const types: Record<string, number> = {};
    for (const r of c.prepare('SELECT type, COUNT(*) AS n FROM entities GROUP BY type ORDER BY n DESC LIMIT 50').all() as { type: string; n: number }[]) types[r.type] = r.n;
    const rel = c.prepare('SELECT COUNT(*) AS n, AVG(confidence) AS avg, SUM(CASE WHEN reviewed_at IS NULL AND sentence IS NOT NULL THEN 1 ELSE 0 END) AS unreviewed FROM relations').get() as {
      n: number;
      avg: number | null;
      unreviewed: number | null;
    };
    return {
      entities: (c.prepare('SELECT COUNT(*) AS n FROM entities').get() as { n: number }).n,
      relations: rel.n,
      persons: types.person ?? 0,
      types,
      topPredicates: c.prepare('SELECT predicate, COUNT(*) AS count FROM relations GROUP BY predicate ORDER BY count DESC LIMIT 10').all() as { predicate: string; count: number }[],
      avgConfidence: rel.avg ?? 0,
      unreviewed: rel.unreviewed ?? 0,
    };
  }

  /** Entities whose name contains `q` (literal match, case-insensitive for ASCII). */
  search(q: string, limit = 20): GraphEntity[] {
    const [kw] = parseKeywords([q]);
    if (!kw) return [];
    return this.entitiesByIds(this.matchIds(kw, Math.min(Math.max(1, limit), 500)));
  }

  /** A page of entities, newest first. */
  listEntities(opts: { limit?: number; offset?: number; type?: string } = {}): { total: number; items: GraphEntity[] } {
    const limit = Math.min(Math.max(1, opts.limit ?? 50), 1000);
    const offset = Math.max(0, opts.offset ?? 0);
    const where = opts.type ? 'WHERE type = ?' : '';
    const args = opts.type ? [opts.type] : [];
    const total = (this.stmt(`SELECT COUNT(*) AS n FROM entities ${where}`).get(...args) as { n: number }).n;
    const rows = this.stmt(`SELECT * FROM entities ${where} ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?`).all(...args, limit, offset) as EntityRow[];
    return { total, items: rows.map(toEntity) };
  }

  /** A page of relations, optionally only those touching one entity. */
  relations(opts: { entity?: string; limit?: number; offset?: number } = {}): { total: number; items: GraphRelation[] } {
    const limit = Math.min(Math.max(1, opts.limit ?? 100), 1000);
    const offset = Math.max(0, opts.offset ?? 0);
    if (opts.entity !== undefined) {
      const row = this.entityRow(parseName(opts.entity, 'entity'));
      if (!row) return { total: 0, items: [] };
      const total = (this.stmt('SELECT COUNT(*) AS n FROM relations WHERE subject_id = ? OR object_id = ?').get(row.id, row.id) as { n: number }).n;
      const rows = this.stmt(`${REL_SELECT} WHERE r.subject_id = ? OR r.object_id = ? ORDER BY r.confidence DESC, r.id LIMIT ? OFFSET ?`).all(row.id, row.id, limit, offset) as RelationRow[];
      return { total, items: rows.map(toRelation) };
    }
    const total = (this.stmt('SELECT COUNT(*) AS n FROM relations').get() as { n: number }).n;
    const rows = this.stmt(`${REL_SELECT} ORDER BY r.id DESC LIMIT ? OFFSET ?`).all(limit, offset) as RelationRow[];
    return { total, items: rows.map(toRelation) };
  }

  /** Changes whenever an entity is added, renamed, merged or removed (cheap: two aggregates over indexes). */
  entityVersion(): string {
    const r = this.stmt('SELECT count(*) AS n, max(updated_at) AS u, max(id) AS m FROM entities').get() as { n: number; u: number | null; m: number | null };
    return `${r.n}:${r.u ?? 0}:${r.m ?? 0}`;
  }

  /** Names of the most recently updated entities (merge detection, entity vector search). */
  entityNames(limit = 5000): string[] {
    return (this.stmt('SELECT name FROM entities ORDER BY updated_at DESC, id DESC LIMIT ?').all(limit) as { name: string }[]).map((r) => r.name);
  }

  /** Relations with a source sentence that were never reviewed (oldest first). */
  relationsForReview(limit = 20): GraphRelation[] {
    const rows = this.stmt(`${REL_SELECT} WHERE r.reviewed_at IS NULL AND r.sentence IS NOT NULL ORDER BY r.created_at, r.id LIMIT ?`).all(limit) as RelationRow[];
    return rows.map(toRelation);
  }

  /** True when the pair was already decided. */
  hasMergeDecision(a: string, b: string): boolean {
    const [x, y] = [a, b].sort((p, q) => p.toLowerCase().localeCompare(q.toLowerCase()));
    return this.stmt('SELECT 1 FROM merge_decisions WHERE a = ? AND b = ?').get(x, y) !== undefined;
  }

  /**
   * The relations of one subject with one predicate, newest validity first (current first): what
   * it was and since when (K-4) — `user lives_in` → 上海 (now), 杭州 (until the move).
   */
  relationsOf(subject: string, predicate: string): GraphRelation[] {
    const row = this.entityRow(parseName(subject, 'subject'));
    if (!row) return [];
    const rows = this.stmt(`${REL_SELECT} WHERE r.subject_id = ? AND r.predicate = ? ORDER BY (r.valid_to IS NULL) DESC, COALESCE(r.valid_from, r.created_at) DESC, r.id DESC LIMIT 50`).all(row.id, predicate) as RelationRow[];
    return rows.map(toRelation);
  }
}
