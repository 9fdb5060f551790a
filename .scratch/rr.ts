import { ColdArchive } from '../src/memory/archive/index.js';
import { EmbedderService } from '../src/memory/embedder/index.js';
import { performance } from 'node:perf_hooks';
const e = new EmbedderService({ config: { get: () => null, onChange: () => () => {} } as never });
const a = new ColdArchive({ home: '/work/scale-tail', tokenize: (t) => e.tokenize(t) });
a.open();
let s = 1; const r = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
const N = a.size;
for (const [label, make] of [
  ['950 random', () => Array.from({ length: 950 }, () => 1 + Math.floor(r() * N))],
  ['200 random + n±1 (600)', () => Array.from({ length: 200 }, () => 1 + Math.floor(r() * N)).flatMap((n) => [n - 1, n, n + 1])],
  ['200 random', () => Array.from({ length: 200 }, () => 1 + Math.floor(r() * N))],
] as const) {
  const times: number[] = [];
  for (let i = 0; i < 60; i++) { const ns = make(); const c = process.cpuUsage(); a.rankRows(ns); const d = process.cpuUsage(c); times.push((d.user + d.system) / 1000); }
  times.sort((x, y) => x - y);
  console.log(label, 'cpu ms p50', times[30].toFixed(2), 'p90', times[54].toFixed(2));
}
a.close();
