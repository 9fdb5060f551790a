import { Bm25Index, weightsOf, type Bm25Stats } from './bm25-index.js';
import { topEntries } from './top-entries.js';
import { cosine } from './cosine.js';
import type { EmbedderLog, EmbedderService } from './embedder-service.js';

/** Progress of a background re-embedding after a model change. */
export interface ReembedProgress {
  modelId: string;
  done: number;
  total: number;
}

/** One hit of a hybrid search. `lexical`/`dense` are the normalised component scores. */
export interface HybridHit<M = unknown> {
  id: string;
  score: number;
  lexical: number;
  dense: number;
  meta: M | undefined;
}

/** A stored vector with the model that produced it (never compared across models). */
export interface StoredVector {
  vector: Float32Array;
  modelId: string;
}

export interface HybridIndexOptions {
  embedder: EmbedderService;
  log?: EmbedderLog;
  /** Called during background re-embedding after a model change. */
  onProgress?: (p: ReembedProgress) => void;
  /** Called whenever an item gets a (new) vector, so an owner can persist it. */
  onVector?: (id: string, v: StoredVector) => void;
  /** Fusion weights when a dense model is present (default 0.5 / 0.5). */
  weights?: { lexical: number; dense: number };
  /** Label used in log lines. */
  name?: string;
  /**
   * The lexical index to keep the items' tokens in (default a new `Bm25Index`): an owner with
   * many items may bring a more compact one with the same scores (the warm documents, decision 0190).
   */
  lexical?: LexicalIndex;
}

/** What a hybrid index needs of its lexical index: `Bm25Index`'s public surface. */
export type LexicalIndex = Pick<Bm25Index, keyof Bm25Index>;

export interface HybridSearchOptions {
  filter?: (id: string) => boolean;
  /** Extra weighted lexical terms (already tokenised), e.g. from query expansion. */
  extraTerms?: Map<string, number>;
}

interface Item<M> {
  text: string;
  meta: M | undefined;
  vec?: StoredVector;
}

const BATCH = 64;

/**
 * Reusable hybrid index (T-1) used by documents, knowledge and the memory library: BM25 over the
 * embedder's lexical tokens always, plus cosine over dense vectors when the embedder has a model.
 * Scores are fused by relative score (each component divided by its best candidate).
 *
 * Every vector records the modelId it was made with; a vector of another model or dimension is
 * treated as missing. After a model change all items are re-embedded in the background with
 * progress; searches keep working (lexically for items not yet re-embedded).
 */
export class HybridIndex<M = unknown> {
  private readonly bm25: LexicalIndex;
  private readonly items = new Map<string, Item<M>>();
  private readonly queue = new Set<string>();
  private draining: Promise<void> | undefined;
  private reembedGen = 0;
  private readonly off: () => void;
  private closed = false;

  constructor(private readonly opts: HybridIndexOptions) {
    this.bm25 = opts.lexical ?? new Bm25Index();
    this.off = opts.embedder.onModelChange((id) => {
      void this.reembed(id);
    });
  }

  /** Number of items. */
  get size(): number {
    return this.items.size;
  }

  /** The embedder this index ranks with. */
  get embedder(): EmbedderService {
    return this.opts.embedder;
  }

  has(id: string): boolean {
    return this.items.has(id);
  }

  /** The stored text and meta of an item. */
  get(id: string): { text: string; meta: M | undefined } | undefined {
    const it = this.items.get(id);
    return it ? { text: it.text, meta: it.meta } : undefined;
  }

  /** Ids of every item (insertion order). */
  ids(): IterableIterator<string> {
    return this.items.keys();
  }

  /**
   * What the index holds: the current model and dimension, how many items have a vector of it and
   * how many still carry another model's vector (waiting for re-embedding, never compared).
   */
  stats(): { size: number; modelId: string; dim: number; current: number; stale: number; missing: number } {
    const modelId = this.opts.embedder.modelId();
    let current = 0;
    let stale = 0;
    for (const it of this.items.values()) {
      if (!it.vec) continue;
      if (it.vec.modelId === modelId) current++;
      else stale++;
    }
    return { size: this.items.size, modelId, dim: this.opts.embedder.dim, current, stale, missing: this.items.size - current - stale };
  }

  /** The item's stored vector (whatever model made it). */
  vectorOf(id: string): StoredVector | undefined {
    return this.items.get(id)?.vec;
  }

  /**
   * Adds or replaces an item. Lexical indexing is synchronous; the dense vector is computed inline
   * for static vectors and queued (batched, background) for an embeddings API. A precomputed
   * vector whose modelId matches the current model is reused as is.
   */
  add(id: string, text: string, meta?: M, pre?: { vector?: StoredVector; tokens?: string[] }): void {
    const emb = this.opts.embedder;
    this.bm25.add(id, pre?.tokens ?? emb.tokenize(text));
    const item: Item<M> = { text, meta, vec: pre?.vector };
    this.items.set(id, item);
    this.queue.delete(id);
    if (!emb.dense) return;
    const model = emb.modelId();
    if (item.vec && item.vec.modelId === model) return;
    const v = emb.embedSync(text);
    if (v) this.setVector(id, item, { vector: v, modelId: model });
    else if (!isStaticModel(model)) {
      this.queue.add(id);
      this.scheduleDrain();
    }
  }

  /** Removes an item; returns whether it existed. */
  remove(id: string): boolean {
    this.queue.delete(id);
    this.bm25.remove(id);
    return this.items.delete(id);
  }

  /** Resolves when no queued embedding is pending. */
  async whenIdle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Lexical-only top-k (synchronous). */
  searchLexical(query: string, k: number, opts: HybridSearchOptions = {}): HybridHit<M>[] {
    const q = this.queryTerms(query, opts);
    const hits = this.bm25.search(q, k, opts.filter);
    const max = hits[0]?.score ?? 0;
    return hits.map((h) => ({ id: h.id, score: max > 0 ? h.score / max : 0, lexical: max > 0 ? h.score / max : 0, dense: 0, meta: this.items.get(h.id)?.meta }));
  }

  /** Hybrid top-k: lexical only when no dense model (or no query vector), fused otherwise. */
  async search(query: string, k: number, opts: HybridSearchOptions = {}): Promise<HybridHit<M>[]> {
    const emb = this.opts.embedder;
    if (!emb.dense || k <= 0) return this.searchLexical(query, k, opts);
    const model = emb.modelId();
    const [qv] = await emb.embed([query]);
    if (!qv || emb.modelId() !== model) return this.searchLexical(query, k, opts);
    return this.fuse(this.bm25.scoreTop(this.queryTerms(query, opts), Math.max(1000, k * 4)), this.denseScores(qv, model, opts.filter), k, opts.filter);
  }

  /** Dense cosine of every item that has a vector of the current model (others are missing). */
  denseScores(qv: Float32Array, model: string, filter?: (id: string) => boolean): Map<string, number> {
    const out = new Map<string, number>();
    for (const [id, it] of this.items) {
      const v = it.vec;
      if (!v || v.modelId !== model || v.vector.length !== qv.length) continue;
      if (filter && !filter(id)) continue;
      out.set(id, cosine(qv, v.vector));
    }
    return out;
  }

  /** Raw BM25 scores of every matching item. */
  lexicalScores(query: string, opts: HybridSearchOptions = {}): Map<string, number> {
    return this.bm25.scoreAll(this.queryTerms(query, opts));
  }

  /** The lexical query terms (tokens + extra weighted terms). */
  queryTerms(query: string, opts: HybridSearchOptions = {}): Map<string, number> {
    const q = weightsOf(this.opts.embedder.tokenize(query));
    if (opts.extraTerms) for (const [t, w] of opts.extraTerms) q.set(t, Math.max(q.get(t) ?? 0, w));
    return q;
  }

  /** Raw BM25 scores for weighted query terms (the `limit` best when given). */
  scoreTerms(terms: Map<string, number>, limit = Infinity, stats?: Bm25Stats): Map<string, number> {
    return this.bm25.scoreTop(terms, limit, stats);
  }

  /** BM25 score of an outside token list under this index's statistics (for transient items). */
  scoreExternal(terms: Map<string, number>, tokens: string[]): number {
    return this.bm25.scoreExternal(terms, tokens);
  }

  /** The lexical index (term statistics for query expansion). */
  get lexical(): LexicalIndex {
    return this.bm25;
  }

  /** Relative-score fusion of lexical and dense score maps. */
  fuse(lex: Map<string, number>, dense: Map<string, number>, k: number, filter?: (id: string) => boolean): HybridHit<M>[] {
    const w = this.opts.weights ?? { lexical: 0.5, dense: 0.5 };
    let maxL = 0;
    for (const s of lex.values()) if (s > maxL) maxL = s;
    let maxD = 0;
    for (const s of dense.values()) if (s > maxD) maxD = s;
    const fused = new Map<string, number>();
    for (const id of new Set<string>([...lex.keys(), ...dense.keys()])) {
      if (filter && !filter(id)) continue;
      const l = maxL > 0 ? (lex.get(id) ?? 0) / maxL : 0;
      const d = maxD > 0 ? Math.max(0, dense.get(id) ?? 0) / maxD : 0;
      fused.set(id, w.lexical * l + w.dense * d);
    }
    return topEntries(fused, k).map(([id, score]) => {
      const l = maxL > 0 ? (lex.get(id) ?? 0) / maxL : 0;
      const d = maxD > 0 ? Math.max(0, dense.get(id) ?? 0) / maxD : 0;
      return { id, score, lexical: l, dense: d, meta: this.items.get(id)?.meta };
    });
  }

  /**
   * Re-embeds every item whose vector is not of `modelId` in the background, reporting progress.
   * A newer model change supersedes a running job.
   */
  async reembed(modelId = this.opts.embedder.modelId()): Promise<void> {
    const gen = ++this.reembedGen;
    const emb = this.opts.embedder;
    if (!emb.dense || this.closed) return;
    const todo = [...this.items.entries()].filter(([, it]) => it.vec?.modelId !== modelId).map(([id]) => id);
    const total = todo.length;
    const name = this.opts.name ?? 'index';
    this.opts.log?.info(`${name}: re-embedding ${total} items for ${modelId}`);
    let done = 0;
    let lastLog = 0;
    for (let i = 0; i < todo.length; i += BATCH) {
      if (gen !== this.reembedGen || this.closed || emb.modelId() !== modelId) return;
      const ids = todo.slice(i, i + BATCH).filter((id) => this.items.has(id));
      const vs = await emb.embed(ids.map((id) => this.items.get(id)!.text));
      if (emb.modelId() !== modelId) return;
      ids.forEach((id, j) => {
        const it = this.items.get(id);
        const v = vs[j];
        if (it && v) this.setVector(id, it, { vector: v, modelId });
      });
      done += ids.length;
      this.opts.onProgress?.({ modelId, done, total });
      if (done - lastLog >= Math.max(1000, total / 10) || done === total) {
        lastLog = done;
        this.opts.log?.info(`${name}: re-embedded ${done}/${total} for ${modelId}`);
      }
      // Yield so a big re-embed never blocks the event loop.
      await new Promise((r) => setImmediate(r));
    }
    if (total === 0) this.opts.onProgress?.({ modelId, done: 0, total: 0 });
  }

  /** Stops listening to model changes and cancels background work. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.reembedGen++;
    this.queue.clear();
    this.off();
  }

  private setVector(id: string, it: Item<M>, v: StoredVector): void {
    it.vec = v;
    this.opts.onVector?.(id, v);
  }

  private scheduleDrain(): void {
    if (this.draining) return;
    this.draining = (async () => {
      try {
        while (this.queue.size > 0 && !this.closed) {
          const emb = this.opts.embedder;
          const model = emb.modelId();
          const ids = [...this.queue].slice(0, BATCH);
          for (const id of ids) this.queue.delete(id);
          const vs = await emb.embed(ids.map((id) => this.items.get(id)?.text ?? ''));
          if (emb.modelId() !== model) continue; // the re-embed job of the new model takes over
          ids.forEach((id, j) => {
            const it = this.items.get(id);
            const v = vs[j];
            if (it && v) this.setVector(id, it, { vector: v, modelId: model });
          });
        }
      } finally {
        this.draining = undefined;
      }
    })();
  }
}

function isStaticModel(id: string): boolean {
  return id.startsWith('static:');
}
