import type { GraphRelation, Person, SocialAPI, SocialReadAPI } from '../../spec/index.js';
import { ValidationError } from '../../spec/index.js';
import type { GraphDB } from '../graph/index.js';

/** Entity type of people in the graph. */
export const PERSON_TYPE = 'person';
const RESERVED_TRAITS = new Set(['aliases']);

function checkTrait(trait: unknown): string {
  if (typeof trait !== 'string' || !trait.trim() || trait.trim().length > 64) throw new ValidationError('trait must be 1–64 characters', { key: 'trait' });
  const t = trait.trim();
  if (RESERVED_TRAITS.has(t)) throw new ValidationError(`"${t}" is reserved`, { key: 'trait' });
  return t;
}

function traitsOf(attributes: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(attributes)) {
    if (RESERVED_TRAITS.has(k)) continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  }
  return out;
}

/**
 * The social layer (T-7, seed social.go): people are graph entities of type `person`, their traits
 * are the entity's attributes (string values), and relations between people are graph relations.
 */
export class SocialService implements SocialAPI {
  constructor(private readonly graph: GraphDB) {}

  async getPerson(name: string): Promise<Person | undefined> {
    const e = this.graph.getEntity(name);
    if (!e || e.type !== PERSON_TYPE) return undefined;
    return { name: e.name, traits: traitsOf(e.attributes) };
  }

  async getTrait(name: string, trait: string): Promise<string | undefined> {
    const p = await this.getPerson(name);
    return p?.traits[checkTrait(trait)];
  }

  async getRelations(name: string): Promise<GraphRelation[]> {
    return this.graph.relations({ entity: name, limit: 500 }).items;
  }

  /** People reachable from `name` within `depth` hops, and the relations among them. */
  async getNetwork(name: string, depth = 2): Promise<{ people: string[]; relations: GraphRelation[] }> {
    if (!this.graph.getEntity(name)) return { people: [], relations: [] };
    const r = this.graph.expand(name, depth, { maxEntities: 200, maxRelations: 400 });
    const people = r.entities.filter((e) => e.type === PERSON_TYPE).map((e) => e.name);
    const set = new Set(people.map((p) => p.toLowerCase()));
    return { people, relations: r.relations.filter((x) => set.has(x.subject.toLowerCase()) && set.has(x.object.toLowerCase())) };
  }

  async listPersons(): Promise<string[]> {
    return this.graph.listEntities({ type: PERSON_TYPE, limit: 1000 }).items.map((e) => e.name).sort((a, b) => a.localeCompare(b));
  }

  /** Sets a trait (creating the person when missing); an empty value removes it. */
  async setTrait(name: string, trait: string, value: string): Promise<void> {
    const t = checkTrait(trait);
    if (typeof value !== 'string' || value.length > 500) throw new ValidationError('trait value must be a string of at most 500 characters', { key: 'value' });
    const e = this.graph.ensureEntity(name, PERSON_TYPE);
    this.graph.editEntity(e.name, { type: PERSON_TYPE, attributes: { [t]: value.trim() ? value.trim() : null } });
  }

  /** Records `a —relation→ b` between two people (both created as persons when missing). */
  async relate(a: string, relation: string, b: string): Promise<void> {
    this.graph.commit([{ subject: a, predicate: relation, object: b, subjectType: PERSON_TYPE, objectType: PERSON_TYPE, confidence: 0.9 }]);
  }

  /** The read-only half for external plugins (P-3): a new object, so the write methods are not reachable. */
  readOnly(): SocialReadAPI {
    return {
      getPerson: (n) => this.getPerson(n),
      getTrait: (n, t) => this.getTrait(n, t),
      getRelations: (n) => this.getRelations(n),
      getNetwork: (n, d) => this.getNetwork(n, d),
      listPersons: () => this.listPersons(),
    };
  }
}
