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
