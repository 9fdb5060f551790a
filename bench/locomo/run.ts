/**
 * LoCoMo retrieval benchmark, lifecycle-faithful (K-7): `npm run bench:locomo [-- --data PATH] [--write]`.
 *
 * Each conversation is replayed through the memory composition the daemon runs (see
 * lifecycle.ts): real session dates on a simulated clock, every heartbeat at its default interval,
 * default config, rule distiller, no LLM. Every category 1–4 question is asked through the
 * product's recall (context, documents, cold archive and graph facts ranked together) three
 * times: right after the last turn (fresh), one simulated day later and one simulated year later.
 * A minisearch BM25 baseline runs in the same process on the same data. Prints markdown; `--write`
 * also updates RESULTS.md.
 */
// First: the zone the memory counts days in (decision 0270).
import './utc-person.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Bm25Baseline } from './bm25-baseline.js';
import { loadLocomo, type Conversation } from './dataset.js';
import { age, ask, DAY_MS, replay, tierSizes, type ConversationMemory } from './lifecycle.js';
import { scoreRanking, summarise, type QuestionScore, type RankedItem, type Summary } from './metrics.js';
import { runDistillBench } from '../distill/run.js';
import type { RankOptions } from '../../src/memory/index.js';

const CATEGORY = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' } as const;

export interface RowResult {
  name: string;
  all: Summary;
  byCat: Record<number, Summary>;
  ingestTps?: number;
  /** Share of the top-10 hits per tier (context / document / archive / graph). */
  tiers?: Record<string, number>;
  note?: string;
}

/** Questions of the JIT warm-up (asked of a separate replay, never of a measured memory). */
const WARM_UP_QUESTIONS = 150;

/**
 * Issue 15's parts, each switched off alone (ranking knobs passed to recall), and all of them (the
 * issue-11 ranking); then decision 0130's category members, which are off by default, switched on;
 * then decision 0170's own-question discount switched off and its set-question substance switched on.
 */
const ABLATIONS: { name: string; rank: Partial<RankOptions> }[] = [
  { name: 'ablation: no speaker prior', rank: { speakerBoost: 0 } },
  { name: 'ablation: no dialogue evidence (±2 turns, question → answer)', rank: { neighbour2Weight: 0, answerWeight: 0 } },
  { name: 'ablation: dates at month level only', rank: { dayBoost: 0 } },
  // Decision 0160: turns that say one of the question's days ("yesterday" said on 8 May is 7 May) admitted and boosted.
  { name: 'ablation: no days said inside turns', rank: { saidDayBoost: 0 } },
  { name: 'ablation: all three off (the issue-11 ranking)', rank: { speakerBoost: 0, neighbour2Weight: 0, answerWeight: 0, dayBoost: 0 } },
  { name: 'with category members for set questions (categoryWeight 0.5; off by default)', rank: { categoryWeight: 0.5 } },
  // Decision 0170: the part that is on, switched off; the part that is off, switched on.
  { name: 'ablation: own questions keep the whole speaker bonus (focusAskDiscount 0)', rank: { focusAskDiscount: 0 } },
  { name: 'with substance for set questions (setSubstanceEvidence 0.75; off by default)', rank: { setSubstanceEvidence: 0.75 } },
];

function parseArgs(argv: string[]): { data: string; write: boolean; limit?: number } {
  const out: { data: string; write: boolean; limit?: number } = { data: '/work/shared/bench/locomo-dev.json', write: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--data') out.data = argv[++i];
    else if (argv[i] === '--write') out.write = true;
    // The first N conversations only (a quick check while iterating; never written).
    else if (argv[i] === '--limit') out.limit = Number(argv[++i]);
  }
  return out;
}

/** Asks every question of every conversation; latency and CPU per question. */
export async function evaluate(convs: readonly Conversation[], search: (c: Conversation, q: string) => Promise<RankedItem[]> | RankedItem[]): Promise<QuestionScore[]> {
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

export function row(name: string, scores: QuestionScore[], extra: Partial<RowResult> = {}): RowResult {
  const byCat: Record<number, Summary> = {};
  for (const c of [1, 2, 3, 4]) byCat[c] = summarise(scores.filter((s) => s.category === c));
  return { name, all: summarise(scores), byCat, ...extra };
}

const f1 = (x: number): string => x.toFixed(1);
const f2 = (x: number): string => x.toFixed(2);

function table(rows: RowResult[]): string {
  const head = '| system | R@5 | R@10 | MRR | R@2000c | query p50 ms | query p95 ms | query CPU ms (mean) | first query ms | ingest turns/s | top-10 hits by tier (ctx/doc/arch/graph %) |\n|---|---|---|---|---|---|---|---|---|---|---|';
  const tiers = (r: RowResult) => (r.tiers ? ['context', 'document', 'archive', 'graph'].map((t) => Math.round(r.tiers![t] ?? 0)).join(' / ') : '–');
  const lines = rows.map(
    (r) => `| ${r.name} | ${f1(r.all.r5)} | ${f1(r.all.r10)} | ${f1(r.all.mrr)} | ${f1(r.all.r2000c)} | ${f2(r.all.p50)} | ${f2(r.all.p95)} | ${f2(r.all.cpu)} | ${f2(r.all.first)} | ${r.ingestTps === undefined ? '–' : Math.round(r.ingestTps)} | ${tiers(r)} |`,
  );
  return [head, ...lines].join('\n');
}

function categoryTable(rows: RowResult[]): string {
  const head = `| system | ${[1, 2, 3, 4].map((c) => `${CATEGORY[c as 1]} R@10 / R@2000c (n)`).join(' | ')} |\n|---|---|---|---|---|`;
  const lines = rows.map((r) => `| ${r.name} | ${[1, 2, 3, 4].map((c) => `${f1(r.byCat[c].r10)} / ${f1(r.byCat[c].r2000c)} (${r.byCat[c].n})`).join(' | ')} |`);
  return [head, ...lines].join('\n');
}

/** The same-run BM25 baseline row. */
export async function baselineRow(convs: readonly Conversation[]): Promise<RowResult> {
  const nT = convs.reduce((a, c) => a + c.turns.length, 0);
  const baselines = new Map<string, Bm25Baseline>();
  const t0 = performance.now();
  for (const c of convs) {
    const b = new Bm25Baseline();
    for (const t of c.turns) b.add(t);
    baselines.set(c.id, b);
  }
  const tps = nT / ((performance.now() - t0) / 1000);
  return row('BM25 baseline (minisearch, one item per turn, same run)', await evaluate(convs, (c, q) => baselines.get(c.id)!.search(q)), { ingestTps: tps });
}

/** Runs the benchmark and returns the markdown report. */
export async function run(argv: string[] = process.argv.slice(2)): Promise<string> {
  const args = parseArgs(argv);
  const loadAtStart = os.loadavg()[0];
  const convs = loadLocomo(args.data).slice(0, args.limit);
  const nQ = convs.reduce((a, c) => a + c.questions.length, 0);
  const nT = convs.reduce((a, c) => a + c.turns.length, 0);
  const rows: RowResult[] = [await baselineRow(convs)];

  const mems = new Map<string, ConversationMemory>();
  const started = performance.now();
  for (const c of convs) mems.set(c.id, await replay(c));
  const ingestMs = [...mems.values()].reduce((a, m) => a + m.ingestMs, 0);
  const tps = nT / (ingestMs / 1000);
  // JIT warm-up on a separate replay of the first conversation (its own data folder, closed after):
  // compilation does not land in the measured rows, and the measured memories' caches stay cold.
  const warm = await replay(convs[0]);
  const w0 = performance.now();
  await ask(warm.memory, convs[0].questions[0].question);
  const coldFirstMs = performance.now() - w0;
  for (const q of convs[0].questions.slice(1, WARM_UP_QUESTIONS)) await ask(warm.memory, q.question);
  await warm.close();

  const stages: { name: string; wait: number }[] = [
    { name: 'HomeAgent fresh (questions right after the last turn)', wait: 0 },
    { name: 'HomeAgent aged +1 day (heartbeats ran for a simulated day)', wait: DAY_MS },
    { name: 'HomeAgent aged +1 year (heartbeats ran for a simulated year)', wait: 364 * DAY_MS },
  ];
  const sizes: string[] = [];
  for (const st of stages) {
    for (const m of mems.values()) if (st.wait) await age(m, st.wait);
    const tierCount: Record<string, number> = {};
    let hitsCounted = 0;
    // The first question of a stage pays for the recall's caches, which start empty whenever the
    // archive changed (reported as "first query").
    const scores = await evaluate(convs, async (c, q) => {
      const r = await ask(mems.get(c.id)!.memory, q);
      for (const h of r.hits.slice(0, 10)) tierCount[h.tier] = (tierCount[h.tier] ?? 0) + 1;
      hitsCounted += Math.min(10, r.hits.length);
      return r.items;
    });
    const tiers = Object.fromEntries(Object.entries(tierCount).map(([t, n]) => [t, (100 * n) / Math.max(1, hitsCounted)]));
    rows.push(row(st.name, scores, { ingestTps: tps, tiers }));
    // Ablations of issue 15 (same memories, same clock): each part off alone, then all three off.
    for (const ab of ABLATIONS) {
      const abScores = await evaluate(convs, async (c, q) => (await ask(mems.get(c.id)!.memory, q, 50, ab.rank)).items);
      rows.push(row(`${st.name.split(' (')[0]}, ${ab.name}`, abScores, { ingestTps: tps, note: 'ablation' }));
    }
    const total = [...mems.values()].map((m) => tierSizes(m.memory)).reduce((a, s) => ({ context: a.context + s.context, documents: a.documents + s.documents, archive: a.archive + s.archive, facts: a.facts + s.facts }), { context: 0, documents: 0, archive: 0, facts: 0 });
    sizes.push(`- ${st.name.split(' (')[0]}: ${total.context} context events, ${total.documents} warm documents, ${total.archive} archived turns, ${total.facts} graph relations.`);
  }
  const heartbeatS = [...mems.values()].reduce((a, m) => a + m.heartbeatMs, 0) / 1000;
  for (const m of mems.values()) await m.close();
  const distill = await runDistillBench();

  const base = rows[0].all;
  const margin = (r: RowResult) => `R@10 ${r.all.r10 - base.r10 >= 0 ? '+' : ''}${f1(r.all.r10 - base.r10)}, R@2000c ${r.all.r2000c - base.r2000c >= 0 ? '+' : ''}${f1(r.all.r2000c - base.r2000c)}`;
  const report = [
    `LoCoMo retrieval through the memory lifecycle, ${convs.length} conversations, ${nT} turns, ${nQ} questions (categories 1–4), data ${path.basename(args.data)}, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} cores, load average at start ${loadAtStart.toFixed(1)}, at end ${os.loadavg()[0].toFixed(1)} (latencies are wall-clock and suffer from other processes).`,
    '',
    `Latency: before the fresh stage, ${WARM_UP_QUESTIONS} questions of the first conversation were asked of a separate replay of it (its own data folder, closed after) so that JIT compilation does not land in the measured rows; the process's very first query there (JIT and caches cold) took ${coldFirstMs.toFixed(1)} ms. The measured memories were not warmed: each stage's default row is asked first, right after the clock moved, and its first query ("first query ms") pays for the recall's per-archive caches, which start empty whenever the archive changed. The ablation rows then ask the same questions over the same memories and find those caches filled: compare their latency with that in mind.`,
    '',
    table(rows),
    '',
    `Margins over the same-run BM25: ${rows
      .slice(1)
      .map((r) => `${r.name.split(' (')[0]}: ${margin(r)}`)
      .join('; ')}.`,
    '',
    'Per category (R@10 / R@2000c, number of questions):',
    '',
    categoryTable(rows),
    '',
    'Where the memory lived when the questions were asked (all conversations):',
    '',
    ...sizes,
    '',
    `Ingest: ${nT} turns through append + prune in ${(ingestMs / 1000).toFixed(1)} s (${Math.round(tps)} turns/s); heartbeat loops on the simulated clock (replay, +1 day, +1 year) took ${heartbeatS.toFixed(1)} s of wall time; whole run ${((performance.now() - started) / 1000).toFixed(0)} s.`,
    '',
    `Rule distiller on the labelled statements (src/memory/distill/__fixtures__/fact-statements.json, ${distill.items} statements, zh + en): ${distill.summary}`,
  ].join('\n');
  if (args.write && args.limit === undefined) {
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
