import type { GraphEntity, GraphRelation, Triple } from '../../spec/index.js';
import { ConflictError, containsAll, NotFoundError, ValidationError } from '../../spec/index.js';
import { cleanPredicate, combineConfidence, GRAPH_LIMITS, parseName, parseTriples, type CleanTriple } from './graph-input.js';
import { EMPTY_STATE, putRelation, readState, undoState, type GraphChange, type GraphState } from './graph-state.js';
import { compactSourceChange } from './source-delta.js';
import { GraphStore, parseJson, REL_SELECT, toEntity, toRelation as toRelationRow, type EntityPatch, type EntityRow, type PurgeOptions, type RelationPatch, type RelationRow } from './graph-store.js';
import { chainIds, hasTimeline, isSingleValued, reorderChain } from './supersede.js';
import { equivalentOf } from './value-equivalents.js';

export { GraphStore };
export type { GraphDBOptions, RecallOptions, RecallResult, GraphNeighborhood, GraphStats, PurgeOptions, EntityPatch, RelationPatch } from './graph-store.js';
import { mergeFacts, readFacts, type FactMergeCounts, type FactMergeOptions, type GraphFacts } from './graph-transfer.js';
import { compactSqlite, scrubbedSqlite, type CompactOutcome } from '../../fs/sqlite/index.js';

/** Default confidence of a triple committed without one. */
export const DEFAULT_CONFIDENCE = 0.8;
const GENERIC_TYPE = 'entity';

/** What `detachRefs` took out: the rows before and after (what a restore puts back). */
export interface DetachResult {
  relations: number;
  entities: number;
  before: GraphState;
  after: GraphState;
}

/**
 * The knowledge graph (T-4) with its writes. Every write runs in a transaction and reports its
 * changes (before / after rows, K-3) to `onChange` once it commits. Facts of single-valued
 * predicates carry when they held (`valid_from` / `valid_to`, K-4): a new value closes the old one.
 */
export class GraphDB extends GraphStore {
  /** Changes of the write in progress (undefined outside a write or when nobody listens). */
  private pending: GraphChange[] | undefined;

  /** Runs `fn` in one transaction; the changes it noted are reported after the commit. */
  private write<T>(fn: () => T): T {
    if (this.pending !== undefined || !this.opts.onChange) return this.conn.transaction(fn)();
    this.pending = [];
    let changes: GraphChange[];
    let out: T;
    try {
      out = this.conn.transaction(fn)();
    } finally {
      changes = this.pending;
      this.pending = undefined;
    }
    if (changes.length) {
      try {
        this.opts.onChange(changes);
      } catch (e) {
        this.opts.log?.warn('graph: recording a change failed', { error: (e as Error).message });
      }
    }
    return out;
  }

  private get tracking(): boolean {
    return this.pending !== undefined;
  }

  private state(ids: { entities?: Iterable<number>; relations?: Iterable<number> }): GraphState {
    return this.tracking ? readState(this.conn, ids) : EMPTY_STATE;
  }

  private note(change: GraphChange): void {
    this.pending?.push(change);
  }

  /** Runs deletes with SQLite's secure_delete on and the WAL truncated after: forgotten text is overwritten on disk (K-2). */
  scrubbed<T>(fn: () => T): T {
    return scrubbedSqlite(this.conn, fn);
  }

  /**
   * After a forget (decision 0400): the name index is merged into one segment — FTS5 keeps a
   * deleted name's trigrams in its older segments until a merge — then the file is rebuilt (when
   * not too large) and the WAL emptied.
   */
  compact(): CompactOutcome {
    try {
      this.conn.prepare("INSERT INTO entities_fts(entities_fts) VALUES ('optimize')").run();
    } catch {
      // A damaged index is the salvage's to mend; the rebuild below still runs.
    }
    return compactSqlite(this.conn);
  }

  private upsertEntity(name: string, type: string | undefined, t: number, created?: number[]): number {
    const row = this.entityRow(name);
    if (row) {
      const newType = type && row.type === GENERIC_TYPE ? type : row.type;
      this.stmt('UPDATE entities SET type = ?, updated_at = ? WHERE id = ?').run(newType, t, row.id);
      return row.id;
    }
    const r = this.stmt('INSERT INTO entities(name, type, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(name, type || GENERIC_TYPE, '{}', t, t);
    const id = Number(r.lastInsertRowid);
    created?.push(id);
    return id;
  }

  /** Adds (or strengthens) one relation between two entity ids; returns its id. */
  private addRelation(s: number, predicate: string, o: number, confidence: number, sentence: string | undefined, refs: string[], t: number, speaker: string | undefined, validFrom: number): number {
    const existing = this.stmt('SELECT id, confidence, sentence, refs, valid_from, valid_to FROM relations WHERE subject_id = ? AND predicate = ? AND object_id = ?').get(s, predicate, o) as
      | { id: number; confidence: number; sentence: string | null; refs: string; valid_from: number | null; valid_to: number | null }
      | undefined;
    let id: number;
    if (existing) {
      const mergedRefs = [...new Set([...parseJson<string[]>(existing.refs, []), ...refs])].slice(-GRAPH_LIMITS.refs);
      // Said again after it had ended (moved back): it holds again from now. Otherwise it held since the earliest saying.
      const back = existing.valid_to !== null && validFrom >= existing.valid_to;
      const since = back ? validFrom : this.earliestSince(s, predicate, o, existing.valid_from ?? validFrom, validFrom);
      const until = back ? null : existing.valid_to;
      this.stmt('UPDATE relations SET confidence = ?, sentence = COALESCE(sentence, ?), refs = ?, updated_at = ?, valid_from = ?, valid_to = ? WHERE id = ?')
        .run(combineConfidence(existing.confidence, confidence), sentence ?? null, JSON.stringify(mergedRefs), t, since, until, existing.id);
      id = existing.id;
    } else {
      const r = this.stmt('INSERT INTO relations(subject_id, predicate, object_id, confidence, sentence, refs, created_at, updated_at, valid_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(s, predicate, o, confidence, sentence ?? null, JSON.stringify(refs), t, t, validFrom);
      id = Number(r.lastInsertRowid);
    }
    const src = this.stmt('INSERT OR IGNORE INTO relation_sources(relation_id, ref, speaker_id) VALUES (?, ?, ?)');
    for (const ref of refs) src.run(id, ref, speaker ?? null);
    return id;
  }

  /** Every entity, relation (with its sources and validity) and merge decision: what an export carries (K-5). */
  exportFacts(): GraphFacts {
    return readFacts(this.conn);
  }

  /** Merges an export's facts in one transaction (see `mergeFacts` for what is a conflict and what each mode does). */
  importFacts(facts: GraphFacts, opts: Omit<FactMergeOptions, 'now'>): FactMergeCounts {
    return this.conn.transaction(() => mergeFacts(this.conn, facts, { ...opts, now: this.now() }))();
  }

  /**
   * When a fact said again at `said` began, given it was known since `since`: the earlier of the
   * two — unless (single-valued) another value began in between, which the earlier saying preceded
   * and the later one replaced (one row per fact keeps its latest stretch).
   */
  private earliestSince(s: number, predicate: string, o: number, since: number, said: number): number {
    if (said >= since) return since;
    if (!isSingleValued(predicate)) return said;
    const between = this.stmt('SELECT 1 FROM relations WHERE subject_id = ? AND predicate = ? AND object_id != ? AND COALESCE(valid_from, created_at) >= ? AND COALESCE(valid_from, created_at) < ? LIMIT 1').get(s, predicate, o, said, since);
    return between ? since : said;
  }

  /**
   * Upserts the entities of each triple (with their types) and inserts its relation; an identical
   * relation is not duplicated, its confidence is raised instead. A value of a single-valued
   * predicate (name, lives_in, works_at, age) closes the subject's previous value at the time the
   * new one was said (`validFrom`, default now) — or, said earlier than the current one, takes its
   * place in the past. One transaction.
   * @returns the number of triples committed.
   */
  /**
   * A job or place said in the other language than the value that holds now ("I work as a nurse"
   * after "我是护士") is that value said again, in its first words (decision 0730): not a new job that
   * ends the first.
   */
  private inTheSameWords(tr: CleanTriple): CleanTriple {
    const s = this.entityRow(tr.subject)?.id;
    if (s === undefined) return tr;
    const main = tr.predicate.replace(/^no_longer_/, '');
    const current = this.stmt('SELECT e.name FROM relations r JOIN entities e ON e.id = r.object_id WHERE r.subject_id = ? AND r.predicate IN (?, ?) AND r.valid_to IS NULL')
      .pluck()
      .all(s, tr.predicate, main) as string[];
    const same = equivalentOf(tr.predicate, tr.object, current);
    return same === undefined ? tr : { ...tr, object: same };
  }

  commit(triples: Triple[]): number {
    const clean = parseTriples(this.opts.admit ? this.opts.admit(triples) : triples);
    const t = this.now();
    this.write(() => {
      for (const tr of clean) this.commitOne(tr, t);
    });
    return clean.length;
  }

  private commitOne(said: CleanTriple, t: number): void {
    const tr = this.inTheSameWords(said);
    const known = [this.entityRow(tr.subject)?.id, this.entityRow(tr.object)?.id].filter((x): x is number => x !== undefined);
    const single = hasTimeline(tr.predicate);
    const sBefore = this.entityRow(tr.subject)?.id;
    const oBefore = this.entityRow(tr.object)?.id;
    const chainBefore = single && sBefore !== undefined ? chainIds(this.conn, sBefore, tr.predicate) : [];
    // The fact itself when it is said again: undo must put its row back, not delete it.
    const sameBefore = this.tracking && sBefore !== undefined && oBefore !== undefined ? (this.stmt('SELECT id FROM relations WHERE subject_id = ? AND predicate = ? AND object_id = ?').pluck().get(sBefore, tr.predicate, oBefore) as number | undefined) : undefined;
    const before = this.state({ entities: known, relations: sameBefore !== undefined ? [...new Set([...chainBefore, sameBefore])] : chainBefore });
    const created: number[] = [];
    const s = this.upsertEntity(tr.subject, tr.subjectType, t, created);
    const o = this.upsertEntity(tr.object, tr.objectType, t, created);
    const existed = this.stmt('SELECT id FROM relations WHERE subject_id = ? AND predicate = ? AND object_id = ?').pluck().get(s, tr.predicate, o) as number | undefined;
    const id = this.addRelation(s, tr.predicate, o, tr.confidence ?? DEFAULT_CONFIDENCE, tr.sentence, tr.refs ?? [], t, tr.speaker, validFrom(tr, t));
    const closed = single ? reorderChain(this.conn, s, tr.predicate).filter((x) => x !== id) : [];
    if (!this.tracking) return;
    const after = this.state({ entities: [s, o], relations: [...new Set([...chainBefore, id])] });
    const replaced = after.relations.filter((r) => closed.includes(r.id) && r.validTo !== null).map((r) => (r.predicate === tr.predicate ? this.nameOf(r.objectId) : `${r.predicate} ${this.nameOf(r.objectId)}`));
    const op = existed !== undefined ? 'update' : replaced.length ? 'supersede' : 'create';
    const fact = `${tr.subject} ${tr.predicate} ${tr.object}`;
    // A fact said again is kept as what changed, not its whole source list (see source-delta.ts).
    const kept = compactSourceChange(before, after);
    this.note({
      kind: 'relation',
      op,
      target: `relation:${id}`,
      subjects: [tr.subject, tr.object],
      summary: op === 'supersede' ? `${fact} (replaces ${replaced.join(', ')})` : op === 'update' ? `${fact} (said again)` : fact,
      refs: tr.refs ?? [],
      before: kept.before,
      after: kept.after,
    });
  }

  private nameOf(entityId: number): string {
    return (this.stmt('SELECT name FROM entities WHERE id = ?').pluck().get(entityId) as string | undefined) ?? String(entityId);
  }

  /** Creates an entity if missing (type upgraded from the generic one); returns it. */
  ensureEntity(name: string, type?: string): GraphEntity {
    const n = parseName(name);
    return this.write(() => {
      const before = this.entityRow(n);
      const created: number[] = [];
      const id = this.upsertEntity(n, type, this.now(), created);
      if (created.length || (before && before.type !== type && type && before.type === GENERIC_TYPE)) {
        this.note({ kind: 'entity', op: created.length ? 'create' : 'update', target: `entity:${n}`, subjects: [n], summary: `entity ${n}${type ? ` (${type})` : ''}`, refs: [], before: before ? this.stateOfEntityRow(before) : EMPTY_STATE, after: this.state({ entities: [id] }) });
      }
      return toEntity(this.requireEntity(n));
    });
  }

  private stateOfEntityRow(row: EntityRow): GraphState {
    return this.tracking ? { entities: [{ id: row.id, name: row.name, type: row.type, attributes: row.attributes, createdAt: row.created_at, updatedAt: row.updated_at }], relations: [] } : EMPTY_STATE;
  }

  /**
   * Merges entity `drop` into `keep`: relations move over (identical ones combine their
   * confidence, self-loops are dropped), attributes are united (keep wins), `drop`'s name is
   * remembered in `keep.attributes.aliases`, and `drop` is deleted.
   */
  merge(keep: string, drop: string): { kept: string; removed: string; moved: number; combined: number } {
    const k = parseName(keep, 'keep');
    const d = parseName(drop, 'drop');
    return this.write(() => {
      const a = this.requireEntity(k);
      const b = this.requireEntity(d);
      if (a.id === b.id) throw new ValidationError('cannot merge an entity into itself', { keep: k, drop: d });
      const touching = (id: number) => this.stmt('SELECT id FROM relations WHERE subject_id = ? OR object_id = ?').pluck().all(id, id) as number[];
      const beforeIds = [...touching(a.id), ...touching(b.id)];
      const before = this.state({ entities: [a.id, b.id], relations: beforeIds });
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
        const was = this.stmt('SELECT 1 FROM relations WHERE subject_id = ? AND predicate = ? AND object_id = ?').get(s, r.predicate, o);
        const nid = this.addRelation(s, r.predicate, o, r.confidence, r.sentence ?? undefined, [], t, undefined, r.valid_from ?? r.created_at);
        const src = this.stmt('INSERT OR IGNORE INTO relation_sources(relation_id, ref, speaker_id) VALUES (?, ?, ?)');
        for (const x of sources) src.run(nid, x.ref, x.speaker_id);
        const merged = [...new Set([...parseJson<string[]>((this.stmt('SELECT refs FROM relations WHERE id = ?').get(nid) as { refs: string }).refs, []), ...parseJson<string[]>(r.refs, [])])].slice(-GRAPH_LIMITS.refs);
        this.stmt('UPDATE relations SET refs = ? WHERE id = ?').run(JSON.stringify(merged), nid);
        if (was) combined++;
        else moved++;
      }
      const attrsA = parseJson<Record<string, unknown>>(a.attributes, {});
      const attrsB = parseJson<Record<string, unknown>>(b.attributes, {});
      const aliases = new Set<string>([...((attrsA.aliases as string[] | undefined) ?? []), ...((attrsB.aliases as string[] | undefined) ?? []), b.name]);
      const attrs = { ...attrsB, ...attrsA, aliases: [...aliases].slice(-20) };
      const type = a.type === GENERIC_TYPE ? b.type : a.type;
      this.stmt('DELETE FROM entities WHERE id = ?').run(b.id);
      this.stmt('UPDATE entities SET attributes = ?, type = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(attrs), type, t, a.id);
      this.reorderSubject(a.id);
      this.note({ kind: 'entity', op: 'merge', target: `entity:${a.name}`, subjects: [a.name, b.name], summary: `merged ${b.name} into ${a.name}`, refs: [], before, after: this.state({ entities: [a.id], relations: [...beforeIds, ...touching(a.id)] }) });
      return { kept: a.name, removed: b.name, moved, combined };
    });
  }

  /** Recomputes every single-valued timeline of one subject. */
  private reorderSubject(subjectId: number): void {
    const preds = this.stmt('SELECT DISTINCT predicate FROM relations WHERE subject_id = ?').pluck().all(subjectId) as string[];
    for (const p of preds) reorderChain(this.conn, subjectId, p);
  }

  /** The (subject, predicate) timelines these relations belong to, and every relation in them. */
  private chainsOf(relationIds: readonly number[]): { chains: [number, string][]; ids: number[] } {
    const chains = new Map<string, [number, string]>();
    for (const id of relationIds) {
      const r = this.stmt('SELECT subject_id, predicate FROM relations WHERE id = ?').get(id) as { subject_id: number; predicate: string } | undefined;
      if (r && hasTimeline(r.predicate)) chains.set(`${r.subject_id}\u0000${r.predicate}`, [r.subject_id, r.predicate]);
    }
    const ids = new Set<number>(relationIds);
    for (const [s, p] of chains.values()) for (const id of chainIds(this.conn, s, p)) ids.add(id);
    return { chains: [...chains.values()], ids: [...ids] };
  }

  /** Deletes an entity and every relation it takes part in. */
  deleteEntity(name: string): { entity: string; relations: number } {
    const n = parseName(name);
    return this.write(() => {
      const row = this.requireEntity(n);
      const rels = this.stmt('SELECT id FROM relations WHERE subject_id = ? OR object_id = ?').pluck().all(row.id, row.id) as number[];
      const { chains, ids } = this.chainsOf(rels);
      const before = this.state({ entities: [row.id], relations: ids });
      const count = this.stmt('DELETE FROM relations WHERE subject_id = ? OR object_id = ?').run(row.id, row.id).changes;
      this.stmt('DELETE FROM entities WHERE id = ?').run(row.id);
      for (const [s, p] of chains) reorderChain(this.conn, s, p);
      this.note({ kind: 'entity', op: 'delete', target: `entity:${row.name}`, subjects: [row.name], summary: `deleted ${row.name} and ${count} facts`, refs: [], before, after: this.state({ relations: ids }) });
      return { entity: row.name, relations: count };
    });
  }

  /** Deletes named entities, listed relations, weak relations and/or orphans. Returns counts. */
  purge(opts: PurgeOptions): { entities: number; relations: number } {
    const names = (opts.names ?? []).map((n) => parseName(n));
    const ids = opts.relationIds ?? [];
    if (!ids.every((i) => Number.isInteger(i))) throw new ValidationError('relation ids must be integers', { key: 'relationIds' });
    if (opts.belowConfidence !== undefined && !(opts.belowConfidence >= 0 && opts.belowConfidence <= 1)) {
      throw new ValidationError('belowConfidence must be between 0 and 1', { key: 'belowConfidence' });
    }
    return this.write(() => {
      const entIds = names.map((n) => this.entityRow(n)?.id).filter((x): x is number => x !== undefined);
      const relIds = new Set<number>(ids);
      for (const e of entIds) for (const r of this.stmt('SELECT id FROM relations WHERE subject_id = ? OR object_id = ?').pluck().all(e, e) as number[]) relIds.add(r);
      if (opts.belowConfidence !== undefined) for (const r of this.stmt('SELECT id FROM relations WHERE confidence < ?').pluck().all(opts.belowConfidence) as number[]) relIds.add(r);
      const orphanIds = opts.orphans ? (this.stmt("SELECT id FROM entities WHERE attributes = '{}' AND id NOT IN (SELECT subject_id FROM relations UNION SELECT object_id FROM relations)").pluck().all() as number[]) : [];
      const { chains, ids: all } = this.chainsOf([...relIds]);
      const before = this.state({ entities: [...entIds, ...orphanIds], relations: all });
      let entities = 0;
      let relations = 0;
      for (const e of entIds) {
        relations += this.stmt('DELETE FROM relations WHERE subject_id = ? OR object_id = ?').run(e, e).changes;
        entities += this.stmt('DELETE FROM entities WHERE id = ?').run(e).changes;
      }
      for (const id of ids) relations += this.stmt('DELETE FROM relations WHERE id = ?').run(id).changes;
      if (opts.belowConfidence !== undefined) relations += this.stmt('DELETE FROM relations WHERE confidence < ?').run(opts.belowConfidence).changes;
      if (opts.orphans) {
        entities += this.stmt("DELETE FROM entities WHERE attributes = '{}' AND id NOT IN (SELECT subject_id FROM relations UNION SELECT object_id FROM relations)").run().changes;
      }
      for (const [s, p] of chains) reorderChain(this.conn, s, p);
      if (entities || relations) {
        const subjects = before.entities.map((e) => e.name);
        this.note({ kind: 'relation', op: 'purge', target: `purge:${this.now()}`, subjects, summary: `purged ${relations} facts and ${entities} entities${subjects.length ? ` (${subjects.slice(0, 5).join(', ')})` : ''}`, refs: [], before, after: this.state({ relations: all }) });
      }
      return { entities, relations };
    });
  }

  /**
   * Renames / retypes an entity and patches its attributes (a `null` value removes a key).
   * Renaming onto another existing entity is a ConflictError: merge them instead.
   */
  editEntity(name: string, patch: EntityPatch): GraphEntity {
    const n = parseName(name);
    return this.write(() => {
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
      const before = this.stateOfEntityRow(row);
      this.stmt('UPDATE entities SET name = ?, type = ?, attributes = ?, updated_at = ? WHERE id = ?').run(newName, type, json, this.now(), row.id);
      const what = [newName !== row.name ? `renamed to ${newName}` : '', type !== row.type ? `type ${type}` : '', json !== row.attributes ? `attributes ${json.slice(0, 120)}` : ''].filter(Boolean).join('; ');
      if (what) this.note({ kind: 'entity', op: 'update', target: `entity:${newName}`, subjects: [...new Set([row.name, newName])], summary: `${row.name}: ${what}`, refs: [], before, after: this.state({ entities: [row.id] }) });
      return toEntity(this.stmt('SELECT * FROM entities WHERE id = ?').get(row.id) as EntityRow);
    });
  }

  /** Edits one relation; moving it onto an existing identical relation is a ConflictError. */
  editRelation(id: number, patch: RelationPatch): GraphRelation {
    if (!Number.isInteger(id)) throw new ValidationError('relation id must be an integer', { key: 'id' });
    return this.write(() => {
      const row = this.stmt(`${REL_SELECT} WHERE r.id = ?`).get(id) as RelationRow | undefined;
      if (!row) throw new NotFoundError('relation', String(id));
      const t = this.now();
      const { ids: chainBefore } = this.chainsOf([id]);
      const before = this.state({ entities: [row.subject_id, row.object_id], relations: chainBefore });
      const created: number[] = [];
      const s = patch.subject !== undefined ? this.upsertEntity(parseName(patch.subject, 'subject'), undefined, t, created) : row.subject_id;
      const o = patch.object !== undefined ? this.upsertEntity(parseName(patch.object, 'object'), undefined, t, created) : row.object_id;
      if (s === o) throw new ValidationError('subject and object are the same entity');
      const predicate = patch.predicate !== undefined ? cleanPredicate(patch.predicate) : row.predicate;
      if (!predicate || predicate.length > GRAPH_LIMITS.predicate) throw new ValidationError('predicate must be 1–100 characters', { key: 'predicate' });
      if (patch.confidence !== undefined && !(patch.confidence >= 0 && patch.confidence <= 1)) throw new ValidationError('confidence must be between 0 and 1', { key: 'confidence' });
      if (patch.sentence !== undefined && patch.sentence.length > GRAPH_LIMITS.sentence) throw new ValidationError('sentence too long', { key: 'sentence' });
      const clash = this.stmt('SELECT id FROM relations WHERE subject_id = ? AND predicate = ? AND object_id = ? AND id != ?').get(s, predicate, o, id);
      if (clash) throw new ConflictError('an identical relation already exists', { id: (clash as { id: number }).id });
      this.stmt('UPDATE relations SET subject_id = ?, predicate = ?, object_id = ?, confidence = ?, sentence = ?, updated_at = ? WHERE id = ?')
        .run(s, predicate, o, patch.confidence ?? row.confidence, patch.sentence ?? row.sentence, t, id);
      reorderChain(this.conn, row.subject_id, row.predicate);
      reorderChain(this.conn, s, predicate);
      const { ids: chainAfter } = this.chainsOf([id]);
      const rel = this.relation(id) as GraphRelation;
      this.note({
        kind: 'relation',
        op: 'update',
        target: `relation:${id}`,
        subjects: [...new Set([row.subject, row.object, rel.subject, rel.object])],
        summary: `${row.subject} ${row.predicate} ${row.object} → ${rel.subject} ${rel.predicate} ${rel.object}${patch.confidence !== undefined ? ` (${patch.confidence.toFixed(2)})` : ''}`,
        refs: rel.refs ?? [],
        before,
        after: this.state({ entities: [s, o, row.subject_id, row.object_id], relations: [...new Set([...chainBefore, ...chainAfter])] }),
      });
      return rel;
    });
  }

  /**
   * Deletes one relation; false when it did not exist. When it was the current value of a
   * single-valued predicate, the one it had replaced holds again.
   */
  deleteRelation(id: number): boolean {
    return this.write(() => {
      const row = this.stmt(`${REL_SELECT} WHERE r.id = ?`).get(id) as RelationRow | undefined;
      if (!row) return false;
      const { chains, ids } = this.chainsOf([id]);
      const before = this.state({ entities: [row.subject_id, row.object_id], relations: ids });
      this.stmt('DELETE FROM relations WHERE id = ?').run(id);
      for (const [s, p] of chains) reorderChain(this.conn, s, p);
      this.note({ kind: 'relation', op: 'delete', target: `relation:${id}`, subjects: [row.subject, row.object], summary: `deleted ${row.subject} ${row.predicate} ${row.object}`, refs: parseJson<string[]>(row.refs, []), before, after: this.state({ relations: ids }) });
      return true;
    });
  }

  /** Marks relations as reviewed now (not a change of what is known). */
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

  /**
   * Takes the given sources (turn or event ids) out of the graph (forget, K-2; exclusion, M-9): a
   * relation left without any source is deleted, and so is an entity left without relations or
   * attributes (and the merge decisions that name it); a relation that keeps other sources loses
   * these refs, and its source sentence when that sentence is in one of `texts` (it was said in a
   * turn that goes). Timelines of single-valued predicates are recomputed. Relations that never had
   * a source (committed without refs) are not touched. Not recorded as a change: the caller records
   * the exclusion or the forget. Returns the rows before and after (what a restore puts back).
   */
  detachRefs(refs: readonly string[], texts: readonly string[] = []): DetachResult {
    if (!refs.length) return { relations: 0, entities: 0, before: EMPTY_STATE, after: EMPTY_STATE };
    const db = this.conn;
    return db.transaction(() => {
      const { touched, chains, ids, ends } = this.refScope(refs);
      if (!touched.size) return { relations: 0, entities: 0, before: EMPTY_STATE, after: EMPTY_STATE };
      const before = readState(db, { entities: ends, relations: ids });
      const gone = new Set(refs);
      const del = this.stmt('DELETE FROM relation_sources WHERE relation_id = ? AND ref = ?');
      let relations = 0;
      for (const id of touched) {
        for (const ref of refs) del.run(id, ref);
        if (this.stmt('SELECT 1 FROM relation_sources WHERE relation_id = ? LIMIT 1').get(id)) {
          const row = this.stmt('SELECT refs, sentence FROM relations WHERE id = ?').get(id) as { refs: string; sentence: string | null };
          const kept = parseJson<string[]>(row.refs, []).filter((r) => !gone.has(r));
          const sentence = row.sentence && texts.some((t) => t.includes(row.sentence as string)) ? null : row.sentence;
          this.stmt('UPDATE relations SET refs = ?, sentence = ? WHERE id = ?').run(JSON.stringify(kept), sentence, id);
        } else relations += this.stmt('DELETE FROM relations WHERE id = ?').run(id).changes;
      }
      const entities = this.dropBareEntities(ends);
      for (const [s, p] of chains) reorderChain(db, s, p);
      return { relations, entities, before, after: readState(db, { entities: ends, relations: ids }) };
    })();
  }

  /**
   * Keeps facts a forget would take with their turns, because the person chose to (decision 0520):
   * each of `ids` whose every source is one of `refs` loses those sources, its source sentence (said
   * in a turn that goes) and those refs, and cites `keptRef` alone — with who stated it (the first
   * speaker its sources recorded), so 【记忆索引】 still says whose fact it is. Its subject,
   * predicate, object, confidence and timeline stay. A fact that keeps another source is left to
   * {@link detachRefs}. Not recorded as a change: the forget records it. Returns the facts kept.
   */
  keepFacts(ids: readonly number[], refs: readonly string[], keptRef: string): number[] {
    if (!ids.length || !refs.length) return [];
    const gone = new Set(refs);
    return this.conn.transaction(() => {
      const kept: number[] = [];
      for (const id of new Set(ids)) {
        const sources = this.stmt('SELECT ref, speaker_id FROM relation_sources WHERE relation_id = ? ORDER BY ref').all(id) as { ref: string; speaker_id: string | null }[];
        if (!sources.length || !sources.every((s) => gone.has(s.ref))) continue;
        const row = this.stmt('SELECT refs FROM relations WHERE id = ?').get(id) as { refs: string } | undefined;
        if (!row) continue;
        const speaker = sources.find((s) => s.speaker_id)?.speaker_id ?? null;
        this.stmt('DELETE FROM relation_sources WHERE relation_id = ?').run(id);
        this.stmt('INSERT INTO relation_sources(relation_id, ref, speaker_id) VALUES (?, ?, ?)').run(id, keptRef, speaker);
        const others = parseJson<string[]>(row.refs, []).filter((r) => !gone.has(r) && r !== keptRef);
        this.stmt('UPDATE relations SET refs = ?, sentence = NULL WHERE id = ?').run(JSON.stringify([...others, keptRef]), id);
        kept.push(id);
      }
      return kept;
    })();
  }

  /** The relations citing `refs`, their timelines and their end entities. */
  private refScope(refs: readonly string[]): { touched: Set<number>; chains: [number, string][]; ids: number[]; ends: Set<number> } {
    const touched = new Set<number>();
    const sel = this.stmt('SELECT relation_id FROM relation_sources WHERE ref = ?').pluck();
    for (const ref of refs) for (const id of sel.all(ref) as number[]) touched.add(id);
    const { chains, ids } = this.chainsOf([...touched]);
    const ends = new Set<number>();
    for (const id of touched) {
      const e = this.stmt('SELECT subject_id, object_id FROM relations WHERE id = ?').get(id) as { subject_id: number; object_id: number } | undefined;
      if (e) ends.add(e.subject_id).add(e.object_id);
    }
    return { touched, chains, ids, ends };
  }

  /** The rows `detachRefs(refs)` would take out, read without changing anything (kept before it runs). */
  peekRefs(refs: readonly string[]): GraphState {
    if (!refs.length) return EMPTY_STATE;
    const { touched, ids, ends } = this.refScope(refs);
    return touched.size ? readState(this.conn, { entities: ends, relations: ids }) : EMPTY_STATE;
  }

  /** The relation ids whose every source is one of `refs` (what a forget of those turns takes with it). */
  onlySourcedBy(refs: readonly string[]): number[] {
    const set = new Set(refs);
    const { touched } = this.refScope(refs);
    return [...touched].filter((id) => (this.stmt('SELECT ref FROM relation_sources WHERE relation_id = ?').pluck().all(id) as string[]).every((r) => set.has(r)));
  }

  /**
   * Relations whose `subject predicate object` or source sentence contains every one of `terms`
   * (lower-cased; forget by words, K-2), at most `limit`.
   */
  matchingFacts(terms: readonly string[], limit = 200): GraphRelation[] {
    const ts = terms.map((t) => t.toLowerCase()).filter(Boolean);
    if (!ts.length) return [];
    const cond = ts.map(() => "instr(lower(s.name || ' ' || replace(r.predicate, '_', ' ') || ' ' || o.name || ' ' || COALESCE(r.sentence, '')), ?) > 0").join(' AND ');
    const rows = this.conn.prepare(`${REL_SELECT} WHERE ${cond} ORDER BY r.id LIMIT ?`).all(...ts, limit) as RelationRow[];
    // The rule of a forget by words over the same text: a number is a whole number ("3456" is not
    // in a phone number 123456789), which SQL's instr cannot say.
    return rows.map((r) => toRelationRow(r)).filter((r) => containsAll(`${r.subject} ${r.predicate.replace(/_/g, ' ')} ${r.object} ${r.sentence ?? ''}`, ts));
  }

  /**
   * Deletes relations without recording them (forget, K-2: the history must not get their text
   * back): their sources, entities left bare (and merge decisions naming them), timelines
   * recomputed. Returns counts.
   */
  forgetRelations(ids: readonly number[]): { relations: number; entities: number } {
    if (!ids.length) return { relations: 0, entities: 0 };
    const db = this.conn;
    return db.transaction(() => {
      const { chains } = this.chainsOf([...ids]);
      const ends = new Set<number>();
      let relations = 0;
      for (const id of ids) {
        const e = this.stmt('SELECT subject_id, object_id FROM relations WHERE id = ?').get(id) as { subject_id: number; object_id: number } | undefined;
        if (!e) continue;
        ends.add(e.subject_id).add(e.object_id);
        relations += this.stmt('DELETE FROM relations WHERE id = ?').run(id).changes;
      }
      const entities = this.dropBareEntities(ends);
      for (const [s, p] of chains) reorderChain(db, s, p);
      return { relations, entities };
    })();
  }

  /** Forget's seam (K-2): {@link detachRefs} with counts only. */
  deleteByRefs(refs: readonly string[], texts: readonly string[] = []): { relations: number; entities: number } {
    const r = this.detachRefs(refs, texts);
    return { relations: r.relations, entities: r.entities };
  }

  /**
   * Puts back what `detachRefs(refs)` took out (restore of an excluded turn, M-9), given the rows
   * before it: each relation that had one of `refs` among its sources gets those sources back (and
   * its sentence and refs when they went), merged with what changed meanwhile — a deleted relation
   * comes back, or joins an identical fact that was learned again; entities are found by name or
   * created. Only the given refs return (a source forgotten meanwhile stays forgotten). Timelines
   * are recomputed. Returns how many relations got sources back.
   */
  reattach(before: GraphState, refs: readonly string[]): number {
    const want = new Set(refs);
    const rels = before.relations.filter((r) => r.sources.some((x) => want.has(x.ref)));
    if (!rels.length) return 0;
    const db = this.conn;
    return db.transaction(() => {
      const entityId = new Map<number, number>();
      const ensure = (old: number): number | undefined => {
        if (entityId.has(old)) return entityId.get(old);
        const e = before.entities.find((x) => x.id === old);
        if (!e) return this.stmt('SELECT 1 FROM entities WHERE id = ?').get(old) ? old : undefined;
        const byName = this.entityRow(e.name);
        let id: number;
        if (byName) id = byName.id;
        else {
          const free = !this.stmt('SELECT 1 FROM entities WHERE id = ?').get(e.id);
          const r = free
            ? this.stmt('INSERT INTO entities(id, name, type, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(e.id, e.name, e.type, e.attributes, e.createdAt, e.updatedAt)
            : this.stmt('INSERT INTO entities(name, type, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(e.name, e.type, e.attributes, e.createdAt, e.updatedAt);
          id = Number(r.lastInsertRowid);
        }
        entityId.set(old, id);
        return id;
      };
      const chains = new Map<string, [number, string]>();
      let n = 0;
      for (const r of rels) {
        const s = ensure(r.subjectId);
        const o = ensure(r.objectId);
        if (s === undefined || o === undefined || s === o) continue;
        const back = r.sources.filter((x) => want.has(x.ref));
        const backRefs = parseJson<string[]>(r.refs, []).filter((x) => want.has(x));
        const same = this.stmt('SELECT id, refs, valid_from FROM relations WHERE subject_id = ? AND predicate = ? AND object_id = ?').get(s, r.predicate, o) as { id: number; refs: string; valid_from: number | null } | undefined;
        let id: number;
        if (same) {
          id = same.id;
          const merged = [...new Set([...parseJson<string[]>(same.refs, []), ...backRefs])].slice(-GRAPH_LIMITS.refs);
          const said = r.validFrom ?? r.createdAt;
          const since = this.earliestSince(s, r.predicate, o, same.valid_from ?? said, said);
          this.stmt('UPDATE relations SET sentence = COALESCE(sentence, ?), refs = ?, valid_from = ? WHERE id = ?').run(r.sentence, JSON.stringify(merged), since, id);
        } else {
          id = this.stmt('SELECT 1 FROM relations WHERE id = ?').get(r.id) ? this.nextRelationId() : r.id;
          putRelation(db, { ...r, id, subjectId: s, objectId: o, refs: JSON.stringify(backRefs), validTo: null, sources: [] });
        }
        const ins = this.stmt('INSERT OR IGNORE INTO relation_sources(relation_id, ref, speaker_id) VALUES (?, ?, ?)');
        for (const x of back) ins.run(id, x.ref, x.speaker);
        if (hasTimeline(r.predicate)) chains.set(`${s}\u0000${r.predicate}`, [s, r.predicate]);
        n++;
      }
      for (const [s, p] of chains.values()) reorderChain(db, s, p);
      return n;
    })();
  }

  /** Deletes the entities among `ends` left with no relation and no attributes (with their merge decisions); returns how many. */
  private dropBareEntities(ends: Iterable<number>): number {
    let entities = 0;
    for (const id of ends) {
      const name = this.stmt('SELECT name FROM entities WHERE id = ?').pluck().get(id) as string | undefined;
      const n = this.stmt("DELETE FROM entities WHERE id = ? AND attributes = '{}' AND NOT EXISTS (SELECT 1 FROM relations WHERE subject_id = ? OR object_id = ?)").run(id, id, id).changes;
      if (n && name) this.stmt('DELETE FROM merge_decisions WHERE a = ? OR b = ?').run(name, name);
      entities += n;
    }
    return entities;
  }

  private nextRelationId(): number {
    return ((this.stmt('SELECT MAX(id) FROM relations').pluck().get() as number | null) ?? 0) + 1;
  }

  /**
   * Undoes a change (K-3): `before` goes back in place of `after` (see `undoState`: a later change
   * of the same rows is a ConflictError), then the touched timelines are recomputed. Not recorded
   * here: the caller records the undo.
   */
  applyUndo(before: GraphState, after: GraphState): void {
    const db = this.conn;
    db.transaction(() => {
      undoState(db, before, after);
      const chains = new Map<string, [number, string]>();
      for (const r of [...before.relations, ...after.relations]) if (hasTimeline(r.predicate)) chains.set(`${r.subjectId}\u0000${r.predicate}`, [r.subjectId, r.predicate]);
      for (const [s, p] of chains.values()) reorderChain(db, s, p);
    })();
  }

  /** The rows of some entities and relations now (history views, tests). */
  stateOf(ids: { entities?: number[]; relations?: number[] }): GraphState {
    return readState(this.conn, ids);
  }
}

/** When a triple's fact began to hold: its source's time, else now. */
function validFrom(t: CleanTriple, now: number): number {
  return typeof t.validFrom === 'number' && Number.isFinite(t.validFrom) ? t.validFrom : now;
}
