import type { GraphRelation } from '../../spec/index.js';
import { localDay } from '../../spec/index.js';

/**
 * A graph fact as a tool shows it to the model: the triple, its confidence and when it held, in
 * days of the person's calendar (`zone`, decision 0270). A fact a later value replaced (K-4: `lives_in`
 * Paris after the move to Berlin) says `"until"` and `"current": false`, so the model does not read
 * an old value as today's.
 *
 * @example toolFact(r, 'Europe/Berlin') // { id: 2, fact: 'user —lives_in→ Paris', since: '2026-11-02', until: '2026-12-01', current: false, confidence: 0.8 }
 */
export function toolFact(r: GraphRelation, zone: string): Record<string, unknown> {
  const o: Record<string, unknown> = { id: r.id, fact: `${r.subject} —${r.predicate}→ ${r.object}` };
  if (typeof r.validFrom === 'number') o.since = localDay(r.validFrom, zone);
  if (typeof r.validTo === 'number') {
    o.until = localDay(r.validTo, zone);
    o.current = false;
  }
  o.confidence = Number(r.confidence.toFixed(2));
  return o;
}

/** The facts that hold now first, in their order; then the replaced ones, the latest to end first. */
export function currentFirst<T extends Pick<GraphRelation, 'validTo'>>(relations: readonly T[]): T[] {
  const past = relations.filter((r) => typeof r.validTo === 'number').sort((a, b) => (b.validTo as number) - (a.validTo as number));
  return [...relations.filter((r) => typeof r.validTo !== 'number'), ...past];
}
