/**
 * Public surface of the embedder (T-1): the one embedding service shared by every memory tier,
 * and the reusable hybrid (BM25 + dense) index.
 */
export { EmbedderService, KNOWN_VECTOR_SOURCES, type DownloadProgress } from './embedder-service.js';
export type { EmbedderLog } from './embedder-service.js';
export { HybridIndex } from './hybrid-index.js';
export type { HybridHit, HybridIndexOptions, HybridSearchOptions, LexicalIndex, ReembedProgress, StoredVector } from './hybrid-index.js';
export { Bm25Index, bm25Score, bm25Idf, weightsOf, BM25_B, BM25_K1 } from './bm25-index.js';
export type { LexicalHit, Bm25Stats } from './bm25-index.js';
export { cosine, tfidfCosineScores } from './cosine.js';
export { takeAccumulated, topEntries } from './top-entries.js';
export { cleanText } from './clean-text.js';
export { StaticVectors } from './static-vectors.js';
export { EmbeddingsApiClient } from './embeddings-api-client.js';
export { extractKeywords, hasCjk, isStopWord, looksLikeChineseName, surfaceWords } from './tokenizer.js';
