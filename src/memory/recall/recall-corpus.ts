import type { RecallTier } from '../../spec/memory.js';
import type { MemoryDocument } from '../documents/index.js';
import type { Bm25Stats } from '../embedder/index.js';
import type { TimeScope } from './time-scan.js';

/** Term counts and length of one document (what BM25 and query expansion read). */
export interface TermCounts {
  terms: ReadonlyMap<string, number>;
  len: number;
}

/**
 * One memory tier as the recall ranker sees it (K-1). Every tier answers the same questions —
 * its collection statistics, BM25 under the statistics of all tiers together, a document's terms,
 * its neighbours in its session — so a turn scores the same whichever tier holds it, and ageing
 * (context → documents → cold archive) changes where a turn lives, not where it ranks.
 */
export interface RecallCorpus {
  readonly tier: Exclude<RecallTier, 'graph'>;
  /** Called once at the start of each ranking (per-query caches). */
  begin?(): void;
  /** Called when a ranking is done: per-query state is let go (it must not outlive the query). */
  end?(): void;
  /** Number of documents and sum of their token counts. */
  size(): { docs: number; tokens: number };
  /** Document frequency of each term in this tier. */
  df(terms: readonly string[]): Map<string, number>;
  /** BM25 scores (under `stats`) of this tier's documents that hold a query term, at most `limit` (the best). */
  lexical(terms: Map<string, number>, stats: Bm25Stats, limit: number): Map<string, number>;
  get(id: string): MemoryDocument | undefined;
  termsOf(id: string): TermCounts | undefined;
  /** A document's token count (BM25's length), when the tier knows it without reading its terms (else `termsOf(id).len`). */
  lengthOf?(id: string): number | undefined;
  /** Whether a document asks a question (a tier that ranks from partial rows knows it without the text). */
  asks?(id: string): boolean | undefined;
  /** BM25 of a document under this ranking's last query terms, when the tier already computed it (0: no term). */
  scoreOf?(id: string): number;
  /** The `span` documents before and after `doc` in its session, nearest first (`doc` may live in another tier). */
  adjacent(doc: MemoryDocument, span: number): { before: MemoryDocument[]; after: MemoryDocument[] };
  /**
   * Documents as returned to callers, when ranking read them partially (the archive reads text last
   * and keys its documents by row number while ranking).
   */
  complete?(docs: readonly MemoryDocument[]): MemoryDocument[];
  /** `adjacent(doc, 1)` for many documents at once (tiers on disk answer in one round trip). */
  adjacentMany?(docs: readonly MemoryDocument[]): Map<string, { before: MemoryDocument[]; after: MemoryDocument[] }>;
  /** Ids of the documents that say a day in one of the (day-level) scopes, at most `limit` (decision 0160); `zone`: the person's, for days resolved at query time (context events). */
  saidOn?(scopes: readonly TimeScope[], limit: number, zone?: string): readonly string[];
  /**
   * Cosine of the query vector to document vectors of `model`: an in-memory tier scores all its
   * documents, the archive only `ids` (its lexical candidates of this query).
   */
  dense?(qv: Float32Array, model: string, ids: readonly string[]): Promise<Map<string, number>> | Map<string, number>;
}

/** Orders two documents in time, ties by id (one order for every tier). */
export function timeOrder(a: Pick<MemoryDocument, 'createdAt' | 'id'>, b: Pick<MemoryDocument, 'createdAt' | 'id'>): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
