import { takeAccumulated, topEntries } from './top-entries.js';

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
 * Collection statistics to score under instead of the index's own: a recall over several tiers
 * (context, documents, cold archive) scores every tier against the statistics of all of them, so a
 * turn keeps its score when it moves from one tier to the next.
 */
export interface Bm25Stats {
  /** BM25 idf of a term in the whole collection. */
  idf(term: string): number;
  /** Average document length (tokens) of the whole collection. */
  avgLen: number;
}

/** Postings of one term: parallel growable arrays of document numbers and term counts. */
interface Posting {
  nums: Int32Array;
  tfs: Float32Array;
  n: number;
  /** Live documents holding the term (entries of removed documents stay until compaction). */
  df: number;
}

/**
 * In-memory BM25 inverted index over pre-tokenised text (Okapi BM25, k1 1.2, b 0.5 by default).
 * Postings are typed arrays and scores accumulate in a reused Float64Array, so a query over 100k
 * documents touches no per-hit Map until the result is built. Removal tombstones the document;
 * the index compacts itself when more than half of its entries are dead. Query terms may carry
 * weights (expansion terms).
 */
export class Bm25Index {
  private postings = new Map<string, Posting>();
  private docs: (DocEntry | undefined)[] = [];
  private byId = new Map<string, number>();
  private totalLen = 0;
  private dead = 0;
  private acc = new Float64Array(0);
  /** Length per document number; -1 marks a removed document (no object dereference when scoring). */
  private lens = new Float64Array(1024);

  /** b = 0.5: conversational turns are short and similar in length, full length normalisation over-rewards the shortest (measured on LoCoMo). */
  constructor(private readonly k1 = BM25_K1, private readonly b = BM25_B) {}

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
    const num = this.docs.length;
    this.docs.push({ id, len: tokens.length, terms });
    if (num >= this.lens.length) {
      const grown = new Float64Array(this.lens.length * 2);
      grown.set(this.lens);
      this.lens = grown;
    }
    this.lens[num] = tokens.length;
    this.byId.set(id, num);
    this.totalLen += tokens.length;
    for (const [t, c] of terms) {
      let p = this.postings.get(t);
      if (!p) this.postings.set(t, (p = { nums: new Int32Array(4), tfs: new Float32Array(4), n: 0, df: 0 }));
      if (p.n === p.nums.length) {
        const nums = new Int32Array(p.n * 2);
        nums.set(p.nums);
        const tfs = new Float32Array(p.n * 2);
        tfs.set(p.tfs);
        p.nums = nums;
        p.tfs = tfs;
      }
      p.nums[p.n] = num;
      p.tfs[p.n] = c;
      p.n++;
      p.df++;
    }
  }

  remove(id: string): boolean {
    const num = this.byId.get(id);
    if (num === undefined) return false;
    const d = this.docs[num];
    if (d) {
      for (const t of d.terms.keys()) {
        const p = this.postings.get(t);
        if (p && --p.df === 0) this.postings.delete(t);
      }
      this.totalLen -= d.len;
    }
    this.docs[num] = undefined;
    this.lens[num] = -1;
    this.byId.delete(id);
    if (++this.dead > 1000 && this.dead > this.byId.size) this.compact();
    return true;
  }

  /** Inverse document frequency (BM25 form, always ≥ 0). */
  idf(term: string): number {
    return bm25Idf(this.byId.size, this.postings.get(term)?.df ?? 0);
  }

  /** Document frequency of a term. */
  df(term: string): number {
    return this.postings.get(term)?.df ?? 0;
  }

  /** Tokens of a stored document (term → count). */
  terms(id: string): ReadonlyMap<string, number> | undefined {
    const num = this.byId.get(id);
    return num === undefined ? undefined : this.docs[num]?.terms;
  }

  /** Average document length (tokens). */
  get avgLength(): number {
    return this.byId.size ? this.totalLen / this.byId.size : 0;
  }

  /** Sum of the lengths (tokens) of the live documents. */
  get totalLength(): number {
    return this.totalLen;
  }

  /** Length (tokens) of a stored document. */
  lengthOf(id: string): number | undefined {
    const num = this.byId.get(id);
    return num === undefined ? undefined : this.docs[num]?.len;
  }

  /** Scores every document holding a query term; returns id → score. */
  scoreAll(query: string[] | Map<string, number>): Map<string, number> {
    return this.scoreTop(query, Infinity);
  }

  /**
   * The `limit` best-scoring documents (id → score). Scores accumulate in a typed array and only
   * the winners become Map entries, so a query whose terms occur in most of 100k documents stays
   * cheap.
   */
  scoreTop(query: string[] | Map<string, number>, limit: number, stats?: Bm25Stats): Map<string, number> {
    const q = query instanceof Map ? query : weightsOf(query);
    const out = new Map<string, number>();
    const n = this.byId.size;
    if (n === 0 || limit <= 0) return out;
    const avg = (stats ? stats.avgLen : this.totalLen / n) || 1;
    if (this.acc.length < this.docs.length) this.acc = new Float64Array(Math.max(1024, this.docs.length * 2));
    const acc = this.acc;
    const touched: number[] = [];
    const k1 = this.k1;
    const lens = this.lens;
    const base = k1 * (1 - this.b);
    const perLen = (k1 * this.b) / avg;
    for (const [t, w] of q) {
      const p = this.postings.get(t);
      if (!p || w === 0) continue;
      const idf = (stats ? stats.idf(t) : this.idf(t)) * w * (k1 + 1);
      const nums = p.nums;
      const tfs = p.tfs;
      for (let i = 0; i < p.n; i++) {
        const num = nums[i];
        const len = lens[num];
        if (len < 0) continue;
        const tf = tfs[i];
        if (acc[num] === 0) touched.push(num);
        acc[num] += (idf * tf) / (tf + base + perLen * len);
      }
    }
    return takeAccumulated(acc, touched, limit, (num) => this.docs[num]!.id);
  }

  /** BM25 score of a token list that is not in the index, under the index's statistics (or `stats`). */
  scoreExternal(query: Map<string, number>, tokens: string[] | ReadonlyMap<string, number>, stats?: Bm25Stats, length?: number): number {
    const tf = Array.isArray(tokens) ? weightsOf(tokens) : tokens;
    const len = length ?? (Array.isArray(tokens) ? tokens.length : sumOf(tf));
    return bm25Score(query, tf, len, stats ?? { idf: (t) => this.idf(t), avgLen: this.avgLength || len || 1 }, this.k1, this.b);
  }

  /** Top-k documents for the query. */
  search(query: string[] | Map<string, number>, k: number, filter?: (id: string) => boolean): LexicalHit[] {
    const all = this.scoreAll(query);
    if (filter) for (const id of all.keys()) if (!filter(id)) all.delete(id);
    return topEntries(all, k).map(([id, score]) => ({ id, score }));
  }

  /** Rebuilds the postings without tombstones (document numbers are renumbered). */
  private compact(): void {
    const live = this.docs.filter((d): d is DocEntry => d !== undefined);
    this.postings = new Map();
    this.docs = [];
    this.lens = new Float64Array(Math.max(1024, live.length * 2));
    this.byId = new Map();
    this.totalLen = 0;
    this.dead = 0;
    for (const d of live) {
      const tokens: string[] = [];
      for (const [t, c] of d.terms) for (let i = 0; i < c; i++) tokens.push(t);
      this.add(d.id, tokens);
    }
  }
}

/** Default BM25 parameters: k1 1.2, b 0.5 (conversational turns are short; measured on LoCoMo). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.5;

/**
 * BM25 of one document given its term counts and length, under collection statistics. The one
 * formula every tier scores with (the in-memory index inlines the same arithmetic).
 */
export function bm25Score(query: ReadonlyMap<string, number>, tf: ReadonlyMap<string, number>, len: number, stats: Bm25Stats, k1 = BM25_K1, b = BM25_B): number {
  const avg = stats.avgLen || len || 1;
  let s = 0;
  for (const [t, w] of query) {
    const c = tf.get(t);
    if (!c || w === 0) continue;
    s += (stats.idf(t) * w * c * (k1 + 1)) / (c + k1 * (1 - b + (b * len) / avg));
  }
  return s;
}

/** BM25 idf (always ≥ 0) of a term held by `df` of `n` documents. */
export function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

function sumOf(m: ReadonlyMap<string, number>): number {
  let s = 0;
  for (const v of m.values()) s += v;
  return s;
}

/** Query tokens → term weights (repeated terms count more). */
export function weightsOf(tokens: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}
