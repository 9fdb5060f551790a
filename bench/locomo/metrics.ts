import { percentile as nearestRank } from '../stats.js';
/** A ranked retrieval item: the dia_ids it carries and the text it would put in a prompt. */
export interface RankedItem {
  refs: string[];
  text: string;
}

/** Scores of one question. */
export interface QuestionScore {
  category: number;
  r5: number;
  r10: number;
  mrr: number;
  r2000c: number;
  ms: number;
  /** CPU time of the query (process.cpuUsage), ms. */
  cpu?: number;
}

/** Fractional recall of the gold ids within the given items. */
export function recall(items: readonly RankedItem[], gold: readonly string[]): number {
  const seen = new Set(items.flatMap((i) => i.refs));
  return gold.filter((g) => seen.has(g)).length / gold.length;
}

/** R@5, R@10, MRR (top 50) and R@2000c of one ranking. */
export function scoreRanking(items: readonly RankedItem[], gold: readonly string[]): Omit<QuestionScore, 'category' | 'ms'> {
  const g = new Set(gold);
  let mrr = 0;
  for (let i = 0; i < Math.min(50, items.length); i++) {
    if (items[i].refs.some((r) => g.has(r))) {
      mrr = 1 / (i + 1);
      break;
    }
  }
  let chars = 0;
  let n = 0;
  while (n < items.length && chars + items[n].text.length <= 2000) chars += items[n++].text.length;
  return { r5: recall(items.slice(0, 5), gold), r10: recall(items.slice(0, 10), gold), mrr, r2000c: recall(items.slice(0, n), gold) };
}

/** Percentile (nearest rank) of a list of numbers; 0 when there are none. */
export function percentile(xs: number[], p: number): number {
  return xs.length === 0 ? 0 : nearestRank(xs, p);
}

/** Aggregate of a set of question scores (percent figures). */
export interface Summary {
  n: number;
  r5: number;
  r10: number;
  mrr: number;
  r2000c: number;
  p50: number;
  p95: number;
  /** Mean CPU ms per query. */
  cpu: number;
  /** Wall ms of the first query asked (cold: nothing warmed up before it). */
  first: number;
}

export function summarise(scores: QuestionScore[]): Summary {
  const avg = (f: (s: QuestionScore) => number): number => (scores.length ? (100 * scores.reduce((a, s) => a + f(s), 0)) / scores.length : 0);
  const ms = scores.map((s) => s.ms);
  const cpu = scores.length ? scores.reduce((a, s) => a + (s.cpu ?? 0), 0) / scores.length : 0;
  return { n: scores.length, r5: avg((s) => s.r5), r10: avg((s) => s.r10), mrr: avg((s) => s.mrr), r2000c: avg((s) => s.r2000c), p50: percentile(ms, 50), p95: percentile(ms, 95), cpu, first: ms[0] ?? 0 };
}
