import { extractKeywords } from '../embedder/index.js';

/**
 * Keywords for graph recall when no embedder is wired: the embedder's own extraction (jieba
 * TF-IDF for Chinese with names the HMM finds kept whole, English content words), so both paths
 * find the same people and things.
 */
export function jiebaKeywords(text: string, k = 8): string[] {
  return extractKeywords(text.slice(0, 5000), k);
}
