import type Database from 'better-sqlite3';
import { ConflictError } from '../../spec/index.js';

/** An entity row as history and exclusion keep it (what undo and restore put back). */
export interface EntityState {
  id: number;
  name: string;
  type: string;
  /** The attributes as stored (JSON text). */
  attributes: string;
  createdAt: number;
  updatedAt: number;
}

/** A relation row with its sources (the turns it was distilled from). */
export interface RelationState {
  id: number;
  subjectId: number;
  predicate: string;
  objectId: number;
  confidence: number;
  sentence: string | null;
  /** The refs column as stored (JSON text). */
  refs: string;
  createdAt: number;
  updatedAt: number;
  reviewedAt: number | null;
  validFrom: number | null;
  validTo: number | null;
  sources: { ref: string; speaker: string | null }[];
  /**
   * Set when history keeps this row as a delta (see `source-delta.ts`): `sources` (and, when
   * `refs` is ''), the refs column are left out. On the after-state of a change it says what the
   * change added and removed; on the before-state it is `{}`.
   */
  delta?: SourceDelta;
}

/** What one change did to a relation's sources and refs column (history of a fact said again). */
export interface SourceDelta {
  sourcesAdded?: { ref: string; speaker: string | null }[];
  sourcesRemoved?: { ref: string; speaker: string | null }[];
  /** How many sources the row had after the change (a later change alters it: conflict). */
  sourceCount?: number;
  /** Refs the change appended to the refs column, and refs it pushed out of its front. */
  refsAdded?: string[];
  refsDropped?: string[];
}

/** Some rows of the graph at one moment: the before or after of a change. */
export interface GraphState {
  entities: EntityState[];
  relations: RelationState[];
}

export const EMPTY_STATE: GraphState = { entities: [], relations: [] };

interface RelRow {
  id: number;
  subject_id: number;
  predicate: string;
  object_id: number;
  confidence: number;
  sentence: string | null;
  refs: string;
  created_at: number;
  updated_at: number;
  reviewed_at: number | null;
  valid_from: number | null;
  valid_to: number | null;
}

interface EntRow {
  id: number;
  name: string;
  type: string;
  attributes: string;
  created_at: number;
  updated_at: number;
}

/** Reads entities and relations by id (absent ids are simply not in the state). */
export function readState(db: Database.Database, ids: { entities?: Iterable<number>; relations?: Iterable<number> }): GraphState {
  const ents = [...new Set(ids.entities ?? [])];
  const rels = [...new Set(ids.relations ?? [])];
  const out: GraphState = { entities: [], relations: [] };
  if (ents.length) {
    const rows = db.prepare('SELECT id, name, type, attributes, created_at, updated_at FROM entities WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id').all(JSON.stringify(ents)) as EntRow[];
    out.entities = rows.map((r) => ({ id: r.id, name: r.name, type: r.type, attributes: r.attributes, createdAt: r.created_at, updatedAt: r.updated_at }));
  }
  if (rels.length) {
    const rows = db.prepare('SELECT * FROM relations WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id').all(JSON.stringify(rels)) as RelRow[];
    const src = db.prepare('SELECT ref, speaker_id FROM relation_sources WHERE relation_id = ? ORDER BY ref');
    out.relations = rows.map((r) => ({
      id: r.id,
      subjectId: r.subject_id,
      predicate: r.predicate,
      objectId: r.object_id,
      confidence: r.confidence,
      sentence: r.sentence,
      refs: r.refs,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      reviewedAt: r.reviewed_at,
      validFrom: r.valid_from,
      validTo: r.valid_to,
      sources: (src.all(r.id) as { ref: string; speaker_id: string | null }[]).map((s) => ({ ref: s.ref, speaker: s.speaker_id })),
    }));
  }
  return out;
}

/** The part of a relation that a later change would alter (times of review and touch left out). */
function relationKey(r: RelationState, withSources = true): string {
  return JSON.stringify([r.subjectId, r.predicate, r.objectId, Math.round(r.confidence * 1e6), r.sentence, r.validFrom, r.validTo, withSources ? r.sources.map((s) => s.ref).sort() : []]);
}

/** True when `cur` is still the row a change left behind (`after`, maybe kept as a delta). */
function unchangedSince(cur: RelationState, after: RelationState): boolean {
  const d = after.delta;
  if (!d) return relationKey(cur) === relationKey(after);
  if (relationKey(cur, false) !== relationKey(after, false) || cur.sources.length !== d.sourceCount) return false;
  const have = new Set(cur.sources.map((s) => s.ref));
  return (d.sourcesAdded ?? []).every((s) => have.has(s.ref)) && !(d.sourcesRemoved ?? []).some((s) => have.has(s.ref));
}

function entityKey(e: EntityState): string {
  return JSON.stringify([e.name.toLowerCase(), e.type, e.attributes]);
}

/**
 * Puts `before` back in place of `after` (undo, K-3), in the caller's transaction. The rows `after`
 * names must still be as the change left them, else a later change touched them: ConflictError
 * (undo that one first). Relations `after` created are deleted, and entities it created go too when
 * nothing else uses them by now.
 */
export function undoState(db: Database.Database, before: GraphState, after: GraphState): void {
  const now = readState(db, { entities: after.entities.map((e) => e.id), relations: after.relations.map((r) => r.id) });
  const nowRel = new Map(now.relations.map((r) => [r.id, r]));
  for (const r of after.relations) {
    const cur = nowRel.get(r.id);
    if (!cur || !unchangedSince(cur, r)) throw new ConflictError(`relation ${r.id} changed after this change; undo the later change first`, { id: r.id });
  }
  const nowEnt = new Map(now.entities.map((e) => [e.id, e]));
  const beforeEnt = new Set(before.entities.map((e) => e.id));
  for (const e of after.entities) {
    const cur = nowEnt.get(e.id);
    // An entity the change created may have gained relations since: that is not a conflict.
    if (beforeEnt.has(e.id) && (!cur || entityKey(cur) !== entityKey(e))) throw new ConflictError(`entity "${e.name}" changed after this change; undo the later change first`, { name: e.name });
  }
  const beforeRel = new Set(before.relations.map((r) => r.id));
  for (const r of after.relations) if (!beforeRel.has(r.id)) db.prepare('DELETE FROM relations WHERE id = ?').run(r.id);
  for (const e of before.entities) putEntity(db, e);
  const afterRel = new Map(after.relations.map((r) => [r.id, r]));
  for (const r of before.relations) putRelation(db, r.delta ? rowBefore(r, afterRel.get(r.id), nowRel.get(r.id)) : r);
  for (const e of after.entities) {
    if (beforeEnt.has(e.id)) continue;
    db.prepare("DELETE FROM entities WHERE id = ? AND attributes = '{}' AND NOT EXISTS (SELECT 1 FROM relations WHERE subject_id = ? OR object_id = ?)").run(e.id, e.id, e.id);
  }
}

/**
 * The whole before-row of a relation history kept as a delta: today's sources (unchanged since the
 * change, checked above) without what it added, with what it removed; the refs column likewise.
 */
function rowBefore(before: RelationState, after: RelationState | undefined, cur: RelationState | undefined): RelationState {
  const d = after?.delta;
  if (!d || !cur) throw new ConflictError(`relation ${before.id}: the history entry is incomplete`, { id: before.id });
  const added = new Set((d.sourcesAdded ?? []).map((s) => s.ref));
  const sources = [...cur.sources.filter((s) => !added.has(s.ref)), ...(d.sourcesRemoved ?? [])];
  let refs = before.refs;
  if (refs === '') {
    const newRefs = new Set(d.refsAdded ?? []);
    refs = JSON.stringify([...(d.refsDropped ?? []), ...(JSON.parse(cur.refs || '[]') as string[]).filter((x) => !newRefs.has(x))]);
  }
  const { delta: _omit, ...row } = before;
  return { ...row, sources, refs };
}

/** Inserts or overwrites an entity row by id; a different entity holding the name → ConflictError. */
export function putEntity(db: Database.Database, e: EntityState): void {
  const clash = db.prepare('SELECT id FROM entities WHERE name = ? AND id != ?').get(e.name, e.id) as { id: number } | undefined;
  if (clash) throw new ConflictError(`another entity is named "${e.name}" now`, { name: e.name });
  const exists = db.prepare('SELECT 1 FROM entities WHERE id = ?').get(e.id);
  if (exists) db.prepare('UPDATE entities SET name = ?, type = ?, attributes = ?, updated_at = ? WHERE id = ?').run(e.name, e.type, e.attributes, e.updatedAt, e.id);
  else db.prepare('INSERT INTO entities(id, name, type, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(e.id, e.name, e.type, e.attributes, e.createdAt, e.updatedAt);
}

/** Inserts or overwrites a relation row by id, with exactly its sources; an identical fact under another id → ConflictError. */
export function putRelation(db: Database.Database, r: RelationState): void {
  const clash = db.prepare('SELECT id FROM relations WHERE subject_id = ? AND predicate = ? AND object_id = ? AND id != ?').get(r.subjectId, r.predicate, r.objectId, r.id) as { id: number } | undefined;
  if (clash) throw new ConflictError(`the same fact exists again as relation ${clash.id}`, { id: clash.id });
  const exists = db.prepare('SELECT 1 FROM relations WHERE id = ?').get(r.id);
  if (exists) {
    db.prepare('UPDATE relations SET subject_id = ?, predicate = ?, object_id = ?, confidence = ?, sentence = ?, refs = ?, updated_at = ?, reviewed_at = ?, valid_from = ?, valid_to = ? WHERE id = ?').run(
      r.subjectId,
      r.predicate,
      r.objectId,
      r.confidence,
      r.sentence,
      r.refs,
      r.updatedAt,
      r.reviewedAt,
      r.validFrom,
      r.validTo,
      r.id,
    );
  } else {
    db.prepare('INSERT INTO relations(id, subject_id, predicate, object_id, confidence, sentence, refs, created_at, updated_at, reviewed_at, valid_from, valid_to) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
      r.id,
      r.subjectId,
      r.predicate,
      r.objectId,
      r.confidence,
      r.sentence,
      r.refs,
      r.createdAt,
      r.updatedAt,
      r.reviewedAt,
      r.validFrom,
      r.validTo,
    );
  }
  db.prepare('DELETE FROM relation_sources WHERE relation_id = ?').run(r.id);
  const ins = db.prepare('INSERT OR IGNORE INTO relation_sources(relation_id, ref, speaker_id) VALUES (?, ?, ?)');
  for (const s of r.sources) ins.run(r.id, s.ref, s.speaker);
}

/**
 * One change of the graph (K-3): what it was, the rows before and after it (what undo puts back),
 * and the sources it came from. `GraphDB` reports them after each write commits.
 */
export interface GraphChange {
  kind: 'relation' | 'entity';
  /** `create`, `update`, `supersede`, `delete`, `merge`, `purge`. */
  op: string;
  /** `relation:<id>` or `entity:<name>`. */
  target: string;
  /** Entity names the change is about (history is looked up by them). */
  subjects: string[];
  summary: string;
  /** The turns / events the fact came from. */
  refs: string[];
  before: GraphState;
  after: GraphState;
}
