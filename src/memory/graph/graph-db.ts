import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { GraphEntity, GraphRelation, PluginLogger, Triple } from '../../spec/index.js';
import { ConflictError, HomeAgentError, NotFoundError, ValidationError } from '../../spec/index.js';
import { migrateGraph } from './graph-migrations.js';
import { cleanPredicate, combineConfidence, escapeLike, GRAPH_LIMITS, parseDepth, parseKeywords, parseName, parseTriples } from './graph-input.js';

/** Default confidence of a triple committed without one. */
export const DEFAULT_CONFIDENCE = 0.8;
const GENERIC_TYPE = 'entity';

interface EntityRow { id: number; name: string; type: string; attributes: string; created_at: number; updated_at: number; recalled_at: number | null; recall_count: number }
interface RelationRow { id: number; subject_id: number; predicate: string; object_id: number; confidence: number; sentence: string | null; refs: string; subject: string; object: string; created_at: number; reviewed_at: number | null }

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
}

function parseJson<T>(text: string | null, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function toEntity(r: EntityRow): GraphEntity {
  return { id: r.id, name: r.name, type: r.type, attributes: parseJson<Record<string, unknown>>(r.attributes, {}) };
}

function toRelation(r: RelationRow): GraphRelation {
  const rel: GraphRelation = { id: r.id, subject: r.subject, predicate: r.predicate, object: r.object, confidence: r.confidence };
  if (r.sentence) rel.sentence = r.sentence;
  const refs = parseJson<string[]>(r.refs, []);
  if (refs.length) rel.refs = refs;
  return rel;
}

const REL_SELECT = `SELECT r.*, s.name AS subject, o.name AS object FROM relations r JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id`;

/** True when an error from better-sqlite3 means the file is not a usable database. */
function isCorruption(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT' || (e instanceof GraphCorruptError);
}

class GraphCorruptError extends Error {}

/**
 * The knowledge graph (T-4): SQLite `graph.db` in WAL mode with `entities` and `relations`.
 * Every write runs in a transaction; every query is parameterized.
 */
export class GraphDB {
  private db: Database.Database | undefined;
  private readonly now: () => number;
  private readonly cache = new Map<string, Database.Statement>();
  private cacheOf: Database.Database | undefined;

  constructor(private readonly opts: GraphDBOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Path of the database file. */
  get path(): string {
    return this.opts.path;
  }

  /** True between open() and close(). */
  get isOpen(): boolean {
    return this.db !== undefined;
  }

  /**
   * Opens (creating and migrating) graph.db. A corrupt file is renamed to
   * `graph.db.corrupt-<time>` with a log line, and a fresh database is started.
   */
  open(): void {
    if (this.db) return;
    fs.mkdirSync(path.dirname(this.opts.path), { recursive: true });
    try {
      this.db = this.connect();
    } catch (e) {
      if (!isCorruption(e)) throw e;
      const aside = `${this.opts.path}.corrupt-${this.now()}`;
      for (const suffix of ['', '-wal', '-shm']) {
        if (fs.existsSync(this.opts.path + suffix)) fs.renameSync(this.opts.path + suffix, aside + suffix);
      }
      this.opts.log?.error(`graph.db is corrupt (${(e as Error).message}); kept aside as ${aside}; starting a fresh graph`, { path: this.opts.path, aside });
      this.db = this.connect();
    }
  }

  private connect(): Database.Database {
    const db = new Database(this.opts.path);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
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

  private get conn(): Database.Database {
    if (!this.db) throw new HomeAgentError('GRAPH_CLOSED', 'the graph database is not open');
    return this.db;
  }

  /** Prepared statements are cached per connection (preparing dominates small queries). */
  private stmt(sql: string): Database.Statement {
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

  private entityRow(name: string): EntityRow | undefined {
    return this.stmt('SELECT * FROM entities WHERE name = ?').get(name) as EntityRow | undefined;
  }

  private requireEntity(name: string): EntityRow {
    const row = this.entityRow(name);
    if (!row) throw new NotFoundError('entity', name);
    return row;
  }

  private upsertEntity(name: string, type: string | undefined, t: number): number {
    const row = this.entityRow(name);
    if (row) {
      const newType = type && row.type === GENERIC_TYPE ? type : row.type;
      this.stmt('UPDATE entities SET type = ?, updated_at = ? WHERE id = ?').run(newType, t, row.id);
      return row.id;
    }
    const r = this.stmt('INSERT INTO entities(name, type, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(name, type || GENERIC_TYPE, '{}', t, t);
    return Number(r.lastInsertRowid);
  }

  /** Adds (or strengthens) one relation between two entity ids; returns its id. */
  private addRelation(s: number, predicate: string, o: number, confidence: number, sentence: string | undefined, refs: string[], t: number, speaker?: string): number {
    const existing = this.stmt('SELECT id, confidence, sentence, refs FROM relations WHERE subject_id = ? AND predicate = ? AND object_id = ?').get(s, predicate, o) as
      | { id: number; confidence: number; sentence: string | null; refs: string }
      | undefined;
    let id: number;
    if (existing) {
      const mergedRefs = [...new Set([...parseJson<string[]>(existing.refs, []), ...refs])].slice(-GRAPH_LIMITS.refs);
      this.stmt('UPDATE relations SET confidence = ?, sentence = COALESCE(sentence, ?), refs = ?, updated_at = ? WHERE id = ?')
        .run(combineConfidence(existing.confidence, confidence), sentence ?? null, JSON.stringify(mergedRefs), t, existing.id);
      id = existing.id;
    } else {
      const r = this.stmt('INSERT INTO relations(subject_id, predicate, object_id, confidence, sentence, refs, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(s, predicate, o, confidence, sentence ?? null, JSON.stringify(refs), t, t);
      id = Number(r.lastInsertRowid);
    }
    const src = this.stmt('INSERT OR IGNORE INTO relation_sources(relation_id, ref, speaker_id) VALUES (?, ?, ?)');
    for (const ref of refs) src.run(id, ref, speaker ?? null);
    return id;
  }

  /** The sources of a relation (turn / event ids) with who said them. */
  sourcesOf(relationId: number): { ref: string; speaker?: string }[] {
    return (this.stmt('SELECT ref, speaker_id FROM relation_sources WHERE relation_id = ? ORDER BY ref').all(relationId) as { ref: string; speaker_id: string | null }[]).map((r) =>
      r.speaker_id ? { ref: r.ref, speaker: r.speaker_id } : { ref: r.ref },
    );
  }

  /**
   * Removes the given sources (turn or event ids) from every relation; a relation left without any
   * source is deleted, and so is an entity left without relations or attributes. The seam of forget
   * (K-2): facts distilled only from forgotten turns go with them. Relations that never had a
   * source (committed without refs) are not touched.
   */
  deleteByRefs(refs: readonly string[]): { relations: number; entities: number } {
    if (!refs.length) return { relations: 0, entities: 0 };
    return this.conn.transaction(() => {
      const touched = new Set<number>();
      const sel = this.stmt('SELECT relation_id FROM relation_sources WHERE ref = ?').pluck();
      const del = this.stmt('DELETE FROM relation_sources WHERE ref = ?');
      for (const ref of refs) {
        for (const id of sel.all(ref) as number[]) touched.add(id);
        del.run(ref);
      }
      let relations = 0;
      const left = this.stmt('SELECT 1 FROM relation_sources WHERE relation_id = ? LIMIT 1');
      const ends = this.stmt('SELECT subject_id, object_id FROM relations WHERE id = ?');
      const ents = new Set<number>();
      for (const id of touched) {
        if (left.get(id)) continue;
        const e = ends.get(id) as { subject_id: number; object_id: number } | undefined;
        if (e) ents.add(e.subject_id).add(e.object_id);
        relations += this.stmt('DELETE FROM relations WHERE id = ?').run(id).changes;
      }
      let entities = 0;
      for (const id of ents) {
        entities += this.stmt("DELETE FROM entities WHERE id = ? AND attributes = '{}' AND NOT EXISTS (SELECT 1 FROM relations WHERE subject_id = ? OR object_id = ?)").run(id, id, id).changes;
      }
      return { relations, entities };
    })();
  }

  /**
   * Upserts the entities of each triple (with their types) and inserts its relation; an identical
   * relation is not duplicated, its confidence is raised instead. One transaction.
   * @returns the number of triples committed.
   */
  commit(triples: Triple[]): number {
    const clean = parseTriples(triples);
    const t = this.now();
    this.conn.transaction(() => {
      for (const tr of clean) {
        const s = this.upsertEntity(tr.subject, tr.subjectType, t);
        const o = this.upsertEntity(tr.object, tr.objectType, t);
        this.addRelation(s, tr.predicate, o, tr.confidence ?? DEFAULT_CONFIDENCE, tr.sentence, tr.refs ?? [], t, tr.speaker);
      }
    })();
    return clean.length;
  }

  /** Creates an entity if missing (type upgraded from the generic one); returns it. */
  ensureEntity(name: string, type?: string): GraphEntity {
    const n = parseName(name);
    this.upsertEntity(n, type, this.now());
    return toEntity(this.requireEntity(n));
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
    const seeds: number[] = [];
    for (const kw of kws) {
      for (const id of this.matchIds(kw, maxEntities)) {
        if (!seeds.includes(id) && seeds.length < maxEntities) seeds.push(id);
      }
    }
    const result = this.bfs(seeds, d, maxEntities, maxRelations);
    if (opts.touch !== false && seeds.length) {
      const t = this.now();
      const upd = this.stmt('UPDATE entities SET recalled_at = ?, recall_count = recall_count + 1 WHERE id = ?');
      this.conn.transaction(() => seeds.forEach((id) => upd.run(t, id)))();
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

  private bfs(seeds: number[], depth: number, maxEntities: number, maxRelations: number): RecallResult {
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
    return { entities: this.entitiesByIds(order), relations: [...rels.values()].map(toRelation) };
  }

  private entitiesByIds(ids: number[]): GraphEntity[] {
    const byId = new Map<number, GraphEntity>();
    if (ids.length) for (const r of this.stmt('SELECT * FROM entities WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as EntityRow[]) byId.set(r.id, toEntity(r));
    return ids.map((id) => byId.get(id)).filter((e): e is GraphEntity => e !== undefined);
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

  /**
   * Merges entity `drop` into `keep`: relations move over (identical ones combine their
   * confidence, self-loops are dropped), attributes are united (keep wins), `drop`'s name is
   * remembered in `keep.attributes.aliases`, and `drop` is deleted.
   */
  merge(keep: string, drop: string): { kept: string; removed: string; moved: number; combined: number } {
    const k = parseName(keep, 'keep');
    const d = parseName(drop, 'drop');
    return this.conn.transaction(() => {
      const a = this.requireEntity(k);
      const b = this.requireEntity(d);
      if (a.id === b.id) throw new ValidationError('cannot merge an entity into itself', { keep: k, drop: d });
      const t = this.now();
      let moved = 0;
      let combined = 0;
      const rows = this.stmt('SELECT * FROM relations WHERE subject_id = ? OR object_id = ?').all(b.id, b.id) as RelationRow[];
      for (const r of rows) {
        const s = r.subject_id === b.id ? a.id : r.subject_id;
        const o = r.object_id === b.id ? a.id : r.object_id;
        // The relation's sources move with it (who said what survives a merge).
        const sources = this.stmt('SELECT ref, speaker_id FROM relation_sources WHERE relation_id = ?').all(r.id) as { ref: string; speaker_id: string | null }[];
        this.stmt('DELETE FROM relations WHERE id = ?').run(r.id);
        if (s === o) continue;
        const before = this.stmt('SELECT 1 FROM relations WHERE subject_id = ? AND predicate = ? AND object_id = ?').get(s, r.predicate, o);
        const nid = this.addRelation(s, r.predicate, o, r.confidence, r.sentence ?? undefined, [], t);
        const src = this.stmt('INSERT OR IGNORE INTO relation_sources(relation_id, ref, speaker_id) VALUES (?, ?, ?)');
        for (const x of sources) src.run(nid, x.ref, x.speaker_id);
        const merged = [...new Set([...parseJson<string[]>((this.stmt('SELECT refs FROM relations WHERE id = ?').get(nid) as { refs: string }).refs, []), ...parseJson<string[]>(r.refs, [])])].slice(-GRAPH_LIMITS.refs);
        this.stmt('UPDATE relations SET refs = ? WHERE id = ?').run(JSON.stringify(merged), nid);
        if (before) combined++;
        else moved++;
      }
      const attrsA = parseJson<Record<string, unknown>>(a.attributes, {});
      const attrsB = parseJson<Record<string, unknown>>(b.attributes, {});
      const aliases = new Set<string>([...((attrsA.aliases as string[] | undefined) ?? []), ...((attrsB.aliases as string[] | undefined) ?? []), b.name]);
      const attrs = { ...attrsB, ...attrsA, aliases: [...aliases].slice(-20) };
      const type = a.type === GENERIC_TYPE ? b.type : a.type;
      this.stmt('DELETE FROM entities WHERE id = ?').run(b.id);
      this.stmt('UPDATE entities SET attributes = ?, type = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(attrs), type, t, a.id);
      return { kept: a.name, removed: b.name, moved, combined };
    })();
  }

  /** Deletes an entity and every relation it takes part in. */
  deleteEntity(name: string): { entity: string; relations: number } {
    const n = parseName(name);
    return this.conn.transaction(() => {
      const row = this.requireEntity(n);
      const rels = this.stmt('DELETE FROM relations WHERE subject_id = ? OR object_id = ?').run(row.id, row.id).changes;
      this.stmt('DELETE FROM entities WHERE id = ?').run(row.id);
      return { entity: row.name, relations: rels };
    })();
  }

  /** Deletes named entities, listed relations, weak relations and/or orphans. Returns counts. */
  purge(opts: PurgeOptions): { entities: number; relations: number } {
    const names = (opts.names ?? []).map((n) => parseName(n));
    const ids = opts.relationIds ?? [];
    if (!ids.every((i) => Number.isInteger(i))) throw new ValidationError('relation ids must be integers', { key: 'relationIds' });
    if (opts.belowConfidence !== undefined && !(opts.belowConfidence >= 0 && opts.belowConfidence <= 1)) {
      throw new ValidationError('belowConfidence must be between 0 and 1', { key: 'belowConfidence' });
    }
    return this.conn.transaction(() => {
      let entities = 0;
      let relations = 0;
      for (const n of names) {
        const row = this.entityRow(n);
        if (!row) continue;
        relations += this.stmt('DELETE FROM relations WHERE subject_id = ? OR object_id = ?').run(row.id, row.id).changes;
        entities += this.stmt('DELETE FROM entities WHERE id = ?').run(row.id).changes;
      }
      for (const id of ids) relations += this.stmt('DELETE FROM relations WHERE id = ?').run(id).changes;
      if (opts.belowConfidence !== undefined) relations += this.stmt('DELETE FROM relations WHERE confidence < ?').run(opts.belowConfidence).changes;
      if (opts.orphans) {
        entities += this.stmt("DELETE FROM entities WHERE attributes = '{}' AND id NOT IN (SELECT subject_id FROM relations UNION SELECT object_id FROM relations)")
          .run().changes;
      }
      return { entities, relations };
    })();
  }

  /**
   * Renames / retypes an entity and patches its attributes (a `null` value removes a key).
   * Renaming onto another existing entity is a ConflictError: merge them instead.
   */
  editEntity(name: string, patch: EntityPatch): GraphEntity {
    const n = parseName(name);
    return this.conn.transaction(() => {
      const row = this.requireEntity(n);
      let newName = row.name;
      if (patch.name !== undefined) {
        newName = parseName(patch.name, 'new name');
        const other = this.entityRow(newName);
        if (other && other.id !== row.id) throw new ConflictError(`an entity named "${other.name}" already exists; merge them instead`, { name: other.name });
      }
      const type = patch.type !== undefined ? parseName(patch.type, 'type').slice(0, GRAPH_LIMITS.type) : row.type;
      const attrs = parseJson<Record<string, unknown>>(row.attributes, {});
      for (const [key, value] of Object.entries(patch.attributes ?? {})) {
        if (!key || key.length > 64) throw new ValidationError('attribute keys must be 1–64 characters', { key });
        if (value === null) delete attrs[key];
        else attrs[key] = value;
      }
      const json = JSON.stringify(attrs);
      if (json.length > 20_000) throw new ValidationError('attributes are too large (max 20000 characters of JSON)');
      this.stmt('UPDATE entities SET name = ?, type = ?, attributes = ?, updated_at = ? WHERE id = ?').run(newName, type, json, this.now(), row.id);
      return toEntity(this.stmt('SELECT * FROM entities WHERE id = ?').get(row.id) as EntityRow);
    })();
  }

  /** Edits one relation; moving it onto an existing identical relation is a ConflictError. */
  editRelation(id: number, patch: RelationPatch): GraphRelation {
    if (!Number.isInteger(id)) throw new ValidationError('relation id must be an integer', { key: 'id' });
    return this.conn.transaction(() => {
      const row = this.stmt(`${REL_SELECT} WHERE r.id = ?`).get(id) as RelationRow | undefined;
      if (!row) throw new NotFoundError('relation', String(id));
      const t = this.now();
      const s = patch.subject !== undefined ? this.upsertEntity(parseName(patch.subject, 'subject'), undefined, t) : row.subject_id;
      const o = patch.object !== undefined ? this.upsertEntity(parseName(patch.object, 'object'), undefined, t) : row.object_id;
      if (s === o) throw new ValidationError('subject and object are the same entity');
      const predicate = patch.predicate !== undefined ? cleanPredicate(patch.predicate) : row.predicate;
      if (!predicate || predicate.length > GRAPH_LIMITS.predicate) throw new ValidationError('predicate must be 1–100 characters', { key: 'predicate' });
      if (patch.confidence !== undefined && !(patch.confidence >= 0 && patch.confidence <= 1)) throw new ValidationError('confidence must be between 0 and 1', { key: 'confidence' });
      if (patch.sentence !== undefined && patch.sentence.length > GRAPH_LIMITS.sentence) throw new ValidationError('sentence too long', { key: 'sentence' });
      const clash = this.stmt('SELECT id FROM relations WHERE subject_id = ? AND predicate = ? AND object_id = ? AND id != ?').get(s, predicate, o, id);
      if (clash) throw new ConflictError('an identical relation already exists', { id: (clash as { id: number }).id });
      this.stmt('UPDATE relations SET subject_id = ?, predicate = ?, object_id = ?, confidence = ?, sentence = ?, updated_at = ? WHERE id = ?')
        .run(s, predicate, o, patch.confidence ?? row.confidence, patch.sentence ?? row.sentence, t, id);
      return this.relation(id) as GraphRelation;
    })();
  }

  /** One relation by id. */
  relation(id: number): GraphRelation | undefined {
    const row = this.stmt(`${REL_SELECT} WHERE r.id = ?`).get(id) as RelationRow | undefined;
    return row ? toRelation(row) : undefined;
  }

  /** Deletes one relation; false when it did not exist. */
  deleteRelation(id: number): boolean {
    return this.stmt('DELETE FROM relations WHERE id = ?').run(id).changes > 0;
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

  /** Marks relations as reviewed now. */
  markReviewed(ids: number[]): void {
    const t = this.now();
    const st = this.stmt('UPDATE relations SET reviewed_at = ? WHERE id = ?');
    this.conn.transaction(() => ids.forEach((id) => st.run(t, id)))();
  }

  /** Records the LLM's answer about a merge candidate pair (order-insensitive). */
  recordMergeDecision(a: string, b: string, decision: 'merged' | 'distinct'): void {
    const [x, y] = [a, b].sort((p, q) => p.toLowerCase().localeCompare(q.toLowerCase()));
    this.stmt('INSERT OR REPLACE INTO merge_decisions(a, b, decision, decided_at) VALUES (?, ?, ?, ?)').run(x, y, decision, this.now());
  }

  /** True when the pair was already decided. */
  hasMergeDecision(a: string, b: string): boolean {
    const [x, y] = [a, b].sort((p, q) => p.toLowerCase().localeCompare(q.toLowerCase()));
    return this.stmt('SELECT 1 FROM merge_decisions WHERE a = ? AND b = ?').get(x, y) !== undefined;
  }
}
