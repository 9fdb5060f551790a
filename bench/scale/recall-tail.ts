/**
 * Where the slow queries of the scale bench go (issue 11 part 8, decision 0200): opens a data folder
 * with the memory composition the daemon runs (`openMemorySystem`, default config) in this process,
 * asks the scale bench's 300 queries as `memory.search` does (`recall.search(q, { k: 10 })`, after
 * the same 20 warm-up queries), and prints per query: CPU time (`process.cpuUsage`, user + system,
 * every thread of the process: load does not inflate it), garbage collections seen during it (count
 * and pause), the query's language and terms, and the percentiles; the slowest queries are listed.
 * `--top FILE` writes each query's top-10 ids and scores (JSON) to compare builds; `--repeat N`
 * asks the slowest tenth N more times (for `--cpu-prof`).
 *
 * `node --import tsx bench/scale/recall-tail.ts DIR [--make N] [--top FILE] [--repeat N] [--trace] [--only zh|en] [--rounds N] [--no-v8-flags]` —
 * DIR is a copy of a scale folder (the memory composition writes into the folder it opens), or
 * with `--make N` a new one with N archived turns and the warm tier at its bound (the scale
 * bench's `buildFolder`); `--trace` adds the archive's reads per query; the daemon's V8 heap
 * settings (flags and the young generation's hold) are as `homed run` has them unless `--no-v8-flags`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ConfigRegistry, coreConfigDefaults } from '../../src/config/index.js';
import { ColdArchive } from '../../src/memory/archive/index.js';
import { ManualScheduler, openMemorySystem } from '../../src/memory/index.js';
import type { PluginLogger } from '../../src/spec/index.js';
import { percentile } from '../stats.js';
import { applyDaemonV8Flags, freezeYoungGeneration, holdYoungGeneration } from '../../src/daemon/v8-memory.js';
import { EmbedderService } from '../../src/memory/embedder/index.js';
import { buildFolder, scaleQueries } from './archive.bench.js';

const quiet: PluginLogger = { debug() {}, info() {}, warn() {}, error: (m) => console.error(`[memory] ${m}`) };

/** One query's cost. */
export interface QueryCost {
  i: number;
  query: string;
  zh: boolean;
  cpuMs: number;
  sysMs: number;
  gcs: number;
  gcMs: number;
  /** With `--trace`: the archive's reads during the query. */
  reads: string;
}

const cpuNow = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const sysNow = () => process.cpuUsage().system / 1000;

/** Time and rows per archive read method (`--trace`): which reads a slow query makes. */
const trace = new Map<string, { calls: number; rows: number; ms: number }>();
function traced(proto: Record<string, unknown>, names: string[]): void {
  for (const name of names) {
    const fn = proto[name] as (...a: unknown[]) => unknown;
    proto[name] = function (this: unknown, ...a: unknown[]) {
      const c0 = cpuNow();
      const out = fn.apply(this, a);
      const t = trace.get(name) ?? { calls: 0, rows: 0, ms: 0 };
      t.calls++;
      t.ms += cpuNow() - c0;
      t.rows += out instanceof Map ? out.size : Array.isArray(out) ? out.length : 0;
      trace.set(name, t);
      return out;
    };
  }
}

async function main(): Promise<void> {
  const home = path.resolve(process.argv[2] ?? '');
  // The daemon's V8 settings as `homed run` has them (decisions 0150, 0180, 0220, 0230): its flags,
  // and the young generation kept at its first size while the memory opens, then held at its bound.
  const daemonV8 = !process.argv.includes('--no-v8-flags');
  if (daemonV8) {
    applyDaemonV8Flags();
    freezeYoungGeneration();
  }
  const make = process.argv.indexOf('--make');
  if (make >= 0 && !fs.existsSync(path.join(home, 'documents', 'archive.db'))) {
    const embedder = new EmbedderService({ config: { get: () => null as never, onChange: () => () => {} } });
    await embedder.start();
    await buildFolder(home, Number(process.argv[make + 1]), Number(coreConfigDefaults()['core.memory.warm_max_docs'].default), embedder);
    await embedder.stop();
  }
  if (!fs.existsSync(path.join(home, 'documents', 'archive.db'))) throw new Error(`${home} has no documents/archive.db`);
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const config = new ConfigRegistry({ dbPath: path.join(home, 'config.db'), env: {}, logger: { info() {}, warn() {}, error() {} } as never });
  config.open();
  config.register(coreConfigDefaults());
  if (process.argv.includes('--trace')) traced(ColdArchive.prototype as unknown as Record<string, unknown>, ['df', 'score', 'rows', 'rankRows', 'adjacentMany', 'saidOn']);
  const scheduler = new ManualScheduler(Date.now());
  const memory = await openMemorySystem({ homeDir: home, config, log: quiet, scheduler, now: scheduler.now });
  if (daemonV8) holdYoungGeneration();
  let gcs = 0;
  let gcMs = 0;
  let majors = 0;
  let majorMs = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcs++;
      gcMs += e.duration;
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        majors++;
        majorMs += e.duration;
      }
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  // GC entries arrive on a later turn of the event loop: settle before reading the counters.
  const settle = () => new Promise((r) => setImmediate(r));
  // --only zh|en: only the Chinese or the pseudo-English queries (to profile one kind).
  const only = arg('--only');
  const qs = scaleQueries(300).filter((q) => !only || (only === 'zh') === /[\u4e00-\u9fff]/.test(q));
  for (const q of qs.slice(0, 20)) await memory.recall.search(q, { k: 10 });
  await settle();
  const costs: QueryCost[] = [];
  const top: { query: string; hits: [string, number][] }[] = [];
  // --rounds N: the 300 queries N times in order; a query's cost is its lowest (what it needs when nothing else
  // — another process, a collection started by an earlier query — adds to it), and its median.
  const rounds = Math.max(1, Number(arg('--rounds') ?? 1));
  const each: number[][] = qs.map(() => []);
  for (let round = 0; round < rounds; round++)
  for (let i = 0; i < qs.length; i++) {
    const g0 = gcs;
    const gm0 = gcMs;
    trace.clear();
    const c0 = cpuNow();
    const s0 = sysNow();
    const hits = await memory.recall.search(qs[i], { k: 10 });
    const cpuMs = cpuNow() - c0;
    const sysMs = sysNow() - s0;
    await settle();
    const reads = [...trace].map(([k, t]) => `${k} ${t.calls}×/${t.rows} rows/${t.ms.toFixed(1)} ms`).join(', ');
    each[i].push(cpuMs);
    if (round > 0) continue;
    costs.push({ i, query: qs[i], zh: /[\u4e00-\u9fff]/.test(qs[i]), cpuMs, sysMs, gcs: gcs - g0, gcMs: gcMs - gm0, reads });
    top.push({ query: qs[i], hits: hits.map((h) => [h.id, h.score]) });
  }
  if (rounds > 1) {
    const lows = each.map((xs) => Math.min(...xs));
    const meds = each.map((xs) => percentile(xs, 50));
    console.log(`over ${rounds} rounds, each query's lowest CPU ms: p50 ${percentile(lows, 50).toFixed(2)} p95 ${percentile(lows, 95).toFixed(2)} max ${Math.max(...lows).toFixed(2)}; its median: p50 ${percentile(meds, 50).toFixed(2)} p95 ${percentile(meds, 95).toFixed(2)} max ${Math.max(...meds).toFixed(2)}`);
    const order = lows.map((x, i) => i).sort((a, b) => lows[b] - lows[a]).slice(0, 15);
    for (const i of order) console.log(`  #${i} lowest ${lows[i].toFixed(2)} median ${meds[i].toFixed(2)} ms: ${qs[i]}`);
  }
  const repeat = Number(arg('--repeat') ?? 0);
  if (repeat > 0) {
    const slow = [...costs].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 30);
    for (let r = 0; r < repeat; r++) for (const c of slow) await memory.recall.search(c.query, { k: 10 });
  }
  obs.disconnect();
  const topFile = arg('--top');
  if (topFile) fs.writeFileSync(topFile, JSON.stringify(top));
  const cpu = costs.map((c) => c.cpuMs);
  const sys = costs.map((c) => c.sysMs);
  const p = (xs: number[], q: number) => (xs.length ? percentile(xs, q).toFixed(2) : '–');
  const mean = (xs: number[]) => (xs.length ? (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2) : '–');
  console.log(`recall-tail on ${home} (Node ${process.version}, load ${os.loadavg()[0].toFixed(1)}): CPU per query ms p50 ${p(cpu, 50)} p95 ${p(cpu, 95)} max ${Math.max(...cpu).toFixed(2)} mean ${mean(cpu)} (of which system: mean ${mean(sys)}, p95 ${p(sys, 95)})`);
  for (const [name, xs] of [['English', costs.filter((c) => !c.zh)], ['Chinese', costs.filter((c) => c.zh)]] as const) {
    const ys = xs.map((c) => c.cpuMs);
    console.log(`  ${name}: n=${xs.length} p50 ${p(ys, 50)} p95 ${p(ys, 95)} mean ${mean(ys)}; GCs ${xs.reduce((a, c) => a + c.gcs, 0)} (${xs.reduce((a, c) => a + c.gcMs, 0).toFixed(1)} ms)`);
  }
  console.log(`  major GCs ${majors} (${majorMs.toFixed(1)} ms); CPU per query of the ${costs.filter((c) => c.gcs === 0).length} queries without a GC: p50 ${p(costs.filter((c) => c.gcs === 0).map((c) => c.cpuMs), 50)} p95 ${p(costs.filter((c) => c.gcs === 0).map((c) => c.cpuMs), 95)}; with one or more: p50 ${p(costs.filter((c) => c.gcs > 0).map((c) => c.cpuMs), 50)} p95 ${p(costs.filter((c) => c.gcs > 0).map((c) => c.cpuMs), 95)}`);
  console.log('slowest 20:');
  for (const c of [...costs].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 20)) console.log(`  #${c.i} ${c.cpuMs.toFixed(2)} ms (sys ${c.sysMs.toFixed(1)}), ${c.gcs} GC (${c.gcMs.toFixed(1)} ms): ${c.query}${c.reads ? `\n      ${c.reads}` : ''}`);
  await memory.close();
  config.close();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
