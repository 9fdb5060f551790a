/**
 * Cosine similarity of two dense vectors (any numeric array: Float32Array from the embedder,
 * number[] from `sdk.memory().embed`). Vectors of different dimensions are never compared: the
 * result is 0 ("no evidence"), as it is for a zero vector — never an exception.
 */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
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
