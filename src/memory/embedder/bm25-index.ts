import { topEntries } from './top-entries.js';

/** One scored hit of a lexical search. */
export interface LexicalHit {
  id: string;
  score: number;
}

interface DocEntry {
  id: string;
  len: number;
  terms: Map<string, number>;
}

/**
 * In-memory BM25 inverted index over pre-tokenised text (Okapi BM25, k1 1.2, b 0.5 by default).
 * Query terms may carry weights (for expansion terms). Removal is O(terms of the document).
 */
export class Bm25Index {
  private readonly postings = new Map<string, Map<number, number>>();
  private readonly docs: (DocEntry | undefined)[] = [];
  private readonly byId = new Map<string, number>();
  private readonly free: number[] = [];
  private totalLen = 0;

  /** b = 0.5: conversational turns are short and similar in length, full length normalisation over-rewards the shortest (measured on LoCoMo). */
  constructor(private readonly k1 = 1.2, private readonly b = 0.5) {}

  get size(): number {
    return this.byId.size;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Adds or replaces the document `id`. */
  add(id: string, tokens: string[]): void {
    if (this.byId.has(id)) this.remove(id);
    const terms = new Map<string, number>();
    for (const t of tokens) terms.set(t, (terms.get(t) ?? 0) + 1);
    const num = this.free.pop() ?? this.docs.length;
    this.docs[num] = { id, len: tokens.length, terms };
    this.byId.set(id, num);
    this.totalLen += tokens.length;
    for (const [t, c] of terms) {
      let p = this.postings.get(t);
      if (!p) this.postings.set(t, (p = new Map()));
      p.set(num, c);
    }
  }

  remove(id: string): boolean {
    const num = this.byId.get(id);
    if (num === undefined) return false;
    const d = this.docs[num];
    if (d) {
      for (const t of d.terms.keys()) {
        const p = this.postings.get(t);
        p?.delete(num);
        if (p && p.size === 0) this.postings.delete(t);
      }
      this.totalLen -= d.len;
    }
    this.docs[num] = undefined;
    this.byId.delete(id);
    this.free.push(num);
    return true;
  }

  /** Inverse document frequency (BM25 form, always ≥ 0). */
  idf(term: string): number {
    const n = this.byId.size;
    const df = this.postings.get(term)?.size ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Document frequency of a term. */
  df(term: string): number {
    return this.postings.get(term)?.size ?? 0;
  }

  /** Tokens of a stored document (term → count). */
  terms(id: string): ReadonlyMap<string, number> | undefined {
    const num = this.byId.get(id);
    return num === undefined ? undefined : this.docs[num]?.terms;
  }

  /** Scores every document holding a query term; returns all hits (unsorted) as a Map id → score. */
  scoreAll(query: string[] | Map<string, number>): Map<string, number> {
    const q = query instanceof Map ? query : weightsOf(query);
    const out = new Map<string, number>();
    const n = this.byId.size;
    if (n === 0) return out;
    const avg = this.totalLen / n || 1;
    const acc = new Map<number, number>();
    for (const [t, w] of q) {
      const p = this.postings.get(t);
      if (!p) continue;
      const idf = this.idf(t) * w;
      for (const [num, tf] of p) {
        const d = this.docs[num];
        if (!d) continue;
        const s = (idf * tf * (this.k1 + 1)) / (tf + this.k1 * (1 - this.b + (this.b * d.len) / avg));
        acc.set(num, (acc.get(num) ?? 0) + s);
      }
    }
    for (const [num, s] of acc) out.set(this.docs[num]!.id, s);
    return out;
  }

  /** Average document length (tokens). */
  get avgLength(): number {
    return this.byId.size ? this.totalLen / this.byId.size : 0;
  }

  /** BM25 score of a token list that is not in the index, under the index's statistics. */
  scoreExternal(query: Map<string, number>, tokens: string[]): number {
    const tf = weightsOf(tokens);
    const avg = this.avgLength || tokens.length || 1;
    let s = 0;
    for (const [t, w] of query) {
      const c = tf.get(t);
      if (!c) continue;
      s += (this.idf(t) * w * c * (this.k1 + 1)) / (c + this.k1 * (1 - this.b + (this.b * tokens.length) / avg));
    }
    return s;
  }

  /** Top-k documents for the query. */
  search(query: string[] | Map<string, number>, k: number, filter?: (id: string) => boolean): LexicalHit[] {
    const all = this.scoreAll(query);
    if (filter) for (const id of all.keys()) if (!filter(id)) all.delete(id);
    return topEntries(all, k).map(([id, score]) => ({ id, score }));
  }
}

/** Query tokens → term weights (repeated terms count more). */
export function weightsOf(tokens: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}
