/**
 * The query cost of one ranking knob, on and off, in the same process (decision 0210):
 * `node --import tsx bench/locomo/knob-cost.ts --knob hyponymSenseWeight=0.5 [--limit 2] [--passes 3] [--data PATH]`
 * (decision 0300: `--knob wordNeighbourWeight=0.35`; the word-neighbour table's read time is reported).
 *
 * Replays the first `limit` conversations through the daemon's memory composition, then asks every
 * question with the knob on and off in alternating order (which goes first alternates per question),
 * `passes` times. Reports CPU per query (process CPU time: not inflated by other processes' load) and
 * wall p50 / p95, for all questions and for the set questions the knob acts on, the first pass apart
 * (it includes the first read of any file the knob uses), and the process RSS before and after.
 */
// First: the zone the memory counts days in (decision 0270).
import './utc-person.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import type { RankOptions } from '../../src/memory/index.js';
import { asksForSet } from '../../src/memory/recall/turn-substance.js';
import { wordNeighbourFile } from '../../src/memory/recall/word-neighbours.js';
import { loadLocomo } from './dataset.js';
import { ask, replay } from './lifecycle.js';
import { percentile } from './metrics.js';

interface Sample {
  cpu: number;
  wall: number;
  set: boolean;
  pass: number;
}

export async function knobCost(argv: string[]): Promise<string> {
  const arg = (name: string, dflt: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : dflt;
  };
  const [knob, value] = arg('--knob', 'hyponymSenseWeight=0.5').split('=');
  const on = { [knob]: Number(value) } as Partial<RankOptions>;
  const off = { [knob]: 0 } as Partial<RankOptions>;
  const passes = Number(arg('--passes', '3'));
  const convs = loadLocomo(arg('--data', '/work/shared/bench/locomo-dev.json')).slice(0, Number(arg('--limit', '2')));
  const load0 = os.loadavg()[0];
  const mems = [];
  for (const c of convs) mems.push({ c, m: await replay(c) });
  const rss0 = process.memoryUsage().rss;
  // JIT warm-up on the first conversation's questions with the knob off (not counted).
  for (const q of convs[0].questions.slice(0, 40)) await ask(mems[0].m.memory, q.question, 50, off);
  const samples = { on: [] as Sample[], off: [] as Sample[] };
  for (let pass = 0; pass < passes; pass++) {
    let i = 0;
    for (const { c, m } of mems) {
      for (const q of c.questions) {
        const order: ['on' | 'off', Partial<RankOptions>][] = (i++ + pass) % 2 ? [['on', on], ['off', off]] : [['off', off], ['on', on]];
        for (const [name, rank] of order) {
          const c0 = process.cpuUsage();
          const t0 = performance.now();
          await ask(m.memory, q.question, 50, rank);
          const wall = performance.now() - t0;
          const cpu = process.cpuUsage(c0);
          samples[name].push({ cpu: (cpu.user + cpu.system) / 1000, wall, set: asksForSet(q.question), pass });
        }
      }
    }
  }
  const rss1 = process.memoryUsage().rss;
  for (const { m } of mems) await m.close();
  const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / Math.max(1, xs.length);
  const row = (name: string, xs: Sample[]) =>
    `| ${name} | ${xs.length} | ${mean(xs.map((s) => s.cpu)).toFixed(2)} | ${percentile(xs.map((s) => s.wall), 50).toFixed(1)} / ${percentile(xs.map((s) => s.wall), 95).toFixed(1)} |`;
  const rows: string[] = [];
  for (const [label, pick] of [
    ['all questions, passes 2+', (s: Sample) => s.pass > 0],
    ['set questions, passes 2+', (s: Sample) => s.pass > 0 && s.set],
    ['set questions, first pass', (s: Sample) => s.pass === 0 && s.set],
  ] as const) {
    rows.push(row(`${knob} ${value}, ${label}`, samples.on.filter(pick)));
    rows.push(row(`off, ${label}`, samples.off.filter(pick)));
  }
  return [
    `${convs.length} conversations, ${passes} passes, on/off alternating per question; load ${load0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}, Node ${process.version}. RSS after replay and warm-up ${(rss0 / 2 ** 20).toFixed(1)} MiB, after all passes ${(rss1 / 2 ** 20).toFixed(1)} MiB.${wordNeighbourFile.loaded ? ` The word-neighbour table was read on the first query with the knob on (${wordNeighbourFile.loadMs?.toFixed(0) ?? 'failed'} ms).` : ''}`,
    '',
    '| setting | queries | CPU ms per query | wall p50 / p95 ms |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  knobCost(process.argv.slice(2)).then(console.log, (e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
