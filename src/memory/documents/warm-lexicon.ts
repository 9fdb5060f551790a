import { bm25Idf, bm25Score, BM25_B, BM25_K1, takeAccumulated, topEntries, weightsOf, type Bm25Stats, type LexicalHit } from '../embedder/index.js';

/** Postings added since the last build, at least this many before they are merged into the pooled arrays. */
const MERGE_AT_LEAST = 4_096;

/**
 * The warm tier's BM25 index, laid out for memory (decision 0190). Same scores, posting order and
 * candidates as the embedder's `Bm25Index` — every ranking over the warm documents is the same to
 * the last bit — in a handful of typed arrays instead of two typed arrays per term and a Map of
 * strings per document:
 *
 * - each term is interned once (a term number; one string per distinct term, not one per document
 *   that holds it);
 * - postings are pooled: one `Int32Array` of `(document, tf)` pairs grouped by term (each group in
 *   document order, as `Bm25Index` appends them), plus small arrays for the postings added since
 *   the last merge (merged when they pass a quarter of the pool: linear time per merge, amortised);
 * - a document's terms are `(term, count)` pairs in one pooled `Int32Array` (first-occurrence
 *   order); `terms(id)` builds the Map when asked (query expansion reads a few per query).
 *
 * Document numbers follow insertion order and are renumbered (order kept) only when more than half
 * of the documents are removed ones, as in `Bm25Index`; removed documents' postings are skipped
 * (length −1) and dropped at the next merge.
 */
export class WarmLexicon {
  /** Term → term number (live terms only). */
  private termNums = new Map<string, number>();
  /** Term number → term (a number freed when its last document went keeps its text until compaction). */
  private termText: string[] = [];
  /** Term number → live documents holding it. */
  private dfs = new Int32Array(1024);
  /** Merged postings: term `k`'s pairs are `pairs[start[k] .. start[k + 1])` for `k < mergedTerms`. */
  private start = new Int32Array(1);
  private pairs = new Int32Array(0);
  private mergedTerms = 0;
  /** Postings added since the last merge: term number → `[doc, tf, …]`. */
  private recent = new Map<number, number[]>();
  private recentCount = 0;
  /** Each document's `(term, count)` pairs: `docPool[docOff[n] .. docOff[n] + 2 · docCnt[n])`. */
  private docPool = new Int32Array(4096);
  private poolUsed = 0;
  private docOff = new Int32Array(1024);
  private docCnt = new Int32Array(1024);
  /** Document number → id (undefined once removed). */
  private docIds: (string | undefined)[] = [];
  private byId = new Map<string, number>();
  private totalLen = 0;
  private dead = 0;
  private acc = new Float64Array(0);
  /** Length per document number; -1 marks a removed document (no object dereference when scoring). */
  private lens = new Float64Array(1024);

  /** How many times the index was rebuilt without removed documents (tests, diagnostics). */
  compactions = 0;

  constructor(private readonly k1 = BM25_K1, private readonly b = BM25_B) {}

  /** Number of live documents. */
  get size(): number {
    return this.byId.size;
  }

  /** Number of distinct live terms. */
  get termCount(): number {
    return this.termNums.size;
  }

  /** Postings held (merged, live or not yet dropped, and recent). */
  get postingCount(): number {
    return this.start[this.mergedTerms] / 2 + this.recentCount;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Adds or replaces the document `id`. */
  add(id: string, tokens: readonly string[]): void {
    if (this.byId.has(id)) this.remove(id);
    // Term numbers and counts in first-occurrence order (the order `terms(id)` gives back).
    const counts = new Map<number, number>();
    for (const t of tokens) {
      const k = this.intern(t);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    this.addCounted(id, counts, tokens.length);
    if (this.recentCount >= Math.max(MERGE_AT_LEAST, this.start[this.mergedTerms] / 8)) this.merge();
  }

  private addCounted(id: string, counts: Map<number, number>, len: number): void {
    const num = this.docIds.length;
    if (num >= this.lens.length) {
      const n = room(this.lens.length, num + 1);
      this.lens = copyInto(new Float64Array(n), this.lens);
      this.docOff = copyInto(new Int32Array(n), this.docOff);
      this.docCnt = copyInto(new Int32Array(n), this.docCnt);
    }
    if (this.poolUsed + counts.size * 2 > this.docPool.length) this.docPool = copyInto(new Int32Array(room(this.docPool.length, this.poolUsed + counts.size * 2)), this.docPool);
    const pool = this.docPool;
    let j = this.poolUsed;
    this.docOff[num] = j;
    this.docCnt[num] = counts.size;
    for (const [k, c] of counts) {
      pool[j++] = k;
      pool[j++] = c;
      const r = this.recent.get(k);
      if (r) r.push(num, c);
      else this.recent.set(k, [num, c]);
      this.dfs[k]++;
    }
    this.recentCount += counts.size;
    this.poolUsed = j;
    this.docIds.push(id);
    this.lens[num] = len;
    this.byId.set(id, num);
    this.totalLen += len;
  }

  /** The term's number, a new one for a term not held yet. */
  private intern(t: string): number {
    let k = this.termNums.get(t);
    if (k === undefined) {
      k = this.termText.length;
      this.termNums.set(t, k);
      this.termText.push(t);
      if (k >= this.dfs.length) this.dfs = copyInto(new Int32Array(room(this.dfs.length, k + 1)), this.dfs);
      this.dfs[k] = 0;
    }
    return k;
  }

  remove(id: string): boolean {
    const num = this.byId.get(id);
    if (num === undefined) return false;
    const off = this.docOff[num];
    for (let j = off; j < off + 2 * this.docCnt[num]; j += 2) {
      const k = this.docPool[j];
      // Like Bm25Index: a term no live document holds is forgotten (its postings are all removed ones).
      if (--this.dfs[k] === 0) {
        this.termNums.delete(this.termText[k]);
        this.recentCount -= (this.recent.get(k)?.length ?? 0) / 2;
        this.recent.delete(k);
      }
    }
    this.totalLen -= this.lens[num];
    this.docCnt[num] = 0;
    this.docIds[num] = undefined;
    this.lens[num] = -1;
    this.byId.delete(id);
    if (++this.dead > 1000 && this.dead > this.byId.size) this.compact();
    return true;
  }

  /** Inverse document frequency (BM25 form, always ≥ 0). */
  idf(term: string): number {
    return bm25Idf(this.byId.size, this.df(term));
  }

  /** Document frequency of a term. */
  df(term: string): number {
    const k = this.termNums.get(term);
    return k === undefined ? 0 : this.dfs[k];
  }

  /**
   * Tokens of a stored document (term → count, first occurrence order): a read-only view of its
   * pooled pairs, not a Map built per call (ranking reads the terms of every neighbour outside its
   * candidates). The view stays what it was when taken: pooled pairs and term texts are only ever
   * appended to (growth and compaction copy into new arrays).
   */
  terms(id: string): ReadonlyMap<string, number> | undefined {
    const num = this.byId.get(id);
    if (num === undefined) return undefined;
    return new TermsView(this.docPool, this.docOff[num], this.docCnt[num], this.termText);
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
    return num === undefined ? undefined : this.lens[num];
  }

  /** Scores every document holding a query term; returns id → score. */
  scoreAll(query: string[] | Map<string, number>): Map<string, number> {
    return this.scoreTop(query, Infinity);
  }

  /**
   * The `limit` best-scoring documents (id → score), exactly as `Bm25Index.scoreTop`: the same
   * arithmetic in the same order over the same postings in the same order, the same candidates in
   * the same Map order.
   */
  scoreTop(query: string[] | Map<string, number>, limit: number, stats?: Bm25Stats): Map<string, number> {
    const q = query instanceof Map ? query : weightsOf(query);
    const out = new Map<string, number>();
    const n = this.byId.size;
    if (n === 0 || limit <= 0) return out;
    const avg = (stats ? stats.avgLen : this.totalLen / n) || 1;
    if (this.acc.length < this.docIds.length) this.acc = new Float64Array(Math.max(1024, this.docIds.length * 2));
    const acc = this.acc;
    const touched: number[] = [];
    const k1 = this.k1;
    const lens = this.lens;
    const pairs = this.pairs;
    const start = this.start;
    const base = k1 * (1 - this.b);
    const perLen = (k1 * this.b) / avg;
    /** Adds one term's postings (document, tf pairs in `from`..`to`) to the scores; removed documents (length < 0) are skipped. */
    const add = (postings: ArrayLike<number>, from: number, to: number, idf: number) => {
      for (let i = from; i < to; i += 2) {
        const num = postings[i];
        const len = lens[num];
        if (len < 0) continue;
        const tf = postings[i + 1];
        if (acc[num] === 0) touched.push(num);
        acc[num] += (idf * tf) / (tf + base + perLen * len);
      }
    };
    for (const [t, w] of q) {
      const k = this.termNums.get(t);
      if (k === undefined || w === 0) continue;
      const idf = (stats ? stats.idf(t) : this.idf(t)) * w * (k1 + 1);
      // Merged postings first, then the recent ones: document order either way.
      if (k < this.mergedTerms) add(pairs, start[k], start[k + 1], idf);
      const r = this.recent.get(k);
      if (r) add(r, 0, r.length, idf);
    }
    return takeAccumulated(acc, touched, limit, (num) => this.docIds[num]!);
  }

  /** BM25 score of a token list that is not in the index, under the index's statistics (or `stats`). */
  scoreExternal(query: Map<string, number>, tokens: string[] | ReadonlyMap<string, number>, stats?: Bm25Stats, length?: number): number {
    const tf = Array.isArray(tokens) ? weightsOf(tokens) : (tokens as ReadonlyMap<string, number>);
    let sum = 0;
    if (!Array.isArray(tokens)) for (const v of tf.values()) sum += v;
    const len = length ?? (Array.isArray(tokens) ? tokens.length : sum);
    return bm25Score(query, tf, len, stats ?? { idf: (t) => this.idf(t), avgLen: this.avgLength || len || 1 }, this.k1, this.b);
  }

  /** Top-k documents for the query. */
  search(query: string[] | Map<string, number>, k: number, filter?: (id: string) => boolean): LexicalHit[] {
    const all = this.scoreAll(query);
    if (filter) for (const id of all.keys()) if (!filter(id)) all.delete(id);
    return topEntries(all, k).map(([id, score]) => ({ id, score }));
  }

  /**
   * Moves the recent postings into the pooled arrays, dropping removed documents' postings and
   * forgotten terms' groups. Document numbers do not change; each group stays in document order
   * (merged postings are older than recent ones).
   */
  merge(): void {
    const terms = this.termText.length;
    const lens = this.lens;
    const start = new Int32Array(terms + 1);
    const live = (k: number) => this.dfs[k] > 0;
    for (let k = 0; k < this.mergedTerms; k++) {
      if (!live(k)) continue;
      for (let i = this.start[k]; i < this.start[k + 1]; i += 2) if (lens[this.pairs[i]] >= 0) start[k + 1] += 2;
    }
    for (const [k, r] of this.recent) for (let i = 0; i < r.length; i += 2) if (lens[r[i]] >= 0) start[k + 1] += 2;
    for (let k = 0; k < terms; k++) start[k + 1] += start[k];
    const pairs = new Int32Array(start[terms]);
    for (let k = 0; k < terms; k++) {
      let j = start[k];
      if (k < this.mergedTerms && live(k)) {
        for (let i = this.start[k]; i < this.start[k + 1]; i += 2) {
          if (lens[this.pairs[i]] < 0) continue;
          pairs[j++] = this.pairs[i];
          pairs[j++] = this.pairs[i + 1];
        }
      }
      const r = this.recent.get(k);
      if (r) {
        for (let i = 0; i < r.length; i += 2) {
          if (lens[r[i]] < 0) continue;
          pairs[j++] = r[i];
          pairs[j++] = r[i + 1];
        }
      }
    }
    this.start = start;
    this.pairs = pairs;
    this.mergedTerms = terms;
    // The documents' pool grows by doubling: give back what a quarter of headroom does not need.
    const want = Math.max(4096, Math.ceil(this.poolUsed * 1.25));
    if (this.docPool.length > want * 1.5) this.docPool = this.docPool.slice(0, want);
    this.recent = new Map();
    this.recentCount = 0;
  }

  /** Rebuilds everything without removed documents and forgotten terms (documents renumbered, order kept). */
  private compact(): void {
    this.compactions++;
    const live: { id: string; terms: [string, number][]; len: number }[] = [];
    this.docIds.forEach((id, num) => {
      if (id === undefined) return;
      const terms: [string, number][] = [];
      const off = this.docOff[num];
      for (let j = off; j < off + 2 * this.docCnt[num]; j += 2) terms.push([this.termText[this.docPool[j]], this.docPool[j + 1]]);
      live.push({ id, terms, len: this.lens[num] });
    });
    this.termNums = new Map();
    this.termText = [];
    this.dfs = new Int32Array(1024);
    this.start = new Int32Array(1);
    this.pairs = new Int32Array(0);
    this.mergedTerms = 0;
    this.recent = new Map();
    this.recentCount = 0;
    this.docPool = new Int32Array(Math.max(4096, this.poolUsed));
    this.poolUsed = 0;
    this.docOff = new Int32Array(Math.max(1024, live.length * 2));
    this.docCnt = new Int32Array(Math.max(1024, live.length * 2));
    this.docIds = [];
    this.lens = new Float64Array(Math.max(1024, live.length * 2));
    this.byId = new Map();
    this.totalLen = 0;
    this.dead = 0;
    for (const d of live) {
      const counts = new Map<number, number>();
      for (const [t, c] of d.terms) counts.set(this.intern(t), c);
      this.addCounted(d.id, counts, d.len);
    }
    this.merge();
  }
}

/** A document's `(term, count)` pairs seen as a read-only Map (lookups scan: a turn has a few dozen terms). */
class TermsView implements ReadonlyMap<string, number> {
  constructor(
    private readonly pool: Int32Array,
    private readonly off: number,
    readonly size: number,
    private readonly text: readonly string[],
  ) {}

  get(term: string): number | undefined {
    const end = this.off + 2 * this.size;
    for (let j = this.off; j < end; j += 2) if (this.text[this.pool[j]] === term) return this.pool[j + 1];
    return undefined;
  }

  has(term: string): boolean {
    return this.get(term) !== undefined;
  }

  forEach(fn: (count: number, term: string, map: ReadonlyMap<string, number>) => void, self?: unknown): void {
    const end = this.off + 2 * this.size;
    for (let j = this.off; j < end; j += 2) fn.call(self, this.pool[j + 1], this.text[this.pool[j]], this);
  }

  *entries(): MapIterator<[string, number]> {
    const end = this.off + 2 * this.size;
    for (let j = this.off; j < end; j += 2) yield [this.text[this.pool[j]], this.pool[j + 1]];
  }

  *keys(): MapIterator<string> {
    const end = this.off + 2 * this.size;
    for (let j = this.off; j < end; j += 2) yield this.text[this.pool[j]];
  }

  *values(): MapIterator<number> {
    const end = this.off + 2 * this.size;
    for (let j = this.off; j < end; j += 2) yield this.pool[j + 1];
  }

  [Symbol.iterator](): MapIterator<[string, number]> {
    return this.entries();
  }
}

/** A length of at least `min`, doubling from `n`. */
function room(n: number, min: number): number {
  let m = Math.max(1, n);
  while (m < min) m *= 2;
  return m;
}

/** `to` with `from` copied at its start. */
function copyInto<T extends Int32Array | Float64Array>(to: T, from: T): T {
  to.set(from);
  return to;
}
