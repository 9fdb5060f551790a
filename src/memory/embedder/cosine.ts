export { cosine } from '../../vector/index.js';

/** Term counts per token list, cached by array identity (prune scores the same events every turn). */
const countsCache = new WeakMap<readonly string[], Map<string, number>>();

function countsOf(tokens: readonly string[]): Map<string, number> {
  let m = countsCache.get(tokens);
  if (!m) {
    m = new Map();
    for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
    countsCache.set(tokens, m);
  }
  return m;
}

/**
 * TF-IDF cosine of a query against a small set of token lists (the lexical fallback of T-2's
 * prune): IDF is computed over the given documents plus the query; tf is log-scaled.
 */
export function tfidfCosineScores(query: readonly string[], docs: readonly (readonly string[])[]): number[] {
  const n = docs.length + 1;
  const qc = countsOf(query);
  const counts = docs.map(countsOf);
  const df = new Map<string, number>();
  for (const t of qc.keys()) df.set(t, 1);
  for (const c of counts) for (const t of c.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string): number => Math.log(1 + n / (df.get(t) ?? 1));
  const qw = new Map<string, number>();
  let qn = 0;
  for (const [t, c] of qc) {
    const w = (1 + Math.log(c)) * idf(t);
    qw.set(t, w);
    qn += w * w;
  }
  qn = Math.sqrt(qn);
  return counts.map((c) => {
    if (qn === 0) return 0;
    let dn = 0;
    let dot = 0;
    for (const [t, k] of c) {
      const w = (1 + Math.log(k)) * idf(t);
      dn += w * w;
      const q = qw.get(t);
      if (q !== undefined) dot += q * w;
    }
    return dn === 0 ? 0 : dot / (qn * Math.sqrt(dn));
  });
}
