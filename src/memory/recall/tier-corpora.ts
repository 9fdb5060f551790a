import type { ContextEvent } from '../../spec/memory.js';
import type { ArchivedRow, ColdArchive } from '../archive/index.js';
import type { DocStore, MemoryDocument } from '../documents/index.js';
import { bm25Score, cleanText, cosine, topEntries, weightsOf, type Bm25Stats, type EmbedderService } from '../embedder/index.js';
import { timeOrder, type RecallCorpus, type TermCounts } from './recall-corpus.js';

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
    adjacent: (doc, span) => store.adjacent(doc, span),
    dense: (qv, model) => store.hybrid.denseScores(qv, model),
  };
}

/** Above this many archived documents, a very common term reads only its newest rows (see `ColdArchive.candidates`). */
export const ARCHIVE_EXACT_BELOW = 5_000;
/** Rows read per query term beyond that size (expansion terms get a quarter). */
export const ARCHIVE_TERM_QUOTA = 400;

/** The cold archive (SQLite, no in-memory index) as a recall tier. */
export function archiveCorpus(archive: ColdArchive): RecallCorpus {
  // Rows read during one ranking: get/termsOf/adjacent of the same query never go back to SQLite.
  let seen = new Map<string, ArchivedRow>();
  const keep = (rows: ArchivedRow[]): MemoryDocument[] => {
    for (const r of rows) seen.set(r.doc.id, r);
    return rows.map((r) => r.doc);
  };
  const row = (id: string): ArchivedRow | undefined => {
    let r = seen.get(id);
    if (!r) {
      r = archive.get(id);
      if (r) seen.set(id, r);
    }
    return r;
  };
  return {
    tier: 'archive',
    begin: () => {
      seen = new Map();
    },
    size: () => ({ docs: archive.size, tokens: archive.totalTokens }),
    df: (terms) => archive.df(terms),
    lexical: (terms, stats, limit) => {
      const exact = archive.size <= ARCHIVE_EXACT_BELOW;
      const strongest = Math.max(0, ...terms.values());
      const quota = (t: string) => (exact ? Infinity : (terms.get(t) ?? 0) < strongest * 0.5 ? ARCHIVE_TERM_QUOTA / 4 : ARCHIVE_TERM_QUOTA);
      const rows = archive.candidates(terms.keys(), quota);
      const scores = new Map<string, number>();
      for (const r of rows) {
        seen.set(r.doc.id, r);
        const s = bm25Score(terms, r.terms, r.len, stats);
        if (s > 0) scores.set(r.doc.id, s);
      }
      return scores.size > limit ? new Map(topEntries(scores, limit)) : scores;
    },
    get: (id) => row(id)?.doc,
    termsOf: (id) => {
      const r = row(id);
      return r ? { terms: r.terms, len: r.len } : undefined;
    },
    adjacent: (doc, span) => {
      const a = archive.adjacent(doc, span);
      return { before: keep(a.before), after: keep(a.after) };
    },
    adjacentMany: (docs) => {
      const out = new Map<string, { before: MemoryDocument[]; after: MemoryDocument[] }>();
      for (const [id, a] of archive.adjacentMany(docs)) out.set(id, { before: keep(a.before), after: keep(a.after) });
      return out;
    },
    dense: (qv, model, ids) => {
      const out = new Map<string, number>();
      for (const id of ids) {
        const v = row(id)?.vec;
        if (v && v.modelId === model && v.vector.length === qv.length) out.set(id, cosine(qv, v.vector));
      }
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
  let byId = new Map<string, EventEntry>();
  let bySession = new Map<string, MemoryDocument[]>();
  const load = () => {
    entries = events().map((e) => {
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
    adjacent: (doc, span) => {
      const same = bySession.get(doc.sessionId) ?? [];
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
  return doc;
}
