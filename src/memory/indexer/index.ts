/** The Indexer (T-5): the 【记忆索引】 prompt block and the per-turn recalled-entity filter. */
export { Indexer, formatIndex, cleanInput, type IndexerOptions, type KeywordSource, type EntityEmbedder, type IndexerSearch } from './indexer.js';
export { jiebaKeywords } from './jieba-keywords.js';
