/**
 * Do two builds rank the same? (decision 0200; 0120 and 0140 used a private script like it.) Replays
 * every LoCoMo conversation through each build's memory composition (`ROOT/dist`, built with
 * `npm run build`), side by side in one process, as `bench/locomo/lifecycle.ts` replays it, then at
 * each stage (fresh, +1 day, +1 year, as `npm run bench:locomo` ages) asks every question with the
 * default ranking and with each of the bench's ablation knobs, top 50, and compares the two lists:
 * tier, the turn's refs, its time and its score to 1e-9, in order. Each turn's id is seeded (the
 * bench's are random, and a tie at equal score and time falls to the id), so both builds replay the
 * same memory; lists that differ only in the order of hits tied at the same score are counted apart.
 *
 * `node --import tsx bench/scale/compare-rankings.ts ROOT_A ROOT_B [--data PATH] [--limit N]`
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadLocomo, type Conversation } from '../locomo/dataset.js';
import { DAY_MS, TURN_GAP_MS } from '../locomo/lifecycle.js';
import type { RecallHit } from '../../src/spec/index.js';

/** The knobs `npm run bench:locomo` asks with (its default row and ablation rows). */
const RANKS: Record<string, number>[] = [
  {},
  { speakerBoost: 0 },
  { neighbour2Weight: 0, answerWeight: 0 },
  { dayBoost: 0 },
  { saidDayBoost: 0 },
  { speakerBoost: 0, neighbour2Weight: 0, answerWeight: 0, dayBoost: 0 },
  { categoryWeight: 0.5 },
  { focusAskDiscount: 0 },
  { setSubstanceEvidence: 0.75 },
];

interface Build {
  // The built modules' shapes are the ones `src` declares; each build is its own module instance.
  openMemorySystem: (o: unknown) => Promise<Memory>;
  ConfigRegistry: new (o: unknown) => { open(): void; register(d: unknown): void; close(): void };
  coreConfigDefaults: () => unknown;
  ManualScheduler: new (t: number) => { now: () => number; advance(ms: number): Promise<void> };
}
interface Memory {
  startHeartbeats(): void;
  close(): Promise<void>;
  context: { append(e: unknown): void; prune(t: string): Promise<void> };
  recall: { search(q: string, o: unknown): Promise<RecallHit[]> };
}

async function load(root: string): Promise<Build> {
  const dist = (p: string) => import(pathToFileURL(path.join(root, 'dist', 'src', p)).href);
  const cfg = await dist('config/index.js');
  const mem = await dist('memory/index.js');
  return { openMemorySystem: mem.openMemorySystem, ConfigRegistry: cfg.ConfigRegistry, coreConfigDefaults: cfg.coreConfigDefaults, ManualScheduler: mem.ManualScheduler };
}

/** `lifecycle.replay` against one build's modules. */
async function replay(b: Build, conv: Conversation): Promise<{ memory: Memory; scheduler: InstanceType<Build['ManualScheduler']>; close(): Promise<void> }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'rank-compare-'));
  const config = new b.ConfigRegistry({ dbPath: path.join(home, 'config.db'), env: {}, logger: { info() {}, warn() {}, error() {} } });
  config.open();
  config.register(b.coreConfigDefaults());
  const scheduler = new b.ManualScheduler(conv.turns[0].sessionTime - 3_600_000);
  const quiet = { debug() {}, info() {}, warn() {}, error: (m: string) => console.error(`[memory] ${m}`) };
  const memory = await b.openMemorySystem({ homeDir: home, config, log: quiet, scheduler, now: scheduler.now });
  memory.startHeartbeats();
  for (const t of conv.turns) {
    const at = t.sessionTime + t.index * TURN_GAP_MS;
    if (at > scheduler.now()) await scheduler.advance(at - scheduler.now());
    // Seeded ids (the bench's are random, and ties at equal score and time fall to the id): both builds replay the same memory.
    memory.context.append({ id: `e${t.session}-${t.index}-${t.diaId}`, kind: 'user', source: 'locomo', channel: 'locomo', sessionId: `${conv.id}:S${t.session}`, input: t.text, response: '', refs: [t.diaId], speaker: { id: t.speaker, name: t.speaker } });
    await memory.context.prune(t.text);
  }
  return {
    memory,
    scheduler,
    close: async () => {
      await memory.close();
      config.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

const key = (h: RecallHit) => `${h.tier}|${h.refs.join(',')}|${h.createdAt}|${Math.round(h.score * 1e9)}`;

async function main(): Promise<void> {
  const [ra, rb] = [path.resolve(process.argv[2] ?? ''), path.resolve(process.argv[3] ?? '')];
  const di = process.argv.indexOf('--data');
  const li = process.argv.indexOf('--limit');
  const convs = loadLocomo(di >= 0 ? process.argv[di + 1] : '/work/shared/bench/locomo-dev.json').slice(0, li >= 0 ? Number(process.argv[li + 1]) : undefined);
  const [a, b] = [await load(ra), await load(rb)];
  let same = 0;
  let tiesOnly = 0;
  const differ: string[] = [];
  let maxDiff = 0;
  for (const conv of convs) {
    const [ma, mb] = [await replay(a, conv), await replay(b, conv)];
    for (const wait of [0, DAY_MS, 364 * DAY_MS]) {
      if (wait) for (const m of [ma, mb]) await m.scheduler.advance(wait);
      for (const rank of RANKS) {
        for (const q of conv.questions) {
          const [ha, hb] = [await ma.memory.recall.search(q.question, { k: 50, rank }), await mb.memory.recall.search(q.question, { k: 50, rank })];
          const [ka, kb] = [ha.map(key), hb.map(key)];
          for (let i = 0; i < Math.min(ha.length, hb.length); i++) maxDiff = Math.max(maxDiff, Math.abs(ha[i].score - hb[i].score));
          if (ka.join('\n') === kb.join('\n')) same++;
          else if ([...ka].sort().join('\n') === [...kb].sort().join('\n') && ha.every((h, i) => Math.round(h.score * 1e9) === Math.round(hb[i].score * 1e9))) tiesOnly++;
          else differ.push(`${conv.id} +${wait / DAY_MS}d ${JSON.stringify(rank)}: ${q.question}`);
        }
      }
    }
    await ma.close();
    await mb.close();
    console.error(`${conv.id}: ${same} same, ${tiesOnly} tie order only, ${differ.length} differ so far`);
  }
  console.log(`${ra} vs ${rb}: ${same + tiesOnly + differ.length} rankings (${convs.length} conversations × 3 stages × ${RANKS.length} knob sets × their questions, top 50): ${same} identical (tier, refs, time, score to 1e-9, order), ${tiesOnly} identical but for the order of hits tied at the same score, ${differ.length} differ; largest score difference at equal rank ${maxDiff.toExponential(2)}`);
  for (const d of differ.slice(0, 20)) console.log(`  differs: ${d}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
