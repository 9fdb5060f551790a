/**
 * LoCoMo retrieval benchmark (no LLM): `npm run bench:locomo [-- --data PATH] [--vectors FILE] [--write]`.
 * For each conversation a fresh memory stack ingests every turn through the live path
 * (RelevanceContext.append + prune → DocStore archive), then every category 1–4 question is asked
 * verbatim and the ranked refs are scored against the gold evidence. A minisearch BM25 baseline runs
 * in the same process on the same data. Prints markdown; `--write` also updates RESULTS.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { EmbedderService } from '../../src/memory/embedder/index.js';
import type { RankOptions } from '../../src/memory/documents/index.js';
import { Bm25Baseline } from './bm25-baseline.js';
import { loadLocomo, type Conversation } from './dataset.js';
import { MemoryStack, memoryConfig } from './memory-stack.js';
import { scoreRanking, summarise, type QuestionScore, type RankedItem, type Summary } from './metrics.js';

const CATEGORY = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' } as const;

interface Variant {
  name: string;
  rank?: Partial<RankOptions>;
  /** Following turns returned with each hit (messageRange). */
  after?: number;
  /** Fuse graph recall into the ranking with this boost (MemoryStack.searchGraph). */
  graph?: number;
}

/** Ablation: each row adds one part to the one above (the graph row adds to the default ranking, not to messageRange). */
const VARIANTS: Variant[] = [
  { name: 'HomeAgent: BM25 only (jieba/Porter tokens, b 0.5)', rank: { neighbourWeight: 0, prfDocs: 0, dateBoost: 0, sessionWeight: 0 } },
  { name: '+ query expansion (PRF, 3 docs × 8 terms)', rank: { neighbourWeight: 0, dateBoost: 0, sessionWeight: 0 } },
  { name: '+ neighbour evidence (0.5 × best adjacent turn)', rank: { dateBoost: 0, sessionWeight: 0 } },
  { name: '+ session continuity (0.3 × best turn of the session)', rank: { dateBoost: 0 } },
  { name: '+ session-date awareness (= ranking default, 1 turn per item)', rank: {} },
  { name: '+ messageRange: each hit with its next turn (searchWindows)', rank: {}, after: 1 },
  { name: '+ graph facts (default ranking, 1 turn per item, + 0.1 × top score for turns cited by graph.recall(keywords, 2))', rank: {}, graph: 0.1 },
];

interface RowResult {
  name: string;
  all: Summary;
  byCat: Record<number, Summary>;
  ingestTps?: number;
}

function parseArgs(argv: string[]): { data: string; vectors?: string; write: boolean; variants?: string } {
  const out: { data: string; vectors?: string; write: boolean; variants?: string } = { data: '/work/shared/bench/locomo-dev.json', write: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--data') out.data = argv[++i];
    else if (argv[i] === '--vectors') out.vectors = argv[++i];
    else if (argv[i] === '--write') out.write = true;
  }
  return out;
}

async function evaluate(convs: Conversation[], search: (c: Conversation, q: string) => Promise<RankedItem[]> | RankedItem[]): Promise<QuestionScore[]> {
  const scores: QuestionScore[] = [];
  for (const c of convs) {
    for (const q of c.questions) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const items = await search(c, q.question);
      const ms = performance.now() - t0;
      const cu = process.cpuUsage(c0);
      scores.push({ category: q.category, ms, cpu: (cu.user + cu.system) / 1000, ...scoreRanking(items, q.evidence) });
    }
  }
  return scores;
}

function row(name: string, scores: QuestionScore[], ingestTps?: number): RowResult {
  const byCat: Record<number, Summary> = {};
  for (const c of [1, 2, 3, 4]) byCat[c] = summarise(scores.filter((s) => s.category === c));
  return { name, all: summarise(scores), byCat, ingestTps };
}

const f1 = (x: number): string => x.toFixed(1);
const f2 = (x: number): string => x.toFixed(2);

function table(rows: RowResult[]): string {
  const head = '| system | R@5 | R@10 | MRR | R@2000c | query p50 ms | query p95 ms | query CPU ms (mean) | ingest turns/s |\n|---|---|---|---|---|---|---|---|---|';
  const lines = rows.map((r) => `| ${r.name} | ${f1(r.all.r5)} | ${f1(r.all.r10)} | ${f1(r.all.mrr)} | ${f1(r.all.r2000c)} | ${f2(r.all.p50)} | ${f2(r.all.p95)} | ${f2(r.all.cpu)} | ${r.ingestTps === undefined ? '–' : Math.round(r.ingestTps)} |`);
  return [head, ...lines].join('\n');
}

function categoryTable(rows: RowResult[]): string {
  const head = `| system | ${[1, 2, 3, 4].map((c) => `${CATEGORY[c as 1]} R@10 / R@2000c (n)`).join(' | ')} |\n|---|---|---|---|---|`;
  const lines = rows.map((r) => `| ${r.name} | ${[1, 2, 3, 4].map((c) => `${f1(r.byCat[c].r10)} / ${f1(r.byCat[c].r2000c)} (${r.byCat[c].n})`).join(' | ')} |`);
  return [head, ...lines].join('\n');
}

/** Runs the benchmark and returns the markdown report. */
export async function run(argv: string[] = process.argv.slice(2)): Promise<string> {
  const args = parseArgs(argv);
  const convs = loadLocomo(args.data);
  const nQ = convs.reduce((a, c) => a + c.questions.length, 0);
  const nT = convs.reduce((a, c) => a + c.turns.length, 0);

  // Baseline, same run.
  const baselines = new Map<string, Bm25Baseline>();
  let t0 = performance.now();
  for (const c of convs) {
    const b = new Bm25Baseline();
    for (const t of c.turns) b.add(t);
    baselines.set(c.id, b);
  }
  const baseTps = nT / ((performance.now() - t0) / 1000);
  const rows: RowResult[] = [row('BM25 baseline (minisearch, per turn)', await evaluate(convs, (c, q) => baselines.get(c.id)!.search(q)), baseTps)];

  let graphFacts = 0;
  let graphRels = 0;
  let graphQ = 0;
  let graphGoldQ = 0;
  let graphRefsTotal = 0;
  const embedderRuns: { label: string; vectors?: string }[] = [{ label: '' }];
  if (args.vectors) embedderRuns.push({ label: ' + dense static vectors', vectors: args.vectors });
  for (const er of embedderRuns) {
    const embedder = new EmbedderService({ config: memoryConfig({ 'core.memory.embedding_model_path': er.vectors ?? '' }), log: { info: (m) => console.error(m), warn: (m) => console.error(m) } });
    await embedder.start();
    await embedder.ready();
    const stacks = new Map<string, MemoryStack>();
    let ingestMs = 0;
    for (const c of convs) {
      const s = new MemoryStack(embedder);
      await s.open();
      t0 = performance.now();
      await s.ingest(c);
      ingestMs += performance.now() - t0;
      stacks.set(c.id, s);
    }
    const tps = nT / (ingestMs / 1000);
    if (!er.vectors) {
      graphFacts = [...stacks.values()].reduce((a, s) => a + s.facts, 0);
      graphRels = [...stacks.values()].reduce((a, s) => a + s.graph.stats().relations, 0);
      for (const c of convs) {
        for (const q of c.questions) {
          const refs = stacks.get(c.id)!.graphRefs(q.question);
          if (!refs.size) continue;
          graphQ++;
          graphRefsTotal += refs.size;
          if (q.evidence.some((e) => refs.has(e))) graphGoldQ++;
        }
      }
    }
    const variants: Variant[] = er.vectors
      ? [
          { name: `default ranking${er.label} (${embedder.modelId()})`, rank: {} },
          { name: `default ranking${er.label}, dense weight 0.3`, rank: { lexicalWeight: 0.7, denseWeight: 0.3 } },
          { name: `messageRange${er.label}`, rank: {}, after: 1 },
        ]
      : VARIANTS;
    for (const v of variants) {
      // Warm-up so JIT compilation does not land in the first question's latency.
      const search = (s: MemoryStack, q: string): Promise<RankedItem[]> => (v.graph !== undefined ? s.searchGraph(q, v.rank, v.graph) : s.search(q, v.rank, v.after));
      for (const c of convs.slice(0, 1)) for (const q of c.questions.slice(0, 20)) await search(stacks.get(c.id)!, q.question);
      rows.push(row(v.name, await evaluate(convs, (c, q) => search(stacks.get(c.id)!, q)), tps));
    }
    for (const s of stacks.values()) await s.close();
    await embedder.stop();
  }

  const report = [
    `LoCoMo retrieval, ${convs.length} conversations, ${nT} turns, ${nQ} questions (categories 1–4), data ${path.basename(args.data)}, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} cores, load average at end ${os.loadavg()[0].toFixed(1)} (latencies are wall-clock and suffer from other processes).`,
    '',
    table(rows),
    '',
    'Per category (R@10 / R@2000c, number of questions):',
    '',
    categoryTable(rows),
    '',
    `Graph tier: the rule distiller committed ${graphFacts} triples (${graphRels} distinct relations) from ${nT} turns during ingest (ingest turns/s includes it); graph recall returned relations for ${graphQ} of ${nQ} questions (mean ${graphQ ? (graphRefsTotal / graphQ).toFixed(1) : 0} cited turns), and for ${graphGoldQ} of them a cited turn is gold evidence.`,
  ].join('\n');
  if (args.write) {
    const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');
    const prev = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const marker = '<!-- results -->';
    const next = prev.includes(marker) ? `${prev.slice(0, prev.indexOf(marker) + marker.length)}\n\n${report}\n` : `# LoCoMo retrieval results\n\n${marker}\n\n${report}\n`;
    fs.writeFileSync(file, next);
  }
  return report;
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
