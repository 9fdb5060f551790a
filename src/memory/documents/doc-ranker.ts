import type { ContextEvent } from '../../spec/memory.js';
import { cleanText, cosine, topEntries, type HybridIndex } from '../embedder/index.js';
import type { DocHit, MemoryDocument } from './memory-document.js';
import { inScope, scopeWords, temporalScopes } from './temporal-scope.js';

/** Knobs of document ranking; defaults are the best measured on the LoCoMo dev half. */
export interface RankOptions {
  /** Fusion weights of the normalised lexical and dense scores (dense only with a model). */
  lexicalWeight: number;
  denseWeight: number;
  /** Share of the best neighbour's score a document inherits (conversation turns answer each other). */
  neighbourWeight: number;
  /** Pseudo-relevance feedback: expansion terms taken from the top documents. */
  prfDocs: number;
  prfTerms: number;
  prfWeight: number;
  /** Multiplier bonus for documents dated in a month/year the query names. */
  dateBoost: number;
  /** Extra weight of query terms written as proper names (capitalised, not sentence-initial). */
  entityBoost: number;
  /** Share of its session's best score a candidate inherits (topic continuity within a conversation). */
  sessionWeight: number;
  /** Candidates kept from each component before fusion. */
  maxCandidates: number;
  /** How many top candidates get neighbour expansion. */
  candidatePool: number;
}

export const DEFAULT_RANK_OPTIONS: RankOptions = {
  lexicalWeight: 0.5,
  denseWeight: 0.5,
  neighbourWeight: 0.5,
  prfDocs: 3,
  prfTerms: 8,
  prfWeight: 0.25,
  dateBoost: 1,
  entityBoost: 0,
  candidatePool: 100,
  maxCandidates: 1000,
  sessionWeight: 0.3,
};

interface Transient {
  doc: MemoryDocument;
  tokens: string[];
  text: string;
  vec?: { modelId: string; vector: Float32Array | null };
}

const transientCache = new WeakMap<ContextEvent, Transient>();

/**
 * Ranks documents for a query: BM25 (+ pseudo-relevance-feedback expansion) fused with dense
 * cosine when the embedder has a model, then each candidate inherits part of its best neighbour's
 * score (adjacent turns of the same session: a question and its answer share the evidence).
 * Live context events given in `alsoEvents` are ranked in the same pass under the same statistics.
 */
export async function rankDocuments(
  index: HybridIndex<MemoryDocument>,
  query: string,
  k: number,
  ctx: { neighbours: (id: string) => MemoryDocument[]; alsoEvents?: readonly ContextEvent[]; options?: Partial<RankOptions> },
): Promise<DocHit[]> {
  const o = { ...DEFAULT_RANK_OPTIONS, ...ctx.options };
  const emb = index.embedder;
  const transients: Transient[] = (ctx.alsoEvents ?? []).filter((e) => !index.has(e.id)).map((e) => {
    // Context events are immutable objects: tokenise each once, not once per query.
    let t = transientCache.get(e);
    if (!t) {
      const text = cleanText(`${e.input} ${e.response}`);
      t = { text, tokens: emb.tokenize(text), doc: eventAsDoc(e, text) };
      transientCache.set(e, t);
    }
    return t;
  });
  const tById = new Map(transients.map((t) => [t.doc.id, t]));

  let terms = index.queryTerms(query);
  const scopes = o.dateBoost > 0 ? temporalScopes(query) : [];
  // A month or year named in the query is a time filter, not a word to match.
  if (scopes.length > 0) for (const t of emb.tokenize(scopeWords(query))) if (terms.size > 1) terms.delete(t);
  if (o.entityBoost > 0) {
    for (const t of emb.tokenize(properNames(query))) {
      const w = terms.get(t);
      if (w !== undefined) terms.set(t, w * (1 + o.entityBoost));
    }
  }
  const lexScores = (): Map<string, number> => {
    const m = index.scoreTerms(terms, o.maxCandidates);
    for (const t of transients) {
      const s = index.scoreExternal(terms, t.tokens);
      if (s > 0) m.set(t.doc.id, s);
    }
    return m;
  };
  let lex = lexScores();
  if (o.prfDocs > 0 && o.prfTerms > 0 && o.prfWeight > 0 && lex.size > 0) {
    const extra = expansionTerms(index, lex, terms, tById, o);
    if (extra.size > 0) {
      terms = new Map(terms);
      for (const [t, w] of extra) terms.set(t, Math.max(terms.get(t) ?? 0, w));
      lex = lexScores();
    }
  }

  let dense = new Map<string, number>();
  if (emb.dense && o.denseWeight > 0) {
    const model = emb.modelId();
    const [qv] = await emb.embed([query]);
    if (qv && emb.modelId() === model) {
      dense = index.denseScores(qv, model);
      if (transients.length) {
        const todo = transients.filter((t) => t.vec?.modelId !== model);
        if (todo.length) {
          const vs = await emb.embed(todo.map((t) => t.text));
          todo.forEach((t, i) => (t.vec = { modelId: model, vector: vs[i] }));
        }
        for (const t of transients) {
          const v = t.vec?.vector;
          if (v && v.length === qv.length) dense.set(t.doc.id, cosine(qv, v));
        }
      }
    }
  }

  // Only the best candidates of each component take part in fusion (bounded work on 100k docs).
  if (lex.size > o.maxCandidates) lex = new Map(topEntries(lex, o.maxCandidates));
  if (dense.size > o.maxCandidates) dense = new Map(topEntries(dense, o.maxCandidates));

  // Relative-score fusion: each component divided by its best value.
  const base = new Map<string, number>();
  const maxL = maxOf(lex);
  const maxD = maxOf(dense);
  const wl = dense.size ? o.lexicalWeight : 1;
  const wd = dense.size ? o.denseWeight : 0;
  for (const [id, s] of lex) base.set(id, (wl * s) / maxL);
  if (wd > 0) for (const [id, s] of dense) if (s > 0) base.set(id, (base.get(id) ?? 0) + (wd * s) / maxD);

  const docOf = (id: string): MemoryDocument | undefined => tById.get(id)?.doc ?? index.get(id)?.meta;
  const neighboursOf = (id: string): MemoryDocument[] => (tById.has(id) ? transientNeighbours(transients, id) : ctx.neighbours(id));

  let final = base;
  if (o.neighbourWeight > 0) {
    const pool = topEntries(base, o.candidatePool).map(([id]) => id);
    const cands = new Set(pool);
    for (const id of pool) for (const n of neighboursOf(id)) cands.add(n.id);
    final = new Map();
    for (const id of cands) {
      let best = 0;
      for (const n of neighboursOf(id)) best = Math.max(best, base.get(n.id) ?? 0);
      final.set(id, (base.get(id) ?? 0) + o.neighbourWeight * best);
    }
  }

  if (o.sessionWeight > 0) {
    const best = new Map<string, number>();
    for (const [id, sc] of base) {
      const d = docOf(id);
      if (d) best.set(d.sessionId, Math.max(best.get(d.sessionId) ?? 0, sc));
    }
    for (const [id, sc] of final) {
      const d = docOf(id);
      if (d) final.set(id, sc + o.sessionWeight * (best.get(d.sessionId) ?? 0));
    }
  }
  if (scopes.length > 0) {
    for (const [id, s] of final) {
      const d = docOf(id);
      if (d && scopes.some((sc) => inScope(d.createdAt, sc))) final.set(id, s * (1 + o.dateBoost));
    }
  }

  const hits: DocHit[] = [];
  for (const [id, score] of topEntries(final, k)) {
    const doc = docOf(id);
    if (doc && score > 0) hits.push({ doc, score });
  }
  return hits;
}

/** Capitalised words that do not start a sentence: likely names of people, places, things. */
function properNames(q: string): string {
  const out: string[] = [];
  for (const m of q.matchAll(/(^|[.!?]\s+|\s)([A-Z][\p{L}'’-]*)/gu)) {
    if (m.index === 0 || /[.!?]\s+$/.test(m[1])) continue;
    out.push(m[2]);
  }
  return out.join(' ');
}

function maxOf(m: Map<string, number>): number {
  let x = 0;
  for (const v of m.values()) if (v > x) x = v;
  return x || 1;
}

/** RM-style expansion: terms weighted by tf/len · idf across the top documents, scaled to prfWeight. */
function expansionTerms(index: HybridIndex<MemoryDocument>, lex: Map<string, number>, q: Map<string, number>, tById: Map<string, Transient>, o: RankOptions): Map<string, number> {
  const top = topEntries(lex, o.prfDocs);
  const bm = index.lexical;
  const acc = new Map<string, number>();
  const maxS = top[0]?.[1] ?? 1;
  for (const [id, s] of top) {
    const t = tById.get(id);
    const terms: ReadonlyMap<string, number> | undefined = t ? countOf(t.tokens) : bm.terms(id);
    if (!terms) continue;
    let len = 0;
    for (const c of terms.values()) len += c;
    for (const [term, c] of terms) {
      if (q.has(term) || bm.df(term) < 2) continue;
      acc.set(term, (acc.get(term) ?? 0) + (s / maxS) * (c / len) * bm.idf(term));
    }
  }
  const best = [...acc.entries()].sort((a, b) => b[1] - a[1]).slice(0, o.prfTerms);
  const max = best[0]?.[1] ?? 0;
  const out = new Map<string, number>();
  if (max > 0) for (const [t, w] of best) out.set(t, (o.prfWeight * w) / max);
  return out;
}

function countOf(tokens: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

function transientNeighbours(ts: Transient[], id: string): MemoryDocument[] {
  const i = ts.findIndex((t) => t.doc.id === id);
  const d = ts[i].doc;
  return [ts[i - 1], ts[i + 1]].filter((t): t is Transient => t !== undefined && t.doc.sessionId === d.sessionId).map((t) => t.doc);
}

/** A live context event seen as a (transient) document. */
export function eventAsDoc(e: ContextEvent, text = cleanText(`${e.input} ${e.response}`)): MemoryDocument {
  return {
    id: e.id,
    content: text,
    input: e.input,
    response: e.response,
    kind: 'context',
    source: e.source,
    channel: e.channel,
    sessionId: e.sessionId,
    createdAt: e.timestamp,
    addedAt: e.timestamp,
    accessCount: 0,
    refs: e.refs ?? [],
  };
}
