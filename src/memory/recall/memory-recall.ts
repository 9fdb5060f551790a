import type { ContextEvent, ContextWindow, GraphRelation, PromptQuery, RecallHit, RecallTier } from '../../spec/memory.js';
import { localDay, systemTimeZone } from '../../spec/local-time.js';
import { turnAudience, type PeopleDirectory } from '../../spec/people.js';
import { keptFactAt } from '../../spec/memory-control.js';
import type { PluginLogger } from '../../spec/plugin.js';
import type { Speaker } from '../../spec/speaker.js';
import type { ColdArchive } from '../archive/index.js';
import type { DocStore, MemoryDocument } from '../documents/index.js';
import type { EmbedderService } from '../embedder/index.js';
import type { GraphDB } from '../graph/index.js';
import { rankEvidence, textScorer, type RankOptions, type RankedDoc } from './evidence-ranker.js';
import type { RecallCorpus } from './recall-corpus.js';
import { namedWords, queryFocus, type Participant } from './speaker-focus.js';
import { wordNeighbourFile, type WordNeighbourFile } from './word-neighbours.js';
import { archiveCorpus, contextCorpus, documentCorpus, eventAsDoc } from './tier-corpora.js';

/** Longest query text used for ranking (a pasted log must not stall recall). */
const MAX_QUERY_CHARS = 10_000;
/** Facts considered per query (graph recall is bounded too). */
const MAX_FACTS = 60;

/** The tiers MemoryRecall reads; a tier that is down is `undefined` (its hits are simply absent). */
export interface RecallTiers {
  embedder: EmbedderService;
  context?: () => { events(): readonly ContextEvent[] } | undefined;
  docs?: () => DocStore | undefined;
  archive?: () => ColdArchive | undefined;
  graph?: () => GraphDB | undefined;
  /** The clock queries are asked on ("last Saturday" counts from it; default Date.now). */
  now?: () => number;
  /**
   * The person's time zone (an IANA name, `core.agent.timezone` resolved; decision 0270): the days
   * a query names and the days turns were said on are days of their calendar. Default: the system's.
   */
  timeZone?: () => string;
  /** The owner's own speaker ids on chat channels (`core.identity.owner_ids`): "I" in the owner's query. */
  ownerIds?: () => readonly string[];
  /**
   * Who is who across channels (decision 0090): a focus person's statements under every id linked
   * to them count as theirs, and a person's registry name is a name a query may call them by.
   */
  people?: () => PeopleDirectory | undefined;
  /**
   * The word-neighbour table (decision 0300; default the shipped one, read on the first English
   * query with the knob on). A missing or corrupt table is logged once through `log`.
   */
  wordNeighbours?: WordNeighbourFile;
  log?: Pick<PluginLogger, 'error'>;
}

export interface RecallOptions {
  /** Hits returned (default 10, at most 1000). */
  k?: number;
  /** Tiers to return hits from (default all). Ranking statistics always span every tier. */
  tiers?: readonly RecallTier[];
  /** Ranking knobs (benchmarks and tuning only; the product uses the defaults). */
  rank?: Partial<RankOptions>;
  /** Who asks (a chat channel's speaker): "I / my / 我" in the query mean them. Absent: the owner. */
  asker?: Speaker;
  /** The query's own time (epoch ms; default the tiers' clock). */
  now?: number;
  /**
   * Only turns that match the query themselves, not those ranked up by a neighbour's, their
   * session's or a date's evidence alone (a search box a person reads; the model's recall keeps them).
   */
  matchesOnly?: boolean;
  /**
   * The conversations the asking turn may see (R-5, decision 0360): only turns said there, and
   * facts all of whose sources were said there, are returned. Absent: everything (the owner).
   */
  scope?: readonly string[];
}

/** A hit with the document behind it (turn tiers) or the relation (graph). */
export interface RecallEntry {
  hit: RecallHit;
  doc?: MemoryDocument;
  relation?: GraphRelation;
}

/**
 * One recall over every memory tier (K-1): context events, warm documents, the cold archive and
 * graph facts ranked together, each hit with its provenance. Turn tiers share one BM25 collection
 * (see `rankEvidence`), so a turn ranks the same whether it is minutes or years old; a graph fact
 * is scored by the same query terms on its `subject predicate object` text and carries the refs of
 * the turns it was distilled from.
 *
 * Serves 【相关记忆文档】 (`related`), `doc_query` (`consume`), the memory tools, `waiter memory
 * search` and the WebUI search (`search`).
 */
export class MemoryRecall {
  private corp: { ctx?: unknown; docs?: DocStore; archive?: ColdArchive; list: RecallCorpus[] } = { list: [] };

  constructor(private readonly tiers: RecallTiers) {}

  /** The corpora of the tiers that are up now (rebuilt when a tier object changes). */
  private corpora(): RecallCorpus[] {
    const ctx = this.tiers.context?.();
    const docs = this.tiers.docs?.();
    const archive = this.tiers.archive?.();
    if (ctx !== this.corp.ctx || docs !== this.corp.docs || archive !== this.corp.archive) {
      const list: RecallCorpus[] = [];
      if (ctx) list.push(contextCorpus(() => ctx.events(), this.tiers.embedder));
      if (docs) list.push(documentCorpus(docs));
      if (archive) list.push(archiveCorpus(archive));
      this.corp = { ctx, docs, archive, list };
    }
    return this.corp.list;
  }

  /** The person's time zone (decision 0270). */
  timeZone(): string {
    return this.tiers.timeZone?.() ?? systemTimeZone();
  }

  /** Hits of every tier for a query, best first, with provenance. */
  async search(query: string, opts: RecallOptions = {}): Promise<RecallHit[]> {
    return (await this.scoped(query, opts)).map((e) => e.hit);
  }

  /** `entries` kept inside `opts.scope` (when given): more are ranked, those outside are dropped, then `k` kept. */
  private async scoped(query: string, opts: RecallOptions): Promise<RecallEntry[]> {
    const { scope, ...rest } = opts;
    if (!scope) return this.entries(query, rest);
    const k = rest.k ?? 10;
    const all = await this.entries(query, { ...rest, k: Math.max(50, k * 10) });
    return all.filter((e) => this.entryInScope(e, scope)).slice(0, k);
  }

  /** Whether a hit may be shown to a turn scoped to `scope`: a turn said there, or a fact {@link factInScope}. */
  entryInScope(e: RecallEntry, scope: readonly string[]): boolean {
    if (e.relation) return this.factInScope(e.relation, scope);
    return e.hit.conversation !== undefined && scope.includes(e.hit.conversation.id);
  }

  /**
   * Whether a fact may be shown in a turn scoped to `scope` (R-5, decisions 0090 and 0360): it has
   * sources, and every turn it was distilled from was said in one of those conversations. A fact
   * also said in the owner's private chat stays the owner's.
   */
  factInScope(r: Pick<GraphRelation, 'refs'>, scope: readonly string[]): boolean {
    const refs = r.refs ?? [];
    if (!refs.length) return false;
    // Every source, not the oldest few; and a source no tier holds any more cannot be shown to
    // have been said here, so it keeps the fact out.
    const src = this.sources(refs, Math.max(20, refs.length * 4));
    if (!src.every((h) => h.conversation !== undefined && scope.includes(h.conversation.id))) return false;
    return refs.every((ref) => src.some((h) => h.id === ref || h.turnId === ref || h.refs.includes(ref)));
  }

  /**
   * Like `search`, with the documents / relations behind the hits. Rankings run one at a time: the
   * tiers' corpora are shared and keep one query's state (the archive's scores and rows) from
   * `begin` to `end`, and a ranking with a dense model awaits the embedder in between — two
   * interleaved rankings read each other's scores otherwise. Lexical rankings never await, so the
   * queue costs them nothing.
   */
  entries(query: string, opts: RecallOptions = {}): Promise<RecallEntry[]> {
    const run = this.queue.then(() => this.rank(query, opts));
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private queue: Promise<void> = Promise.resolve();

  private async rank(query: string, opts: RecallOptions): Promise<RecallEntry[]> {
    if (typeof query !== 'string' || !query.trim()) return [];
    const q = query.length > MAX_QUERY_CHARS ? query.slice(0, MAX_QUERY_CHARS) : query;
    const k = Math.min(Math.max(1, Math.floor(opts.k ?? 10)), 1000);
    const want = new Set<RecallTier>(opts.tiers ?? ['context', 'document', 'archive', 'graph']);
    const corpora = this.corpora();
    if (want.size === 1 && want.has('graph')) {
      // Facts only (the 【记忆索引】 order): scored under every tier's statistics, no turn ranking.
      for (const c of corpora) c.begin?.();
      const top = this.facts(q, textScorer(corpora, this.tiers.embedder, q))
        .sort((a, b) => b.hit.score - a.hit.score)
        .slice(0, k);
      for (const e of top) this.withSource(e);
      return top;
    }
    const people = this.tiers.people?.();
    const owners = [...(this.tiers.ownerIds?.() ?? []), ...(people?.list().find((p) => p.owner)?.ids ?? [])];
    const participants = this.participants();
    const focus = queryFocus(q, participants, { speaker: opts.asker, ownerIds: owners });
    // Linked identities (decision 0090) are one person: every id of a focus person counts as theirs.
    if (focus && people) for (const id of [...focus]) for (const linked of people.personOf(id)?.ids ?? []) focus.add(linked);
    const now = opts.now ?? this.tiers.now?.() ?? Date.now();
    const zone = this.timeZone();
    const neighbours = this.tiers.wordNeighbours ?? wordNeighbourFile;
    const ranked = await rankEvidence(corpora, this.tiers.embedder, q, want.size === 4 && !opts.matchesOnly ? k : Math.max(k, 200), opts.rank, { now, focus, tiers: want, zone, names: namedWords(q, participants), wordNeighbours: neighbours });
    // A missing or corrupt word-neighbour table: recall went on without expansion; say why, once.
    const tableError = neighbours.takeError();
    if (tableError) this.tiers.log?.error(`memory: ${tableError.message}; recall goes on without word-neighbour expansion`, { code: tableError.code, ...tableError.details });
    const out: RecallEntry[] = ranked.hits.filter((h) => want.has(h.tier) && (h.direct || !opts.matchesOnly)).map((h) => ({ hit: turnHit(h), doc: h.doc }));
    if (!want.has('graph')) return out.slice(0, k);
    for (const f of this.facts(q, ranked.scoreText)) out.push(f);
    out.sort((a, b) => b.hit.score - a.hit.score);
    const top = out.slice(0, k);
    // Provenance of the facts that made the list: the turn each was distilled from.
    for (const e of top) if (e.relation) this.withSource(e);
    return top;
  }

  /**
   * Everyone memory has heard, by the speakers every tier records (the context window's events,
   * the warm documents' and the archive's speaker indexes), with the latest display name known, and
   * every id linked to a person of the people registry under that person's name; people recorded
   * without a name cannot be named in a query.
   */
  participants(): Participant[] {
    const names = new Map<string, string>();
    const add = (id: string, name: string | undefined) => {
      if (name && !names.has(id)) names.set(id, name);
    };
    for (const e of this.tiers.context?.()?.events() ?? []) if (e.speaker) add(e.speaker.id, e.speaker.name);
    for (const [id, name] of this.tiers.docs?.()?.speakers() ?? []) add(id, name);
    for (const [id, name] of this.tiers.archive?.()?.speakers() ?? []) add(id, name);
    const out = [...names].map(([id, name]) => ({ id, name }));
    // A linked person's registry name names every id linked to them (the owner is "I", not a name).
    for (const p of this.tiers.people?.()?.list() ?? []) if (!p.owner) for (const id of p.ids) out.push({ id, name: p.name });
    return out;
  }

  private withSource(e: RecallEntry): void {
    const src = this.sources(e.relation!.refs ?? [], 1)[0];
    if (!src) return;
    Object.assign(e.hit, { createdAt: src.createdAt, sessionId: src.sessionId, channel: src.channel, source: src.source, turnId: src.turnId ?? e.hit.turnId });
    if (src.speaker) e.hit.speaker = src.speaker;
  }

  /** Graph facts reached from the query's keywords, scored by the query terms on their text. */
  private facts(q: string, scoreText: (t: string) => number): RecallEntry[] {
    const graph = this.tiers.graph?.();
    if (!graph?.isOpen) return [];
    const zone = this.timeZone();
    const kws = this.tiers.embedder.keywords(q, 8).filter((x) => x.trim() && x.length <= 200);
    if (!kws.length) return [];
    const rels = graph.recall(kws, 1, { maxEntities: 40, maxRelations: MAX_FACTS, touch: false }).relations;
    const out: RecallEntry[] = [];
    for (const r of rels) {
      // K-4: a fact that was superseded says until when it held and ranks below the current one,
      // so "where do I live" gets the current value and "where did I live before" still finds the old.
      const closed = typeof r.validTo === 'number';
      const text = closed ? `${factText(r)} (until ${localDay(r.validTo!, zone)})` : factText(r);
      const score = scoreText(factText(r)) * (closed ? 0.5 : 1);
      if (score <= 0) continue;
      const hit: RecallHit = { tier: 'graph', id: `relation:${r.id}`, text, score, createdAt: 0, sessionId: '', channel: '', source: 'graph', kind: r.predicate, refs: r.refs ?? [] };
      // Not a kept fact's source, which names no turn (decision 0520).
      const first = r.refs?.find((x) => keptFactAt([x]) === undefined);
      if (first) hit.turnId = first;
      out.push({ relation: r, hit });
    }
    return out;
  }

  /**
   * The turns a fact cites (its refs: event ids or turn ids), found in whichever tier holds them
   * now, oldest first: "a fact can bring back its source".
   */
  sources(refs: readonly string[], limit = 10): RecallHit[] {
    if (!refs.length) return [];
    const seen = new Map<string, RecallHit>();
    const add = (d: MemoryDocument, tier: RecallTier) => {
      if (!seen.has(d.id)) seen.set(d.id, turnHit({ doc: d, tier: tier as RankedDoc['tier'], score: 0, lexical: 0, direct: false }));
    };
    const want = new Set(refs);
    for (const e of this.tiers.context?.()?.events() ?? []) if (want.has(e.id) || want.has(e.refs?.[0] ?? '')) add(ctxDoc(e), 'context');
    for (const d of this.tiers.docs?.()?.byRefs(refs, limit) ?? []) add(d, 'document');
    for (const r of this.tiers.archive?.()?.byRefs(refs, limit) ?? []) add(r.doc, 'archive');
    return [...seen.values()].sort((a, b) => a.createdAt - b.createdAt).slice(0, limit);
  }

  /**
   * 【相关记忆文档】 (T-3 auto-injection): the best `k` turns outside the context window (the
   * timeline already shows those); warm documents count one access each.
   */
  async related(query: string, k: number, scope?: readonly string[], asker?: Speaker): Promise<RecallEntry[]> {
    if (k <= 0) return [];
    // In a scoped conversation (a group, or a private chat with someone else) only what was said
    // there may be injected, as the kernel scopes the timeline.
    const all = await this.entries(query, { k: scope ? Math.max(50, k * 10) : k, tiers: ['document', 'archive'], ...(asker ? { asker } : {}) });
    const inScope = scope ? new Set(scope) : undefined;
    const hits = (inScope ? all.filter((h) => h.hit.conversation !== undefined && inScope.has(h.hit.conversation.id)) : all).slice(0, k);
    const docs = this.tiers.docs?.();
    const warm = hits.filter((h) => h.hit.tier === 'document').map((h) => h.hit.id);
    if (docs && warm.length) docs.touch(warm);
    return hits;
  }

  /**
   * doc_query (T-3): recalls from every tier; the documents and archived turns found go back into
   * the context window as `cold_storage` events at their original time and with their id. A warm
   * document is then removed from the document tier (it lives in the context again and returns to
   * the documents when pruned); an archived turn stays in the archive, the permanent record (the
   * window holds a copy with the same id, so recall counts it once). The window is written before
   * any document is removed, so a kill in between loses nothing.
   */
  async consume(query: string, k: number, context: ContextWindow, scope?: readonly string[]): Promise<{ restored: number; hits: RecallHit[] }> {
    const entries = await this.scoped(query, { k, ...(scope ? { scope } : {}) });
    const present = new Set(context.events().map((e) => e.id));
    const back = entries.filter((e) => (e.hit.tier === 'document' || e.hit.tier === 'archive') && e.doc && !present.has(e.doc.id));
    for (const e of back) {
      const d = e.doc!;
      context.append({
        id: d.id,
        kind: 'cold_storage',
        source: 'cold_storage',
        channel: d.channel,
        sessionId: d.sessionId,
        input: d.input,
        response: d.response,
        timestamp: d.createdAt,
        refs: d.refs,
        ...(d.speaker ? { speaker: d.speaker } : {}),
        ...(d.conversation ? { conversation: d.conversation } : {}),
      });
    }
    if (back.length) await context.flush();
    const warm = back.filter((e) => e.hit.tier === 'document').map((e) => e.doc!.id);
    if (warm.length) this.tiers.docs?.()?.removeMany(warm);
    return { restored: back.length, hits: entries.map((e) => e.hit) };
  }
}

/**
 * The conversations a prompt's memory must stay inside, by the kernel's rule for the
 * timeline: a group, or a private chat with anyone but the owner, sees only its own conversation —
 * and, with the people registry, a linked person's private chats on every platform (decision
 * 0090); the owner in their own places sees everything (undefined). Without a registry the owner
 * is `core.identity.owner_ids`.
 */
export function recallScope(q: Pick<PromptQuery, 'speaker' | 'conversation'>, ownerIds: readonly string[], people?: PeopleDirectory): readonly string[] | undefined {
  return turnAudience(q.speaker, q.conversation, ownerIds, people).scope;
}

/** A fact as text: `subject predicate object` (predicate words spaced). */
export function factText(r: Pick<GraphRelation, 'subject' | 'predicate' | 'object'>): string {
  return `${r.subject} ${r.predicate.replace(/_/g, ' ')} ${r.object}`;
}

function turnHit(h: RankedDoc): RecallHit {
  const d = h.doc;
  const hit: RecallHit = {
    tier: h.tier,
    id: d.id,
    text: d.content,
    score: h.score,
    createdAt: d.createdAt,
    sessionId: d.sessionId,
    channel: d.channel,
    source: d.source,
    kind: d.eventKind ?? d.kind,
    refs: d.refs,
  };
  if (d.speaker) hit.speaker = d.speaker;
  if (d.conversation) hit.conversation = d.conversation;
  if (d.refs[0]) hit.turnId = d.refs[0];
  return hit;
}

/** A context event as a document, its text as said (not cleaned). */
function ctxDoc(e: ContextEvent): MemoryDocument {
  return eventAsDoc(e, `${e.input} ${e.response}`.trim());
}
