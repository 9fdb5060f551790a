/**
 * Graph scale benchmark (T-4): recall (keyword match: trigram FTS or LIKE, + BFS depth 2) over graphs of 1k / 10k / 100k
 * entities with ~2 relations each, on a real SQLite file. `runGraphScale` fits `registerScaleCase`
 * of `bench/scale/run.ts`; run alone with `node --import tsx bench/scale/graph.bench.ts [--max N]`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { GraphDB } from '../../src/memory/graph/index.js';
import type { Triple } from '../../src/spec/index.js';
import type { ScaleRow } from './run.js';
import { percentile as pct, rng } from '../stats.js';

const PREDICATES = ['knows', 'likes', 'lives_in', 'works_at', 'part_of', 'visited'];

/** Builds graphs of each size and measures recall p50/p95 (ms) at depth 2, plus build time. */
export async function runGraphScale(ctx: { tmp?: string; sizes?: number[]; queries?: number } = {}): Promise<ScaleRow[]> {
  const sizes = ctx.sizes ?? [1_000, 10_000, 100_000];
  const tmp = ctx.tmp ?? fs.mkdtempSync(path.join(os.tmpdir(), 'graph-bench-'));
  const own = ctx.tmp === undefined;
  const rows: ScaleRow[] = [];
  try {
    for (const size of sizes) {
      const g = new GraphDB({ path: path.join(tmp, `graph-${size}`, 'graph.db') });
      g.open();
      const r = rng(size);
      const t0 = performance.now();
      let batch: Triple[] = [];
      for (let i = 0; i < size; i++) {
        for (let k = 0; k < 2; k++) {
          const j = Math.floor(r() * size);
          if (j === i) continue;
          batch.push({ subject: `entity-${i}`, predicate: PREDICATES[(i + k) % PREDICATES.length], object: `entity-${j}` });
        }
        if (batch.length >= 998) {
          g.commit(batch);
          batch = [];
        }
      }
      if (batch.length) g.commit(batch);
      const buildMs = performance.now() - t0;
      const recall: number[] = [];
      const expand: number[] = [];
      let reached = 0;
      for (let q = 0; q < (ctx.queries ?? 200); q++) {
        const id = Math.floor(r() * size);
        let t = performance.now();
        const res = g.recall([`entity-${id}`], 2, { touch: false });
        recall.push(performance.now() - t);
        reached += res.entities.length;
        t = performance.now();
        g.expand(`entity-${id}`, 2);
        expand.push(performance.now() - t);
      }
      rows.push({ case: 'graph recall (keyword match + BFS depth 2)', size, p50: pct(recall, 50), p95: pct(recall, 95), note: `avg ${(reached / recall.length).toFixed(0)} entities reached; build ${(buildMs / 1000).toFixed(1)} s` });
      rows.push({ case: 'graph BFS depth 2 from one entity', size, p50: pct(expand, 50), p95: pct(expand, 95) });
      g.close();
    }
  } finally {
    if (own) fs.rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const i = process.argv.indexOf('--max');
  const max = i >= 0 ? Number(process.argv[i + 1]) : 100_000;
  runGraphScale({ sizes: [1_000, 10_000, 100_000].filter((s) => s <= max) }).then(
    (rows) => {
      console.log('| case | size | p50 ms | p95 ms | note |\n|---|---|---|---|---|');
      for (const r of rows) console.log(`| ${r.case} | ${r.size} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} | ${r.note ?? ''} |`);
    },
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
