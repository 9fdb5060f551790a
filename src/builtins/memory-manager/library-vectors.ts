/**
 * Dense ranking for the library's search: a vector per memory in the agent's embedding space
 * (sdk.memory().embed), made in the background and kept with the model and text it was made from,
 * and the cosine of each to a query. Lexical ranking never waits long for it.
 */
import { cosine } from '../../sdk/index.js';
import type { MemoryRecord } from './memory-file.js';

/** The agent's embedding space as the library sees it (sdk.memory().embed / embeddingModel). */
export interface LibraryEmbedder {
  embed(texts: string[]): Promise<(number[] | null)[]>;
  model(): Promise<string>;
}

/** How long a search waits for the embedder (the query's vector, then the library's) before ranking lexically. */
const QUERY_EMBED_MS = 2000;

/** `p`'s value, or undefined when it takes longer than `ms` (it keeps running). */
async function withDeadline<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Cosine-only candidates below this are not listed (they share no word with the query). */
export const DENSE_ONLY_MIN = 0.35;

/** What a memory is embedded as: its title, impressions and (the start of) its snapshot. */
function embedText(r: MemoryRecord): string {
  return `${r.title}\n${r.impressions.join(' ')}\n${r.snapshot.slice(0, 4000)}`;
}

/** A short key of a text (FNV-1a, 32 bit, plus the length) to notice when a memory changed. */
function textKey(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return `${text.length}:${(h >>> 0).toString(36)}`;
}

/** What the vectors need of the library. */
export interface LibraryVectorsOptions {
  embedder?: LibraryEmbedder;
  log?: (msg: string, data?: Record<string, unknown>) => void;
  /** Every memory now. */
  records: () => Iterable<MemoryRecord>;
  /** One memory now, or undefined when it is gone. */
  get: (id: string) => MemoryRecord | undefined;
}

/** The library's search vectors (see the file comment). */
export class LibraryVectors {
  /** Search vectors by memory id, with the model and text they were made from. */
  private vectors = new Map<string, { model: string; key: string; v: number[] }>();
  /** While the embedder fails, dense ranking rests until this time. */
  private denseRetryAt = 0;
  private embedJob: Promise<void> | undefined;
  private readonly textKeys = new WeakMap<MemoryRecord, string>();

  constructor(private readonly opts: LibraryVectorsOptions) {}

  /** Drops the vector of a memory that is gone. */
  drop(id: string): void {
    this.vectors.delete(id);
  }

  /**
   * Cosine of every embedded memory to `query` under the current model (empty when lexical only,
   * or while the embedder is failing: then it is not asked again for a minute). The query waits at
   * most QUERY_EMBED_MS for its vector; memories are embedded in the background (and waited for
   * briefly), so a slow embeddings API never holds a search for long — what is not embedded yet
   * is ranked lexically.
   */
  async scores(query: string): Promise<Map<string, number>> {
    const emb = this.opts.embedder;
    const out = new Map<string, number>();
    if (!emb || Date.now() < this.denseRetryAt) return out;
    const fail = (why: string) => {
      if (this.denseRetryAt === 0) this.opts.log?.('library search: dense ranking unavailable, lexical only for a minute', { error: why });
      this.denseRetryAt = Date.now() + 60_000;
      return out;
    };
    try {
      const model = await withDeadline(emb.model(), QUERY_EMBED_MS);
      if (model === undefined) return fail('the embedder did not answer');
      if (model === 'lexical') return out;
      const job = this.embedAll(emb, model);
      const qs = await withDeadline(emb.embed([query]), QUERY_EMBED_MS);
      if (qs === undefined) return fail('the query vector did not come in time');
      const q = qs[0];
      if (!q) return out; // no known word in the query (a name, a number): lexical for this one
      await withDeadline(job, QUERY_EMBED_MS);
      for (const [id, c] of this.vectors) {
        const r = this.opts.get(id);
        // A vector of an older text of the memory is not used (its new one may still be coming).
        if (r && c.model === model && c.key === this.keyOf(r)) out.set(id, cosine(q, c.v));
      }
      this.denseRetryAt = 0;
    } catch (e) {
      return fail((e as Error).message);
    }
    return out;
  }

  /** The text key of a memory (what its vector was made from), computed once per record object. */
  private keyOf(r: MemoryRecord): string {
    let k = this.textKeys.get(r);
    if (k === undefined) this.textKeys.set(r, (k = textKey(embedText(r))));
    return k;
  }

  /** Embeds the memories whose vector is missing or stale, in batches of 64; one job at a time. */
  private embedAll(emb: LibraryEmbedder, model: string): Promise<void> {
    if (this.embedJob) return this.embedJob;
    const job = (async () => {
      try {
        const todo = [...this.opts.records()].filter((r) => {
          const c = this.vectors.get(r.id);
          return !c || c.model !== model || c.key !== this.keyOf(r);
        });
        for (let i = 0; i < todo.length; i += 64) {
          const batch = todo.slice(i, i + 64);
          const vs = await emb.embed(batch.map(embedText));
          if ((await emb.model()) !== model) return; // the model changed meanwhile: another space
          batch.forEach((r, j) => {
            const v = vs[j];
            if (v) this.vectors.set(r.id, { model, key: this.keyOf(r), v });
            else this.vectors.delete(r.id);
          });
        }
      } catch (e) {
        this.opts.log?.('library search: embedding the library failed', { error: (e as Error).message });
      }
    })();
    this.embedJob = job;
    void job.finally(() => {
      if (this.embedJob === job) this.embedJob = undefined;
    });
    return job;
  }
}
