/**
 * The `n` largest entries of a score map, best first, in O(N log n) with a bounded min-heap
 * (sorting 100k scores per query would dominate a search). Ties break by key for determinism.
 */
export function topEntries<K extends string | number>(scores: Map<K, number>, n: number): [K, number][] {
  if (n <= 0) return [];
  const heap: [K, number][] = [];
  const less = (a: [K, number], b: [K, number]): boolean => a[1] < b[1] || (a[1] === b[1] && a[0] > b[0]);
  const down = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l], heap[m])) m = l;
      if (r < heap.length && less(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (const e of scores) {
    if (heap.length < n) {
      heap.push(e);
      let i = heap.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!less(heap[i], heap[p])) break;
        [heap[i], heap[p]] = [heap[p], heap[i]];
        i = p;
      }
    } else if (less(heap[0], e)) {
      heap[0] = e;
      down(0);
    }
  }
  return heap.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * The accumulated BM25 scores of a query as id → score, and the accumulator cleared for the next:
 * `acc[num]` holds document `num`'s score, `touched` the documents in the order they were first
 * scored. Past `limit` documents, only those at or above the `limit`-th best score are kept (at most
 * `2 × limit`, ties included), in that first-scored order — the Map order the rankers rely on.
 * Shared by `Bm25Index` and the warm tier's `WarmLexicon`, which must score identically.
 */
export function takeAccumulated(acc: Float64Array, touched: number[], limit: number, idOf: (num: number) => string): Map<string, number> {
  const out = new Map<string, number>();
  let keep = touched;
  if (touched.length > limit) {
    // Threshold = the limit-th best score, found by sorting a copy of the scores only.
    const scores = Float64Array.from(touched, (num) => acc[num]).sort();
    const cut = scores[scores.length - limit];
    keep = touched.filter((num) => acc[num] >= cut).slice(0, limit * 2);
  }
  for (const num of keep) if (acc[num] > 0) out.set(idOf(num), acc[num]);
  for (const num of touched) acc[num] = 0;
  return out;
}
