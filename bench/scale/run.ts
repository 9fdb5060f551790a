/**
 * Memory scale benchmark (T-2, T-3): `node --import tsx bench/scale/run.ts [--max 100000]`.
 * Measures RelevanceContext.prune over large windows and ranking over the warm documents as they grow from
 * 1k to 100k documents (real SQLite in a temp folder, lexical default embedder), on synthetic
 * text (Zipf-distributed vocabulary of 20k words without its 100 most frequent, which stand for
 * stop-words). Other subsystems add their own cases with
 * `registerScaleCase` (e.g. graph BFS at scale) and they appear in the same report.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { ConfigReader, ConfigValue } from '../../src/spec/config.js';
import { RelevanceContext } from '../../src/memory/context/index.js';
import { DocStore } from '../../src/memory/documents/index.js';
import { documentCorpus, rankEvidence } from '../../src/memory/recall/index.js';
import { EmbedderService } from '../../src/memory/embedder/index.js';
import { runGraphScale } from './graph.bench.js';
import { runArchiveScale } from './archive.bench.js';
import { percentile as pct } from '../stats.js';
import { makeText } from './synthetic-text.js';

/** One row of the scale report. */
export interface ScaleRow {
  case: string;
  size: number;
  p50: number;
  p95: number;
  /** Mean CPU time per operation (process.cpuUsage): robust when other processes share the cores. */
  cpu?: number;
  note?: string;
}

/** A benchmark case another subsystem contributes: returns its rows. */
export type ScaleCase = (ctx: { tmp: string; sizes: number[] }) => Promise<ScaleRow[]>;

const extraCases: { name: string; fn: ScaleCase }[] = [];

/** Hook for other subsystems (graph BFS, indexer …) to add a case to the report. */
export function registerScaleCase(name: string, fn: ScaleCase): void {
  extraCases.push({ name, fn });
}

// Graph BFS at scale (T-4), contributed by the graph tier.
registerScaleCase('graph', (ctx) => runGraphScale(ctx));
// The cold archive at 1,000,000 turns on the built daemon (T-3); `--archive-turns N` for another size, 0 to skip.
registerScaleCase('archive', (ctx) => {
  const i = process.argv.indexOf('--archive-turns');
  const turns = i >= 0 ? Number(process.argv[i + 1]) : 1_000_000;
  return turns > 0 ? runArchiveScale({ tmp: ctx.tmp, turns }) : Promise.resolve([]);
});

function config(values: Record<string, ConfigValue>): ConfigReader {
  return { get: <T extends ConfigValue>(k: string) => (values[k] ?? null) as T, onChange: () => () => {} };
}

async function pruneCase(tmp: string, embedder: EmbedderService, sizes: number[]): Promise<ScaleRow[]> {
  const text = makeText(1);
  const rows: ScaleRow[] = [];
  for (const size of sizes) {
    const times: number[] = [];
    let archived = 0;
    let cpu = 0;
    for (let run = 0; run < 5; run++) {
      const ctx = new RelevanceContext({ home: fs.mkdtempSync(path.join(tmp, 'ctx-')), embedder, topK: 40, archive: (evs) => void (archived += evs.length), timers: { setTimeout: () => 0, clearTimeout: () => {} } });
      await ctx.start();
      for (let i = 0; i < size; i++) ctx.append({ kind: 'user', source: 'bench', channel: 'bench', sessionId: 's', input: text(12), response: '', timestamp: i });
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await ctx.prune(text(10));
      times.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu += (c.user + c.system) / 1000;
    }
    rows.push({ case: 'context prune (topK 40)', size, p50: pct(times, 50), p95: pct(times, 95), cpu: cpu / 5, note: `${archived / 5} archived per prune` });
  }
  return rows;
}

async function docCase(tmp: string, embedder: EmbedderService, sizes: number[]): Promise<ScaleRow[]> {
  const text = makeText(2);
  const rows: ScaleRow[] = [];
  const home = fs.mkdtempSync(path.join(tmp, 'docs-'));
  const store = new DocStore({ home, embedder });
  await store.open();
  let added = 0;
  let addMs = 0;
  for (const size of sizes) {
    const t0 = performance.now();
    while (added < size) {
      const batch = Math.min(1000, size - added);
      store.addMany(Array.from({ length: batch }, (_, i) => ({ content: text(15 + ((added + i) % 20)), createdAt: added + i, sessionId: `s${Math.floor((added + i) / 20)}` })));
      added += batch;
    }
    addMs += performance.now() - t0;
    const times: number[] = [];
    const c0 = process.cpuUsage();
    for (let q = 0; q < 200; q++) {
      const query = text(6);
      const t1 = performance.now();
      await rankEvidence([documentCorpus(store)], embedder, query, 10);
      times.push(performance.now() - t1);
    }
    const c = process.cpuUsage(c0);
    rows.push({ case: 'warm document ranking alone (top 10)', size, p50: pct(times, 50), p95: pct(times, 95), cpu: (c.user + c.system) / 1000 / 200, note: `${Math.round(added / (addMs / 1000))} docs/s added (wall)` });
  }
  await store.close();
  const t2 = performance.now();
  const reopened = new DocStore({ home, embedder });
  await reopened.open();
  const openMs = performance.now() - t2;
  rows.push({ case: 'document store open (rebuild index)', size: reopened.size, p50: openMs, p95: openMs });
  await reopened.close();
  return rows;
}

/** Runs every case and returns the markdown report. */
export async function run(argv: string[] = process.argv.slice(2)): Promise<string> {
  const maxArg = argv.indexOf('--max');
  const max = maxArg >= 0 ? Number(argv[maxArg + 1]) : 100_000;
  const docSizes = [1_000, 10_000, 100_000].filter((s) => s <= max);
  const ctxSizes = [1_000, 10_000].filter((s) => s <= max);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'scale-bench-'));
  const embedder = new EmbedderService({ config: config({}) });
  await embedder.start();
  try {
    const rows = [...(await pruneCase(tmp, embedder, ctxSizes)), ...(await docCase(tmp, embedder, docSizes))];
    for (const c of extraCases) rows.push(...(await c.fn({ tmp, sizes: docSizes })));
    const head = '| case | size | p50 ms | p95 ms | mean CPU ms | note |\n|---|---|---|---|---|---|';
    const lines = rows.map((r) => `| ${r.case} | ${r.size} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} | ${r.cpu === undefined ? '–' : r.cpu.toFixed(2)} | ${r.note ?? ''} |`);
    return [`Memory scale (${embedder.modelId()} embedder, Node ${process.version}, ${os.cpus().length} cores, load average at end ${os.loadavg()[0].toFixed(1)}):`, '', head, ...lines].join('\n');
  } finally {
    await embedder.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  run().then(
    (r) => console.log(r),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
