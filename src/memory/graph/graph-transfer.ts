import type Database from 'better-sqlite3';

/** An entity as an export carries it. */
export interface FactEntity {
  name: string;
  type: string;
  attributes: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

/** A relation as an export carries it, with its sources (the turns it was distilled from). */
export interface FactRelation {
  subject: string;
  predicate: string;
  object: string;
  confidence: number;
  sentence: string | null;
  refs: string[];
  createdAt: number;
  updatedAt: number;
  reviewedAt: number | null;
  /** Since when the fact holds and until when (a later value replaced it, K-4); absent in exports that predate it. */
  validFrom?: number | null;
  validTo?: number | null;
  sources: { ref: string; speaker: string | null }[];
}

/** Everything graph.db holds that is the person's (K-5). */
export interface GraphFacts {
  entities: FactEntity[];
  relations: FactRelation[];
  mergeDecisions: { a: string; b: string; decision: string; decidedAt: number }[];
}

/** How an import treats a relation or entity that exists on both sides and differs. */
export interface FactMergeOptions {
  mode: 'skip' | 'overwrite' | 'keep-both';
  /** A source ref as it is imported: renamed (keep-both sessions), or undefined when it was forgotten. */
  mapRef: (ref: string) => string | undefined;
  /** True when the fact itself was forgotten (forget by fact, K-2). */
  isForgottenFact?: (subject: string, predicate: string, object: string) => boolean;
  now: number;
}

/** Counts of a facts import (entities and relations together). */
export interface FactMergeCounts {
  added: number;
  same: number;
  conflicts: number;
  skipped: number;
  overwritten: number;
  keptBoth: number;
  forgotten: number;
}

function json<T>(s: string | null, fallback: T): T {
  if (!s) return fallback;
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
}

/** Reads every entity, relation (with sources) and merge decision. */
export function readFacts(db: Database.Database): GraphFacts {
  const entities = (db.prepare('SELECT name, type, attributes, created_at, updated_at FROM entities ORDER BY id').all() as { name: string; type: string; attributes: string; created_at: number; updated_at: number }[]).map((r) => ({
    name: r.name,
    type: r.type,
    attributes: json<Record<string, unknown>>(r.attributes, {}),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
  const sources = new Map<number, { ref: string; speaker: string | null }[]>();
  for (const s of db.prepare('SELECT relation_id, ref, speaker_id FROM relation_sources ORDER BY relation_id, ref').all() as { relation_id: number; ref: string; speaker_id: string | null }[]) {
    let l = sources.get(s.relation_id);
    if (!l) sources.set(s.relation_id, (l = []));
    l.push({ ref: s.ref, speaker: s.speaker_id });
  }
  const relations = (
    db.prepare('SELECT r.id, s.name AS subject, r.predicate, o.name AS object, r.confidence, r.sentence, r.refs, r.created_at, r.updated_at, r.reviewed_at, r.valid_from, r.valid_to FROM relations r JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id ORDER BY r.id').all() as {
      id: number; subject: string; predicate: string; object: string; confidence: number; sentence: string | null; refs: string; created_at: number; updated_at: number; reviewed_at: number | null; valid_from: number | null; valid_to: number | null;
    }[]
  ).map((r) => ({ subject: r.subject, predicate: r.predicate, object: r.object, confidence: r.confidence, sentence: r.sentence, refs: json<string[]>(r.refs, []), createdAt: r.created_at, updatedAt: r.updated_at, reviewedAt: r.reviewed_at, validFrom: r.valid_from, validTo: r.valid_to, sources: sources.get(r.id) ?? [] }));
  const mergeDecisions = (db.prepare('SELECT a, b, decision, decided_at FROM merge_decisions').all() as { a: string; b: string; decision: string; decided_at: number }[]).map((d) => ({ a: d.a, b: d.b, decision: d.decision, decidedAt: d.decided_at }));
  return { entities, relations, mergeDecisions };
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');

/**
 * Merges facts into graph.db inside the caller's transaction. An entity is the same by name
 * (case-insensitive), a relation by (subject, predicate, object). A relation whose every source
 * was forgotten is not imported, and neither is an entity that only such relations held.
 * Conflicts: `skip` keeps ours; `overwrite` takes theirs (confidence, sentence, sources; an
 * entity's type and attributes); `keep-both` keeps ours and adds their sources (a fact cannot be
 * held twice), confidence the higher, attributes ours plus theirs where ours lack a key.
 */
export function mergeFacts(db: Database.Database, facts: GraphFacts, opts: FactMergeOptions): FactMergeCounts {
  const c: FactMergeCounts = { added: 0, same: 0, conflicts: 0, skipped: 0, overwritten: 0, keptBoth: 0, forgotten: 0 };
  const entityByName = db.prepare('SELECT id, type, attributes FROM entities WHERE name = ?');
  const insEntity = db.prepare('INSERT INTO entities(name, type, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
  const updEntity = db.prepare('UPDATE entities SET type = ?, attributes = ?, updated_at = ? WHERE id = ?');
  const relBySpo = db.prepare('SELECT id, confidence, sentence, refs, valid_from, valid_to FROM relations WHERE subject_id = ? AND predicate = ? AND object_id = ?');
  const srcOf = db.prepare('SELECT ref FROM relation_sources WHERE relation_id = ?').pluck();
  const insRel = db.prepare('INSERT INTO relations(subject_id, predicate, object_id, confidence, sentence, refs, created_at, updated_at, reviewed_at, valid_from, valid_to) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const updRel = db.prepare('UPDATE relations SET confidence = ?, sentence = ?, refs = ?, updated_at = ?, reviewed_at = ? WHERE id = ?');
  const updValid = db.prepare('UPDATE relations SET valid_from = ?, valid_to = ? WHERE id = ?');
  const delSrc = db.prepare('DELETE FROM relation_sources WHERE relation_id = ?');
  const insSrc = db.prepare('INSERT OR IGNORE INTO relation_sources(relation_id, ref, speaker_id) VALUES (?, ?, ?)');

  // Relations first decide which entities are still held by something.
  const kept: { r: FactRelation; sources: { ref: string; speaker: string | null }[]; refs: string[] }[] = [];
  const inRelations = new Set<string>();
  const heldBy = new Set<string>();
  for (const r of facts.relations) {
    inRelations.add(r.subject.toLowerCase()).add(r.object.toLowerCase());
    const sources = r.sources.map((s) => ({ ref: opts.mapRef(s.ref), speaker: s.speaker })).filter((s): s is { ref: string; speaker: string | null } => s.ref !== undefined);
    if ((r.sources.length > 0 && sources.length === 0) || opts.isForgottenFact?.(r.subject, r.predicate, r.object)) {
      c.forgotten++;
      continue;
    }
    const refs = r.refs.map(opts.mapRef).filter((x): x is string => x !== undefined);
    kept.push({ r, sources, refs });
    heldBy.add(r.subject.toLowerCase()).add(r.object.toLowerCase());
  }
  const ids = new Map<string, number>();
  const entityId = (name: string): number => {
    const key = name.toLowerCase();
    const known = ids.get(key);
    if (known !== undefined) return known;
    const row = entityByName.get(name) as { id: number } | undefined;
    const id = row ? row.id : Number(insEntity.run(name, 'entity', '{}', opts.now, opts.now).lastInsertRowid);
    ids.set(key, id);
    return id;
  };
  for (const e of facts.entities) {
    const key = e.name.toLowerCase();
    const bare = Object.keys(e.attributes).length === 0;
    if (inRelations.has(key) && !heldBy.has(key) && bare) {
      c.forgotten++;
      continue;
    }
    const ours = entityByName.get(e.name) as { id: number; type: string; attributes: string } | undefined;
    if (!ours) {
      ids.set(key, Number(insEntity.run(e.name, e.type, JSON.stringify(e.attributes), e.createdAt, e.updatedAt).lastInsertRowid));
      c.added++;
      continue;
    }
    ids.set(key, ours.id);
    const ourAttrs = json<Record<string, unknown>>(ours.attributes, {});
    if (ours.type === e.type && JSON.stringify(ourAttrs) === JSON.stringify(e.attributes)) {
      c.same++;
      continue;
    }
    c.conflicts++;
    if (opts.mode === 'overwrite') {
      updEntity.run(e.type, JSON.stringify(e.attributes), opts.now, ours.id);
      c.overwritten++;
    } else if (opts.mode === 'keep-both') {
      const type = ours.type === 'entity' ? e.type : ours.type;
      updEntity.run(type, JSON.stringify({ ...e.attributes, ...ourAttrs }), opts.now, ours.id);
      c.keptBoth++;
    } else c.skipped++;
  }
  for (const { r, sources, refs } of kept) {
    const s = entityId(r.subject);
    const o = entityId(r.object);
    const ours = relBySpo.get(s, r.predicate, o) as { id: number; confidence: number; sentence: string | null; refs: string; valid_from: number | null; valid_to: number | null } | undefined;
    if (!ours) {
      const id = Number(insRel.run(s, r.predicate, o, r.confidence, r.sentence, JSON.stringify(refs), r.createdAt, r.updatedAt, r.reviewedAt, r.validFrom ?? r.createdAt, r.validTo ?? null).lastInsertRowid);
      for (const x of sources) insSrc.run(id, x.ref, x.speaker);
      c.added++;
      continue;
    }
    const ourSources = srcOf.all(ours.id) as string[];
    const sameValidity = r.validFrom === undefined || (ours.valid_from === (r.validFrom ?? r.createdAt) && ours.valid_to === (r.validTo ?? null));
    if (ours.confidence === r.confidence && ours.sentence === r.sentence && sameValidity && sameSet(ourSources, sources.map((x) => x.ref))) {
      c.same++;
      continue;
    }
    c.conflicts++;
    if (opts.mode === 'overwrite') {
      updRel.run(r.confidence, r.sentence, JSON.stringify(refs), opts.now, r.reviewedAt, ours.id);
      if (r.validFrom !== undefined) updValid.run(r.validFrom ?? r.createdAt, r.validTo ?? null, ours.id);
      delSrc.run(ours.id);
      for (const x of sources) insSrc.run(ours.id, x.ref, x.speaker);
      c.overwritten++;
    } else if (opts.mode === 'keep-both') {
      const merged = [...new Set([...json<string[]>(ours.refs, []), ...refs])];
      updRel.run(Math.max(ours.confidence, r.confidence), ours.sentence ?? r.sentence, JSON.stringify(merged), opts.now, null, ours.id);
      for (const x of sources) insSrc.run(ours.id, x.ref, x.speaker);
      c.keptBoth++;
    } else c.skipped++;
  }
  const insDecision = db.prepare('INSERT OR IGNORE INTO merge_decisions(a, b, decision, decided_at) VALUES (?, ?, ?, ?)');
  for (const d of facts.mergeDecisions) insDecision.run(d.a, d.b, d.decision, d.decidedAt);
  return c;
}
