/** Character-bigram Jaccard similarity of entity names (seed: 实体冲突检测启发式). */

function normalize(s: string): string {
  return s.toLowerCase().replace(/[\s\p{P}\p{S}]+/gu, '');
}

/** The set of character bigrams of `s` after normalization (a 1-char name is its own "bigram"). */
export function bigrams(s: string): Set<string> {
  const chars = [...normalize(s)];
  if (chars.length === 1) return new Set(chars);
  const out = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i] + chars[i + 1]);
  return out;
}

/** |A ∩ B| / |A ∪ B| of the two names' bigram sets; 0 when either is empty. */
export function bigramJaccard(a: string, b: string): number {
  const A = bigrams(a);
  const B = bigrams(b);
  if (!A.size || !B.size) return 0;
  let inter = 0;
  for (const x of A) if (B.has(x)) inter++;
  return inter / (A.size + B.size - inter);
}

export interface MergeCandidate {
  a: string;
  b: string;
  score: number;
}

/**
 * Pairs of names whose similarity is strictly above `threshold`, best first. Pairs are found
 * through a bigram inverted index, so the cost stays near-linear for realistic name sets.
 */
export function findMergeCandidates(names: string[], threshold = 0.75, limit = 20): MergeCandidate[] {
  const sets = names.map(bigrams);
  const postings = new Map<string, number[]>();
  sets.forEach((set, i) => {
    for (const g of set) {
      const list = postings.get(g) ?? [];
      list.push(i);
      postings.set(g, list);
    }
  });
  const seen = new Set<string>();
  const out: MergeCandidate[] = [];
  for (const list of postings.values()) {
    if (list.length > 500) continue; // a bigram shared by hundreds of names says nothing
    for (let x = 0; x < list.length; x++) {
      for (let y = x + 1; y < list.length; y++) {
        const i = list[x];
        const j = list[y];
        const key = `${i}:${j}`;
        if (seen.has(key)) continue;
        seen.add(key);
        if (names[i].toLowerCase() === names[j].toLowerCase()) continue;
        const score = bigramJaccard(names[i], names[j]);
        if (score > threshold) out.push({ a: names[i], b: names[j], score });
      }
    }
  }
  return out.sort((p, q) => q.score - p.score || p.a.localeCompare(q.a)).slice(0, limit);
}
