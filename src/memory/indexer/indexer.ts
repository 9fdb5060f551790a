import { cosine } from '../embedder/index.js';
import type { GraphEntity, GraphRelation, InjectedSource, PluginLogger, PromptQuery, PromptSlotFill, Speaker } from '../../spec/index.js';
import { localDay, systemTimeZone } from '../../spec/index.js';
import type { GraphDB, RecallResult } from '../graph/index.js';
import { jiebaKeywords } from './jieba-keywords.js';
import { predicateHasRole, selfQuestion } from './self-question.js';

/** Keyword extraction (the shared embedder's `keywords`). */
export interface KeywordSource {
  keywords(text: string, k?: number): string[];
}

/** The dense half of the shared embedder (T-1), for entity vector search. */
export interface EntityEmbedder {
  readonly dense: boolean;
  modelId(): string;
  embed(texts: string[]): Promise<(Float32Array | null)[]>;
}

export interface IndexerOptions {
  graph: GraphDB;
  keywords?: KeywordSource;
  embedder?: EntityEmbedder;
  /** BFS depth (default `core.memory.recall_depth` read by the caller, 2). */
  depth?: () => number;
  /** Longest 【记忆索引】 block, characters (default 1500). */
  maxChars?: number;
  /** Entities whose names are embedded for vector search (most recent first; default 3000). */
  maxVectorEntities?: number;
  /** Cosine above which an entity counts as a vector hit (default 0.6). */
  minSimilarity?: number;
  /**
   * Facts ranked by the recall over every tier for the input (graph hits, best first, with the
   * turn each cites): they lead the block, with when they were said.
   */
  rankedFacts?: (input: string) => Promise<{ id: string; createdAt: number }[]>;
  /**
   * The conversation a prompt must stay inside (R-5; undefined: everything) and whether a fact
   * belongs there (every turn it was distilled from was said there).
   */
  scopeOf?: (q: PromptQuery) => readonly string[] | undefined;
  factInScope?: (relation: GraphRelation, scope: readonly string[]) => boolean;
  /**
   * Who said each fact (issue 15): relation id → the person whose turns it was distilled from, with
   * a display name, for facts someone other than the owner stated (the owner's own facts say nobody).
   */
  speakersOf?: (relations: readonly GraphRelation[]) => ReadonlyMap<number, Speaker & { name: string }>;
  /** The person's time zone (an IANA name, decision 0270): the days facts were said on and ended are theirs. Default: the system's. */
  timeZone?: () => string;
  /**
   * The graph entity "I / me / 我" of a prompt means: the owner's (`user`) for the owner, a named
   * participant's for them (issue 15). Without it, questions about oneself find no facts by it.
   */
  selfEntity?: (q: PromptQuery) => string | undefined;
  log?: PluginLogger;
}

/** At most this many of the asker's own facts per question (a few predicates, a few relatives). */
const MAX_OWN_FACTS = 8;


/** Strips prompt-template noise before keyword/vector extraction (seed CleanText). */
export function cleanInput(text: string): string {
  return text
    .replace(/【[^】]{0,20}】/g, ' ')
    .replace(/\[(?:打断消息|interrupt)[^\]]*\]/gi, ' ')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 4000);
}

/** Seed entity names of one query and what the graph returned for them. */
export interface IndexerSearch {
  keywords: string[];
  vectorHits: string[];
  result: RecallResult;
}

/**
 * The Indexer (T-5): builds the 【记忆索引】 block of the system prompt. Input → cleanText →
 * entity vector search (dense embedder) + jieba keywords → graph recall (LIKE + BFS) → compact
 * text. Entities that a tool already returned in a turn (`markRecalled`) are left out for that turn.
 */
export class Indexer {
  private readonly recalled = new Map<string, Set<string>>();
  private vectors = new Map<string, Float32Array | null>();
  private vectorModel = '';

  constructor(private readonly opts: IndexerOptions) {}

  /** Remembers that a tool returned these entities in `turnId` (the last 32 turns are kept). */
  markRecalled(entityNames: readonly string[], turnId: string): void {
    let set = this.recalled.get(turnId);
    if (!set) {
      set = new Set();
      this.recalled.set(turnId, set);
      while (this.recalled.size > 32) this.recalled.delete(this.recalled.keys().next().value as string);
    }
    for (const n of entityNames) set.add(n.toLowerCase());
  }

  /** Entity names (lower-cased) already recalled by a tool in this turn. */
  recalledIn(turnId: string): ReadonlySet<string> {
    return this.recalled.get(turnId) ?? new Set();
  }

  /** Clears the per-turn memory of a finished turn. */
  endTurn(turnId: string): void {
    this.recalled.delete(turnId);
  }

  private async vectorSearch(text: string): Promise<string[]> {
    const emb = this.opts.embedder;
    if (!emb?.dense || !text) return [];
    const model = emb.modelId();
    if (model !== this.vectorModel) {
      this.vectors = new Map();
      this.vectorModel = model;
    }
    const names = this.opts.graph.entityNames(this.opts.maxVectorEntities ?? 3000);
    // renamed / deleted entities leave stale vectors behind: start over when the cache outgrows the graph
    if (this.vectors.size > 2 * names.length + 100) this.vectors = new Map();
    const missing = names.filter((n) => !this.vectors.has(n));
    for (let i = 0; i < missing.length; i += 256) {
      const batch = missing.slice(i, i + 256);
      const vs = await emb.embed(batch);
      batch.forEach((n, j) => this.vectors.set(n, vs[j] ?? null));
    }
    const [q] = await emb.embed([text]);
    if (!q) return [];
    const min = this.opts.minSimilarity ?? 0.6;
    return names
      .map((n) => ({ n, s: this.vectors.get(n) ? cosine(q, this.vectors.get(n) as Float32Array) : 0 }))
      .filter((x) => x.s >= min)
      .sort((a, b) => b.s - a.s)
      .slice(0, 5)
      .map((x) => x.n);
  }

  /** Runs the two recall paths and the graph walk for one input. */
  async search(input: string): Promise<IndexerSearch> {
    const text = cleanInput(input);
    if (!text) return { keywords: [], vectorHits: [], result: { entities: [], relations: [] } };
    const keywords = (this.opts.keywords?.keywords(text, 8) ?? jiebaKeywords(text, 8)).filter((k) => k.trim().length > 0 && k.length <= 200);
    let vectorHits: string[] = [];
    try {
      vectorHits = await this.vectorSearch(text);
    } catch (e) {
      this.opts.log?.warn('indexer: entity vector search failed; using keywords only', { error: (e as Error).message });
    }
    const seeds = [...new Set([...vectorHits, ...keywords])].slice(0, 50);
    const depth = this.opts.depth?.() ?? 2;
    const result = seeds.length ? this.opts.graph.recall(seeds, Math.min(Math.max(depth, 0), 5), { maxEntities: 40, maxRelations: 60 }) : { entities: [], relations: [] };
    return { keywords, vectorHits, result };
  }

  /**
   * The facts of `self` (the asker's entity) that hold now and that `input` asks about ("where do I
   * live?" → `lives_in`, "my sister" → `has_sister` …): a question about oneself names no entity,
   * so the keyword path cannot find them.
   */
  ownFacts(input: string, self: string): GraphRelation[] {
    const asks = selfQuestion(cleanInput(input));
    if (!asks) return [];
    const out = asks.predicates.flatMap((p) => this.opts.graph.relationsOf(self, p).filter((r) => typeof r.validTo !== 'number').slice(0, 3));
    if (asks.roles.length) {
      const about = this.opts.graph.relations({ entity: self, limit: 1000 }).items;
      out.push(...about.filter((r) => typeof r.validTo !== 'number' && predicateHasRole(r.predicate, asks.roles)).slice(0, 4));
    }
    if (asks.all) {
      // "What do you know about me?": what holds now of the asker, newest first, each fact once.
      const seen = new Set(out.map((r) => r.id));
      const about = this.opts.graph.relations({ entity: self, limit: 1000 }).items.filter((r) => typeof r.validTo !== 'number' && !seen.has(r.id));
      about.sort((a, b) => (b.validFrom ?? 0) - (a.validFrom ?? 0) || b.id - a.id);
      out.push(...about);
    }
    return out.slice(0, MAX_OWN_FACTS);
  }

  /** The 【记忆索引】 block for `input`, or undefined when nothing relevant is known. */
  async build(input: string, turnId?: string, scope?: readonly string[], self?: string): Promise<string | undefined> {
    return (await this.buildFill(input, turnId, scope, self))?.text;
  }

  /**
   * The 【记忆索引】 block with the source of every fact it shows (the turn it was distilled from).
   * `self`: the asker's entity — what they ask about themselves leads the block (`ownFacts`).
   */
  async buildFill(input: string, turnId?: string, scope?: readonly string[], self?: string): Promise<PromptSlotFill | undefined> {
    const { result } = await this.search(input);
    let own = new Set<number>();
    if (self) {
      try {
        const facts = this.ownFacts(input, self);
        own = new Set(facts.map((r) => r.id));
        result.relations = [...facts, ...result.relations.filter((r) => !own.has(r.id))];
      } catch (e) {
        this.opts.log?.warn('indexer: reading the asker\'s own facts failed; keywords only', { error: (e as Error).message });
      }
    }
    const skip = turnId ? this.recalledIn(turnId) : new Set<string>();
    let relations = result.relations.filter((r) => !skip.has(r.subject.toLowerCase()) && !skip.has(r.object.toLowerCase()));
    if (scope !== undefined) {
      // A group (or someone else's chat) sees only facts distilled from what was said there (R-5).
      const inScope = this.opts.factInScope;
      relations = inScope ? relations.filter((r) => inScope(r, scope)) : [];
      const named = new Set(relations.flatMap((r) => [r.subject.toLowerCase(), r.object.toLowerCase()]));
      result.entities = result.entities.filter((e) => named.has(e.name.toLowerCase()));
    }
    // Facts the recall ranks for this input come first, dated by the turn they were distilled from.
    const dated = new Map<number, number>();
    if (this.opts.rankedFacts && relations.length) {
      try {
        const order = new Map<number, number>();
        (await this.opts.rankedFacts(input)).forEach((h, i) => {
          const id = Number(h.id.replace(/^relation:/, ''));
          order.set(id, i);
          if (h.createdAt > 0) dated.set(id, h.createdAt);
        });
        relations = [...relations].sort((a, b) => (order.get(a.id) ?? Infinity) - (order.get(b.id) ?? Infinity));
      } catch (e) {
        this.opts.log?.warn('indexer: ranking facts failed; graph order kept', { error: (e as Error).message });
      }
    }
    if (own.size) {
      // What the asker asked about themselves leads, dated by when it began to hold.
      relations = [...relations.filter((r) => own.has(r.id)), ...relations.filter((r) => !own.has(r.id))];
      for (const r of relations) if (own.has(r.id) && !dated.has(r.id) && typeof r.validFrom === 'number') dated.set(r.id, r.validFrom);
    }
    // Entities reached only through a skipped relation go too (they were shown with it).
    const kept = new Set(relations.flatMap((r) => [r.subject.toLowerCase(), r.object.toLowerCase()]));
    const dropped = new Set(result.relations.filter((r) => !relations.includes(r)).flatMap((r) => [r.subject.toLowerCase(), r.object.toLowerCase()]));
    const entities = result.entities.filter((e) => {
      const k = e.name.toLowerCase();
      return !skip.has(k) && (kept.has(k) || !dropped.has(k));
    });
    let said: ReadonlyMap<number, Speaker & { name: string }> = new Map();
    try {
      said = this.opts.speakersOf?.(relations) ?? said;
    } catch (e) {
      this.opts.log?.warn('indexer: reading who said the facts failed; shown without speakers', { error: (e as Error).message });
    }
    const shown: GraphRelation[] = [];
    const names = new Map([...said].map(([id, p]) => [id, p.name]));
    const zone = this.opts.timeZone?.() ?? systemTimeZone();
    const text = formatIndex(entities, relations, this.opts.maxChars ?? 1500, dated, shown, names, zone);
    return text === undefined ? undefined : { text, sources: shown.map((r) => factSource(r, dated.get(r.id), said.get(r.id), zone)) };
  }

  /** Prompt-slot provider for `memory_index` (skipped on consolidation rounds). */
  slot(): (q: PromptQuery) => Promise<PromptSlotFill | undefined> {
    return async (q) => (q.consolidation ? undefined : this.buildFill(q.input, q.turnId, this.opts.scopeOf?.(q), this.opts.selfEntity?.(q)));
  }
}

/**
 * Where a fact of the block came from: the first of its refs that names a turn. A replaced fact
 * says until when it held (a day of `zone`, decision 0270), as the block does, so `waiter memory
 * why` and the WebUI do not show an old value as if it held.
 */
export function factSource(r: GraphRelation, at?: number, speaker?: Speaker, zone: string = systemTimeZone()): InjectedSource {
  const turnId = (r.refs ?? []).find((x) => /^[^\s#]+#\d+$/.test(x));
  const until = typeof r.validTo === 'number' ? ` (until ${localDay(r.validTo, zone)})` : '';
  return {
    tier: 'graph',
    id: `relation:${r.id}`,
    text: `${r.subject} —${r.predicate}→ ${r.object}${until}`,
    ...(at ? { at } : {}),
    ...(speaker ? { speaker } : {}),
    ...(turnId ? { turnId, sessionId: turnId.slice(0, turnId.lastIndexOf('#')) } : {}),
  };
}

function describeEntity(e: GraphEntity): string {
  const attrs = Object.entries(e.attributes)
    .filter(([k, v]) => k !== 'aliases' && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'))
    .slice(0, 6)
    .map(([k, v]) => `${k}=${String(v).slice(0, 40)}`);
  const aliases = Array.isArray(e.attributes.aliases) && e.attributes.aliases.length ? ` aka ${(e.attributes.aliases as string[]).slice(0, 3).join('/')}` : '';
  const parts = [e.type !== 'entity' ? e.type : '', ...attrs].filter(Boolean);
  return `${e.name}${parts.length ? `(${parts.join('; ')})` : ''}${aliases}`;
}

/**
 * Compact text of a recall: the facts first (when they were said and, for someone other than the
 * owner, by whom), then entities that carry attributes. No heading: the system prompt prints the
 * slot's title (【记忆索引】) once.
 */
export function formatIndex(
  entities: GraphEntity[],
  relations: GraphRelation[],
  maxChars: number,
  saidAt: ReadonlyMap<number, number> = new Map(),
  shown?: GraphRelation[],
  saidBy: ReadonlyMap<number, string> = new Map(),
  zone: string = systemTimeZone(),
): string | undefined {
  if (!entities.length && !relations.length) return undefined;
  const lines: string[] = [];
  let size = 0;
  const push = (line: string): boolean => {
    if (size + line.length + 1 > maxChars) return false;
    lines.push(line);
    size += line.length + 1;
    return true;
  };
  // K-4: what holds now comes first; a superseded fact follows with the day it ended.
  // Days of the person's calendar (decision 0270).
  const day = (ms: number) => localDay(ms, zone);
  const ordered = [...relations.filter((r) => typeof r.validTo !== 'number'), ...relations.filter((r) => typeof r.validTo === 'number')];
  for (const r of ordered) {
    const at = saidAt.get(r.id);
    const until = typeof r.validTo === 'number' ? `; until ${day(r.validTo)}` : '';
    const by = saidBy.get(r.id);
    if (!push(`- ${r.subject} —${r.predicate}→ ${r.object} (${r.confidence.toFixed(2)}${at ? `; ${day(at)}` : ''}${until}${by ? `; said by ${by.replace(/[\n()]/g, ' ').slice(0, 40)}` : ''})`)) break;
    shown?.push(r);
  }
  const inRelations = new Set(relations.flatMap((r) => [r.subject.toLowerCase(), r.object.toLowerCase()]));
  const described = entities.filter((e) => !inRelations.has(e.name.toLowerCase()) || Object.keys(e.attributes).some((k) => k !== 'aliases') || e.type !== 'entity');
  if (described.length) {
    const ents = described.map(describeEntity);
    let line = '实体: ';
    for (const d of ents) {
      if (size + line.length + d.length + 2 > maxChars) break;
      line += (line.length > 4 ? ', ' : '') + d;
    }
    if (line.length > 4) push(line);
  }
  return lines.length > 0 ? lines.join('\n') : undefined;
}
