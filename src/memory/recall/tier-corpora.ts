import type { ContextEvent } from '../../spec/memory.js';
import type { ArchivedRow, ColdArchive, RankRow, RowLevel } from '../archive/index.js';
import type { DocStore, MemoryDocument } from '../documents/index.js';
import { bm25Score, cleanText, cosine, topEntries, weightsOf, type Bm25Stats, type EmbedderService } from '../embedder/index.js';
import { timeOrder, type RecallCorpus, type TermCounts } from './recall-corpus.js';
import { dayKeyRanges, eventsSaidOn } from './said-days.js';

/** The warm documents (DocStore's in-memory index) as a recall tier. */
export function documentCorpus(store: DocStore): RecallCorpus {
  return {
    tier: 'document',
    size: () => {
      const bm = store.hybrid.lexical;
      return { docs: bm.size, tokens: bm.totalLength };
    },
    df: (terms) => new Map(terms.map((t) => [t, store.hybrid.lexical.df(t)])),
    lexical: (terms, stats, limit) => store.hybrid.scoreTerms(terms, limit, stats),
    get: (id) => store.get(id),
    termsOf: (id) => store.termsOf(id),
    // Ranking reads many lengths per query: without building each document's term counts.
    lengthOf: (id) => store.lengthOf(id),
    adjacent: (doc, span) => store.adjacent(doc, span),
    dense: (qv, model) => store.hybrid.denseScores(qv, model),
    saidOn: (scopes, limit) => store.saidOn(dayKeyRanges(scopes, store.saidYears()), limit),
  };
}

/** Up to this many archived documents, every row holding a query term is scored (exact). */
export const ARCHIVE_EXACT_BELOW = 5_000;
/** Beyond it, rows read per query for the query's own terms, and for expansion terms. */
export const ARCHIVE_ROW_BUDGET = 800;
export const ARCHIVE_EXPANSION_BUDGET = 200;

/**
 * How many rows each term may read: the rarest terms first, each at most an equal share of what
 * is left of the budget (a rare term takes all its rows, a common one its newest `share`).
 */
export function archiveQuotas(terms: Map<string, number>, df: Map<string, number>, docs: number): Map<string, number> {
  const out = new Map<string, number>();
  if (docs <= ARCHIVE_EXACT_BELOW) {
    for (const t of terms.keys()) out.set(t, Infinity);
    return out;
  }
  const strongest = Math.max(0, ...terms.values());
  for (const [expansion, budget] of [[false, ARCHIVE_ROW_BUDGET], [true, ARCHIVE_EXPANSION_BUDGET]] as const) {
    const list = [...terms.keys()].filter((t) => (terms.get(t)! < strongest * 0.5) === expansion && (df.get(t) ?? 0) > 0).sort((a, b) => df.get(a)! - df.get(b)!);
    let left: number = budget;
    list.forEach((t, i) => {
      const q = Math.min(df.get(t)!, Math.max(20, Math.floor(left / (list.length - i))));
      out.set(t, q);
      left = Math.max(0, left - q);
    });
  }
  return out;
}

/**
 * Archive documents (and foreign neighbour links) the recall keeps between queries, at most, while
 * the archive is small enough to be scored exactly ({@link ARCHIVE_EXACT_BELOW}): a LoCoMo-sized
 * archive fits whole. Beyond it the archive's own reads are kept for one query only (decision 0230).
 */
export const ARCHIVE_KEPT_DOCS = 2_048;

/** Postings (row, tf, length) the recall keeps between queries, at most (≈ 50 B each). */
export const ARCHIVE_KEPT_POSTINGS = 20_000;

/**
 * Archive neighbours of other tiers' documents (warm documents, context events) the recall keeps
 * between queries, at most, at any archive size (unlike the archive's own rows, which a large
 * archive keeps for one query). The documents they are asked for, the warm tier (5,000 at its
 * bound) and the window, come back query after query, and nearly all have no archive neighbour (a
 * shared empty entry: ≈ 100 B each). Kept with the rows, they were dropped with them and asked of
 * SQLite again: ≈ 200–400 lookups per Chinese query at 1,000,000 archived turns (decision 0200).
 */
export const ARCHIVE_KEPT_FOREIGN = 8_192;

/** Each term's postings as read for a quota (`ColdArchive.score`'s cache), counting what it holds. */
class PostingsKept extends Map<string, [number, number, number][]> {
  count = 0;
  override set(key: string, value: [number, number, number][]): this {
    this.count += value.length;
    return super.set(key, value);
  }
}

/** A document's neighbours in its session: the turn before and the turn after (either may be missing). */
type Links = { before: MemoryDocument[]; after: MemoryDocument[] };

/** No neighbour on that side (shared: links are only read). */
const NONE: MemoryDocument[] = Object.freeze([]) as unknown as MemoryDocument[];
const NO_LINKS: Links = Object.freeze({ before: NONE, after: NONE });

/** An archive row as ranking keeps it: its document (keyed by row number), its links, whether it asks, its length. */
interface Kept {
  doc: MemoryDocument;
  prev: number | null;
  next: number | null;
  asks: boolean;
  /** Token count (BM25's length). */
  len: number;
}

/** A document of another tier as the archive's neighbour lookup sees it (session, time, id). */
const foreignKey = (d: Pick<MemoryDocument, 'sessionId' | 'createdAt' | 'id'>) => `${d.sessionId}\u0000${d.createdAt}\u0000${d.id}`;

/** At this archive size and above, ranking keeps only this many archive candidates (by BM25) for fusion. */
export const ARCHIVE_RANK_LIMIT = 200;

const KEY = '\u0001';
const keyOf = (n: number) => `${KEY}${n}`;
const nOf = (key: string) => (key.startsWith(KEY) ? Number(key.slice(1)) : NaN);

/**
 * The cold archive (SQLite, no in-memory index) as a recall tier. While ranking, its documents are
 * keyed by row number (the postings give row numbers; ids are read only for the rows ranking
 * keeps), and read partially; `complete` returns the hits whole, with their real ids.
 */
export function archiveCorpus(archive: ColdArchive): RecallCorpus {
  let scores = new Map<number, number>();
  // Kept while the archive is unchanged (`archive.version`; any write, delete, open or close starts
  // them afresh, so a forgotten row is never served from here), and bounded: the rows read for
  // ranking (their documents, keyed by row number, and their links), the postings read, and the
  // archive neighbours of its own rows (by row number) — between queries only while the archive is
  // scored exactly (`ARCHIVE_EXACT_BELOW`), else for one query (decision 0230: at 1,000,000 turns
  // queries rarely share rows, and what was kept lived just long enough to be promoted to V8's old
  // generation and die there: ≈ 27 MiB more RSS and more CPU for the collections than the reads it
  // saved) — and, under a bound of their own and between queries at any size, the archive
  // neighbours of other tiers' documents (by `foreignKey`, decision 0200).
  let kept = new Map<number, Kept>();
  let postings = new PostingsKept();
  let own = new Map<number, Links>();
  let foreign = new Map<string, Links>();
  let version = archive.version;
  const fresh = () => {
    const changed = version !== archive.version;
    if (changed || foreign.size > ARCHIVE_KEPT_FOREIGN) foreign = new Map();
    const oneQuery = archive.size > ARCHIVE_EXACT_BELOW;
    if (!changed && !oneQuery && kept.size <= ARCHIVE_KEPT_DOCS && own.size <= ARCHIVE_KEPT_DOCS && postings.count <= ARCHIVE_KEPT_POSTINGS) return;
    version = archive.version;
    kept = new Map();
    postings = new PostingsKept();
    own = new Map();
  };
  const keep = (r: ArchivedRow): Kept => {
    let k = kept.get(r.n);
    if (!k) kept.set(r.n, (k = { doc: { ...r.doc, id: keyOf(r.n) }, prev: r.prev, next: r.next, asks: r.asks, len: r.len }));
    return k;
  };
  /**
   * A row as ranking reads it, kept as a document keyed by row number. Like every archive document
   * ranking holds it is partial (no text, kind or conversation: ranking reads none of them, and
   * `complete` returns the hits whole).
   */
  const keepRanked = (r: RankRow): void => {
    const n = r[0];
    if (kept.has(n)) return;
    const createdAt = r[2];
    const d: MemoryDocument = { id: keyOf(n), content: '', input: '', response: '', kind: '', source: '', channel: '', sessionId: r[1], createdAt, addedAt: createdAt, accessCount: 0, refs: [], eventKind: r[6] || undefined };
    if (r[7]) d.speaker = { id: r[7] };
    kept.set(n, { doc: d, prev: r[4], next: r[5], asks: r[8] === 1, len: r[3] });
  };
  const doc = (r: ArchivedRow): MemoryDocument => keep(r).doc;
  const rowsOf = (ns: number[], level: RowLevel = 'light') => archive.rows(ns.filter((n) => Number.isFinite(n)), level);
  /** Reads (one statement) the listed rows not kept yet. */
  const keepRows = (ns: readonly number[]) => {
    const todo: number[] = [];
    for (const n of ns) if (Number.isFinite(n) && !kept.has(n)) todo.push(n);
    for (const r of archive.rankRows(todo)) keepRanked(r);
  };
  const linksOf = (n: number): Links => {
    const k = kept.get(n);
    const p = k && k.prev !== null ? kept.get(k.prev) : undefined;
    const x = k && k.next !== null ? kept.get(k.next) : undefined;
    return { before: p ? [p.doc] : NONE, after: x ? [x.doc] : NONE };
  };
  /** Neighbours of the archive's own rows: their links are kept with them, so only the neighbours' rows are read. */
  const ownLinks = (ds: readonly MemoryDocument[], out: Map<string, Links>) => {
    const todo: number[] = [];
    for (const d of ds) {
      const n = nOf(d.id);
      if (!own.has(n)) todo.push(n);
    }
    if (todo.length) {
      keepRows(todo);
      const near: number[] = [];
      for (const n of todo) {
        const k = kept.get(n);
        if (k?.prev != null) near.push(k.prev);
        if (k?.next != null) near.push(k.next);
      }
      keepRows(near);
      for (const n of todo) own.set(n, linksOf(n));
    }
    for (const d of ds) out.set(d.id, own.get(nOf(d.id))!);
  };
  const foreignLinks = (ds: readonly MemoryDocument[], out: Map<string, Links>) => {
    const todo = ds.filter((d) => !foreign.has(foreignKey(d)));
    if (todo.length) {
      for (const d of todo) foreign.set(foreignKey(d), NO_LINKS);
      const byId = new Map(todo.map((d) => [d.id, d]));
      for (const [id, a] of archive.adjacentMany(todo)) foreign.set(foreignKey(byId.get(id)!), { before: a.before.map(doc), after: a.after.map(doc) });
    }
    for (const d of ds) out.set(d.id, foreign.get(foreignKey(d))!);
  };
  return {
    tier: 'archive',
    begin: () => {
      fresh();
      scores = new Map();
    },
    end: () => {
      scores = new Map();
    },
    size: () => ({ docs: archive.size, tokens: archive.totalTokens }),
    df: (terms) => archive.df(terms),
    lexical: (terms, stats, limit) => {
      const quotas = archiveQuotas(terms, archive.df(terms.keys()), archive.size);
      scores = archive.score(terms, stats, (t) => quotas.get(t) ?? 0, postings);
      const cap = archive.size <= ARCHIVE_EXACT_BELOW ? limit : Math.min(limit, ARCHIVE_RANK_LIMIT);
      const top = scores.size > cap ? topEntries(scores, cap) : [...scores];
      keepRows(top.map(([n]) => n));
      const out = new Map<string, number>();
      for (const [n, s] of top) if (kept.has(n)) out.set(keyOf(n), s);
      return out;
    },
    get: (key) => {
      const n = nOf(key);
      if (!Number.isFinite(n)) return undefined;
      const known = kept.get(n);
      if (known) return known.doc;
      keepRows([n]);
      return kept.get(n)?.doc;
    },
    scoreOf: (key) => scores.get(nOf(key)) ?? 0,
    asks: (key) => {
      const n = nOf(key);
      return kept.get(n)?.asks;
    },
    lengthOf: (key) => {
      const n = nOf(key);
      if (!kept.has(n)) keepRows([n]);
      return kept.get(n)?.len;
    },
    termsOf: (key) => {
      const r = rowsOf([nOf(key)], 'tokens').get(nOf(key));
      return r?.terms ? { terms: r.terms, len: r.len } : undefined;
    },
    adjacent: (d, span) => {
      if (span === 1) {
        const out = new Map<string, Links>();
        if (Number.isFinite(nOf(d.id))) ownLinks([d], out);
        else foreignLinks([d], out);
        return out.get(d.id) ?? { before: [], after: [] };
      }
      const a = archive.adjacent(d, span);
      return { before: a.before.map(doc), after: a.after.map(doc) };
    },
    adjacentMany: (ds) => {
      const mine: MemoryDocument[] = [];
      const other: MemoryDocument[] = [];
      for (const d of ds) (Number.isFinite(nOf(d.id)) ? mine : other).push(d);
      const out = new Map<string, Links>();
      ownLinks(mine, out);
      foreignLinks(other, out);
      return out;
    },
    saidOn: (scopes, limit) => archive.saidOn(dayKeyRanges(scopes, archive.saidYears()), limit).map(keyOf),
    complete: (ds) => {
      const full = archive.rows(ds.map((d) => nOf(d.id)), 'full');
      return ds.map((d) => full.get(nOf(d.id))?.doc).filter((d): d is MemoryDocument => d !== undefined);
    },
    dense: (qv, model, ids) => {
      const rows = rowsOf(ids.map(nOf), 'tokens');
      const out = new Map<string, number>();
      for (const r of rows.values()) if (r.vec && r.vec.modelId === model && r.vec.vector.length === qv.length) out.set(keyOf(r.n), cosine(qv, r.vec.vector));
      return out;
    },
  };
}

interface EventEntry {
  doc: MemoryDocument;
  counts: TermCounts;
  text: string;
  vec?: { modelId: string; vector: Float32Array | null };
}

/** Context events are immutable objects: tokenised once, not once per query. */
const eventCache = new WeakMap<ContextEvent, EventEntry>();

/** The live context window as a recall tier (its events seen as transient documents). */
export function contextCorpus(events: () => readonly ContextEvent[], embedder: EmbedderService): RecallCorpus {
  let entries: EventEntry[] = [];
  let live: readonly ContextEvent[] = [];
  let byId = new Map<string, EventEntry>();
  let bySession = new Map<string, MemoryDocument[]>();
  const load = () => {
    live = events();
    entries = live.map((e) => {
      let x = eventCache.get(e);
      if (!x) {
        const text = cleanText(`${e.input} ${e.response}`);
        const toks = embedder.tokenize(text);
        x = { text, doc: eventAsDoc(e, text), counts: { terms: weightsOf(toks), len: toks.length } };
        eventCache.set(e, x);
      }
      return x;
    });
    byId = new Map(entries.map((x) => [x.doc.id, x]));
    bySession = new Map();
    for (const x of entries) {
      let l = bySession.get(x.doc.sessionId);
      if (!l) bySession.set(x.doc.sessionId, (l = []));
      l.push(x.doc);
    }
    for (const l of bySession.values()) l.sort(timeOrder);
  };
  return {
    tier: 'context',
    begin: load,
    size: () => ({ docs: entries.length, tokens: entries.reduce((a, x) => a + x.counts.len, 0) }),
    df: (terms) => {
      const out = new Map<string, number>();
      for (const t of terms) out.set(t, entries.reduce((a, x) => a + (x.counts.terms.has(t) ? 1 : 0), 0));
      return out;
    },
    lexical: (terms, stats: Bm25Stats, limit) => {
      const out = new Map<string, number>();
      for (const x of entries) {
        const s = bm25Score(terms, x.counts.terms, x.counts.len, stats);
        if (s > 0) out.set(x.doc.id, s);
      }
      return out.size > limit ? new Map(topEntries(out, limit)) : out;
    },
    get: (id) => byId.get(id)?.doc,
    termsOf: (id) => byId.get(id)?.counts,
    saidOn: (scopes, limit, zone) => eventsSaidOn(live, scopes, limit, zone),
    adjacent: (doc, span) => {
      const same = bySession.get(doc.sessionId);
      // Most documents ranked are of sessions the window does not hold (no arrays for those).
      if (!same) return NO_LINKS;
      const before = same.filter((d) => timeOrder(d, doc) < 0).slice(-span).reverse();
      const after = same.filter((d) => timeOrder(d, doc) > 0).slice(0, span);
      return { before, after };
    },
    dense: async (qv, model) => {
      const want = entries;
      const todo = want.filter((x) => x.vec?.modelId !== model);
      if (todo.length) {
        const vs = await embedder.embed(todo.map((x) => x.text));
        todo.forEach((x, i) => (x.vec = { modelId: model, vector: vs[i] }));
      }
      const out = new Map<string, number>();
      for (const x of want) {
        const v = x.vec?.vector;
        if (v && v.length === qv.length) out.set(x.doc.id, cosine(qv, v));
      }
      return out;
    },
  };
}

/** A live context event seen as a (transient) document. */
export function eventAsDoc(e: ContextEvent, text = cleanText(`${e.input} ${e.response}`)): MemoryDocument {
  const doc: MemoryDocument = {
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
    eventKind: e.kind,
  };
  if (e.speaker) doc.speaker = e.speaker;
  if (e.conversation) doc.conversation = e.conversation;
  return doc;
}
