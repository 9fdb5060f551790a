/**
 * Cosine similarity of two dense vectors. Vectors of different dimensions are never compared:
 * the result is 0 (treated as "no evidence"), never an exception.
 */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (na === 0 || nb === 0) return 0;
  return dot / Math.sqrt(na * nb);
}

/**
 * TF-IDF cosine of a query against a small set of token lists (the lexical fallback of T-2's
 * prune): IDF is computed over the given documents plus the query.
 */
export function tfidfCosineScores(query: string[], docs: string[][]): number[] {
  const n = docs.length + 1;
  const df = new Map<string, number>();
  const seen = (toks: string[]): void => {
    for (const t of new Set(toks)) df.set(t, (df.get(t) ?? 0) + 1);
  };
  seen(query);
  for (const d of docs) seen(d);
  const vec = (toks: string[]): Map<string, number> => {
    const tf = new Map<string, number>();
    for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, c] of tf) tf.set(t, (1 + Math.log(c)) * Math.log(1 + n / (df.get(t) ?? 1)));
    return tf;
  };
  const norm = (v: Map<string, number>): number => Math.sqrt([...v.values()].reduce((s, x) => s + x * x, 0));
  const q = vec(query);
  const qn = norm(q);
  return docs.map((d) => {
    if (qn === 0) return 0;
    const v = vec(d);
    const dn = norm(v);
    if (dn === 0) return 0;
    let dot = 0;
    for (const [t, w] of q) {
      const x = v.get(t);
      if (x !== undefined) dot += w * x;
    }
    return dot / (qn * dn);
  });
}
