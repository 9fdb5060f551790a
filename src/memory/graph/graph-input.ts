import { z } from 'zod';
import type { Triple } from '../../spec/index.js';
import { ValidationError } from '../../spec/index.js';

/** Size limits of graph input; anything larger is refused with a ValidationError. */
export const GRAPH_LIMITS = {
  name: 200,
  predicate: 100,
  type: 40,
  sentence: 4000,
  refs: 50,
  ref: 200,
  triplesPerCommit: 1000,
  keywords: 50,
  keyword: 200,
  maxDepth: 5,
} as const;

/** Trims and collapses inner whitespace; strips control characters. */
export function cleanName(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/\s+/g, ' ').trim();
}

/** Predicates are compared exactly, so they are normalized: trimmed, lower-cased, spaces → `_`. */
export function cleanPredicate(s: string): string {
  return cleanName(s).toLowerCase().replace(/ /g, '_');
}

/** How a fact names whoever says it: "me", "我", and "Owner" as the People page calls the owner. */
const FIRST_PERSON = new Set(['owner', 'me', 'myself', '我', '我自己']);

/**
 * The facts with the speaker's words for themselves ("me", "我", "Owner") as the speaker's entity —
 * `user` for the owner, the distillers' name (else the graph had two unconnected "me" nodes). Only
 * where the speaker is known: the owner's own surfaces (`waiter memory commit`) and a document's
 * speaker for the LLM distiller — never in the shared schema, where a stranger's "me" would become
 * the owner.
 */
export function firstPersonAs<T extends { subject: string; object: string }>(triples: readonly T[], speaker = 'user'): T[] {
  const as = (s: string) => (typeof s === 'string' && FIRST_PERSON.has(cleanName(s).toLowerCase()) ? speaker : s);
  return triples.map((t) => ({ ...t, subject: as(t.subject), object: as(t.object) }));
}

const name = z.string().transform(cleanName).pipe(z.string().min(1, 'empty name').max(GRAPH_LIMITS.name, `name longer than ${GRAPH_LIMITS.name} characters`));
const predicate = z.string().transform(cleanPredicate).pipe(z.string().min(1, 'empty predicate').max(GRAPH_LIMITS.predicate));
const type = z.string().transform(cleanName).pipe(z.string().max(GRAPH_LIMITS.type)).optional();

/** Schema of one triple as accepted by `GraphDB.commit`. */
export const TripleSchema = z.object({
  subject: name,
  predicate,
  object: name,
  confidence: z.number().min(0).max(1).optional(),
  subjectType: type,
  objectType: type,
  sentence: z.string().max(GRAPH_LIMITS.sentence, `sentence longer than ${GRAPH_LIMITS.sentence} characters`).optional(),
  refs: z.array(z.string().max(GRAPH_LIMITS.ref)).max(GRAPH_LIMITS.refs).optional(),
  speaker: z.string().max(GRAPH_LIMITS.ref).optional(),
  validFrom: z.number().finite().optional(),
});

export type CleanTriple = z.infer<typeof TripleSchema>;

/** Validates and normalizes triples; throws ValidationError naming the first bad one. */
export function parseTriples(triples: unknown): CleanTriple[] {
  if (!Array.isArray(triples)) throw new ValidationError('triples must be an array');
  if (triples.length > GRAPH_LIMITS.triplesPerCommit) throw new ValidationError(`at most ${GRAPH_LIMITS.triplesPerCommit} triples per commit`, { count: triples.length });
  return triples.map((t: Triple, i) => {
    const r = TripleSchema.safeParse(t);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new ValidationError(`triple ${i}: ${issue?.path.join('.') || 'value'}: ${issue?.message}`, { index: i, path: issue?.path.map(String) });
    }
    if (r.data.subject.toLowerCase() === r.data.object.toLowerCase()) {
      throw new ValidationError(`triple ${i}: subject and object are the same entity`, { index: i });
    }
    return r.data;
  });
}

/** Validates one entity name (for lookups, edits, merges). */
export function parseName(value: unknown, field = 'name'): string {
  const r = name.safeParse(value);
  if (!r.success) throw new ValidationError(`${field}: ${r.error.issues[0]?.message ?? 'invalid'}`, { key: field });
  return r.data;
}

/** Validates recall keywords: drops blanks, refuses too many or too long ones. */
export function parseKeywords(value: unknown): string[] {
  if (!Array.isArray(value)) throw new ValidationError('keywords must be an array of strings', { key: 'keywords' });
  if (value.length > GRAPH_LIMITS.keywords) throw new ValidationError(`at most ${GRAPH_LIMITS.keywords} keywords`, { key: 'keywords' });
  const out: string[] = [];
  for (const k of value) {
    if (typeof k !== 'string') throw new ValidationError('keywords must be strings', { key: 'keywords' });
    const c = cleanName(k);
    if (c.length > GRAPH_LIMITS.keyword) throw new ValidationError(`keyword longer than ${GRAPH_LIMITS.keyword} characters`, { key: 'keywords' });
    if (c && !out.includes(c)) out.push(c);
  }
  return out;
}

/** Validates a BFS depth (integer 0…5). */
export function parseDepth(value: unknown): number {
  if (value === undefined) return 2;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > GRAPH_LIMITS.maxDepth) {
    throw new ValidationError(`depth must be an integer between 0 and ${GRAPH_LIMITS.maxDepth}`, { key: 'depth' });
  }
  return value;
}

/** Escapes a LIKE pattern for `ESCAPE '\'`: the keyword's `%` and `_` match themselves. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Combines two confidences of the same fact seen twice (noisy-OR: independent evidence). */
export function combineConfidence(a: number, b: number): number {
  return Math.min(1, 1 - (1 - a) * (1 - b));
}
