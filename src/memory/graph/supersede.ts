import type Database from 'better-sqlite3';

/**
 * Predicates a subject has one value of at a time (K-4): a new value replaces the old one from the
 * time it was said, and the old one is kept with an end date (`user lives_in 杭州` until the move to
 * 上海) instead of being deleted or held beside the new one as a contradiction.
 */
export const SINGLE_VALUED_PREDICATES: ReadonlySet<string> = new Set(['name', 'lives_in', 'works_at', 'age']);

/** True for a predicate whose values follow one another in time. */
export function isSingleValued(predicate: string): boolean {
  return SINGLE_VALUED_PREDICATES.has(predicate);
}

/** The relation ids of one subject's single-valued predicate (its timeline). */
export function chainIds(db: Database.Database, subjectId: number, predicate: string): number[] {
  return (db.prepare('SELECT id FROM relations WHERE subject_id = ? AND predicate = ?').pluck().all(subjectId, predicate) as number[]);
}

/**
 * Recomputes the timeline of a subject's single-valued predicate in the caller's transaction:
 * ordered by when each value began (ties by id), each holds until the next begins and the last holds
 * now. Commit, edit, delete, forget, exclusion, restore and undo all end with it, so every path
 * that changes facts — the review loop's corrections and deletions included — keeps one model.
 * Returns the ids whose end changed.
 */
export function reorderChain(db: Database.Database, subjectId: number, predicate: string): number[] {
  if (!isSingleValued(predicate)) return [];
  const rows = db.prepare('SELECT id, COALESCE(valid_from, created_at) AS since, valid_to FROM relations WHERE subject_id = ? AND predicate = ? ORDER BY since, id').all(subjectId, predicate) as { id: number; since: number; valid_to: number | null }[];
  const changed: number[] = [];
  const upd = db.prepare('UPDATE relations SET valid_to = ? WHERE id = ?');
  rows.forEach((r, i) => {
    const until = i + 1 < rows.length ? rows[i + 1].since : null;
    if (r.valid_to !== until) {
      upd.run(until, r.id);
      changed.push(r.id);
    }
  });
  return changed;
}
