import type Database from 'better-sqlite3';

/**
 * Predicates a subject has one value of at a time (K-4): a new value replaces the old one from the
 * time it was said, and the old one is kept with an end date (`user lives_in 杭州` until the move to
 * 上海) instead of being deleted or held beside the new one as a contradiction. `works_as` is a
 * person's current job (decision 0490): "now I work as a teacher" ends "sound engineer" — unless the
 * job was said to be held beside another (see {@link ALONGSIDE}).
 */
export const SINGLE_VALUED_PREDICATES: ReadonlySet<string> = new Set(['name', 'lives_in', 'works_at', 'age', 'works_as']);

/**
 * Predicates that are each other's opposite for the same object (decision 0490): `dislikes X` said
 * after `likes X` ends the liking at that time (I don't like coffee anymore), and the other way
 * round; the two are never both current.
 */
const OPPOSITES: Readonly<Record<string, string>> = { likes: 'dislikes', dislikes: 'likes' };

/**
 * A value that ended without a new one (I don't live in Berlin anymore, 我搬离了北京, I no longer work
 * at Acme; decision 0560): `no_longer_lives_in X` shares the `lives_in` timeline, `no_longer_works_at X`
 * the `works_at` one. It ends the value current when it was said if that value is X (one elsewhere
 * stays), and it holds — the person's last word on it — until a value is said again.
 * `no_longer_works_as X` (I'm not a nurse anymore) is the end of a kind of work in the `works_as`
 * timeline; it also ends a job held alongside another (see {@link ALONGSIDE}) of the same name.
 */
const TIMELINE_OF: Readonly<Record<string, string>> = { no_longer_lives_in: 'lives_in', no_longer_works_at: 'works_at', no_longer_works_as: 'works_as' };
/** The end predicate of a timeline (`lives_in` → `no_longer_lives_in`). */
const END_OF: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(TIMELINE_OF).map(([end, main]) => [main, end]));

/**
 * A job said to be held beside another ("I also work as a translator", 我同时也是一名翻译): its row
 * stays current and takes no part in the job's timeline. Read from the fact's source sentence.
 */
const ALONGSIDE = /\balso\b|\bas well\b|\bon the side\b|\bpart[- ]time\b|\bside job\b|同时|兼职|副业|也是|也在|也当/i;

/** Scripts a name is written in: a name in another script is another name, not a new one. */
function nameScript(name: string): string {
  if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(name)) return 'cjk';
  if (/\p{Script=Hangul}/u.test(name)) return 'hangul';
  if (/\p{Script=Cyrillic}/u.test(name)) return 'cyrillic';
  return 'latin';
}

/** True for a predicate whose values follow one another in time. */
export function isSingleValued(predicate: string): boolean {
  return SINGLE_VALUED_PREDICATES.has(predicate);
}

/** True for a predicate whose rows get end dates: single-valued ones, likes / dislikes, and the end of a home. */
export function hasTimeline(predicate: string): boolean {
  return isSingleValued(predicate) || predicate in OPPOSITES || predicate in TIMELINE_OF;
}

/** The predicates whose rows share one timeline with `predicate` (itself, and its opposite or its end). */
function timelinePredicates(predicate: string): string[] {
  if (predicate in OPPOSITES) return [predicate, OPPOSITES[predicate]];
  const main = TIMELINE_OF[predicate] ?? predicate;
  return main in END_OF ? [main, END_OF[main]] : [main];
}

/** The relation ids of one subject's timeline for a predicate (with its opposite's). */
export function chainIds(db: Database.Database, subjectId: number, predicate: string): number[] {
  const preds = timelinePredicates(predicate);
  return db.prepare(`SELECT id FROM relations WHERE subject_id = ? AND predicate IN (${preds.map(() => '?').join(',')})`).pluck().all(subjectId, ...preds) as number[];
}

interface ChainRow {
  id: number;
  predicate: string;
  since: number;
  valid_to: number | null;
  object_id: number;
  object: string;
  sentence: string | null;
}

/**
 * Recomputes the timeline of a subject's single-valued predicate in the caller's transaction:
 * ordered by when each value began (ties by id), each holds until the next begins and the last holds
 * now. Commit, edit, delete, forget, exclusion, restore and undo all end with it, so every path
 * that changes facts — the review loop's corrections and deletions included — keeps one model.
 * Names follow one another within one script only (Robin Vance and 林小雨 are both current); a job
 * said to be held alongside stays current; likes and dislikes of one object form one timeline.
 * Returns the ids whose end changed.
 */
export function reorderChain(db: Database.Database, subjectId: number, anyPredicate: string): number[] {
  if (!hasTimeline(anyPredicate)) return [];
  const predicate = TIMELINE_OF[anyPredicate] ?? anyPredicate;
  const preds = timelinePredicates(predicate);
  const rows = db
    .prepare(`SELECT r.id, r.predicate, COALESCE(r.valid_from, r.created_at) AS since, r.valid_to, r.object_id, o.name AS object, r.sentence FROM relations r JOIN entities o ON o.id = r.object_id WHERE r.subject_id = ? AND r.predicate IN (${preds.map(() => '?').join(',')}) ORDER BY since, r.id`)
    .all(subjectId, ...preds) as ChainRow[];
  const groups = new Map<string, ChainRow[]>();
  const free: ChainRow[] = [];
  for (const r of rows) {
    if (predicate === 'works_as' && r.predicate === 'works_as' && r.sentence && ALONGSIDE.test(r.sentence)) {
      free.push(r);
      continue;
    }
    const key = predicate in OPPOSITES ? String(r.object_id) : predicate === 'name' ? nameScript(r.object) : '';
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  const changed: number[] = [];
  const upd = db.prepare('UPDATE relations SET valid_to = ? WHERE id = ?');
  const set = (r: ChainRow, until: number | null) => {
    if (r.valid_to !== until) {
      upd.run(until, r.id);
      changed.push(r.id);
    }
  };
  // A job held alongside runs until an end of that job said after it began (or stays current).
  const endOf = END_OF[predicate];
  for (const r of free) {
    const end = endOf ? rows.find((e) => e.predicate === endOf && e.since >= r.since && e.id !== r.id && e.object.toLowerCase() === r.object.toLowerCase()) : undefined;
    set(r, end ? end.since : null);
  }
  for (const g of groups.values()) {
    if (predicate in END_OF) timelineWithEnds(g, END_OF[predicate], set);
    else g.forEach((r, i) => set(r, i + 1 < g.length ? g[i + 1].since : null));
  }
  return changed;
}

/**
 * A timeline with its ends (`lives_in` and `no_longer_lives_in`): each value holds until the next value
 * begins, or until an end of the same object (compared without case) is said; an end holds until the
 * next value begins. An end of another object than the current value ends nothing.
 */
function timelineWithEnds(rows: ChainRow[], end: string, set: (r: ChainRow, until: number | null) => void): void {
  let current: ChainRow | undefined;
  let ends: ChainRow[] = [];
  for (const r of rows) {
    if (r.predicate === end) {
      if (current && current.object.toLowerCase() === r.object.toLowerCase()) {
        set(current, r.since);
        current = undefined;
      }
      ends.push(r);
      continue;
    }
    if (current) set(current, r.since);
    for (const e of ends) set(e, r.since);
    ends = [];
    current = r;
  }
  if (current) set(current, null);
  for (const e of ends) set(e, null);
}
