/**
 * Memory control (decision 0070) on the composition the daemon runs (`openMemorySystem`, real
 * SQLite files, session logs): what the exclusion gate costs every turn — a turn's two context
 * appends plus the rule distiller's commit, with the gate on, against the same composition with
 * memory control down (its file cannot open: the gate is bypassed) — and what a person waits for:
 * a forget preview and a forget of one turn, an exclusion and a restore, in a memory of 3,000
 * turns (context window, documents, archive), beside a plain recall search of the same words.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchRow } from './run.js';
import { ConfigRegistry, coreConfigDefaults } from '../src/config/index.js';
import { openMemorySystem, ManualScheduler, type MemorySystem } from '../src/memory/index.js';
import { SessionStore } from '../src/sessions/index.js';
import { percentile as pct, rng } from './stats.js';

const TURNS = Number(process.env.TURNS ?? 3000);
const round = (x: number) => Math.round(x * 1000) / 1000;
const WORDS = ['weather', 'lunch', 'train', 'garden', 'music', 'book', 'coffee', 'holiday', 'Berlin', 'Paris', 'cat', 'bike', 'work', 'meeting', '杭州', '上海', '咖啡', '音乐'];

async function setup(root: string, name: string, controlDown: boolean) {
  const home = path.join(root, name);
  fs.mkdirSync(home, { recursive: true });
  // A directory where the file should be: memory-control.db cannot open and the tiers run ungated.
  if (controlDown) fs.mkdirSync(path.join(home, 'memory-control.db'));
  const config = new ConfigRegistry({ dbPath: path.join(home, 'config.db'), env: {}, logger: { info() {}, warn() {}, error() {} } as never });
  config.open();
  config.register(coreConfigDefaults());
  const clock = { t: Date.UTC(2026, 0, 1) };
  const sessions = new SessionStore({ dir: path.join(home, 'sessions'), now: () => clock.t, logger: { warn() {} } });
  await sessions.open();
  const mem = await openMemorySystem({ homeDir: home, config, now: () => clock.t, sessions, scheduler: new ManualScheduler(clock.t) });
  await sessions.create({ channel: 'webui', id: 'webui:b' });
  const r = rng(7);
  const say = () => Array.from({ length: 12 }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  const turn = async (i: number): Promise<{ ms: number; turnId: string }> => {
    clock.t += 60_000;
    const { turnId } = sessions.nextTurn('webui:b');
    const input = `${say()} number ${i}`;
    await sessions.append('webui:b', { turnId, kind: 'user', text: input });
    await sessions.append('webui:b', { turnId, kind: 'assistant', text: say() });
    const t0 = performance.now();
    const base = { source: 'webui', channel: 'webui', sessionId: 'webui:b', refs: [turnId] };
    mem.context.append({ ...base, kind: 'user', input, response: '' });
    mem.context.append({ ...base, kind: 'agent', input: '', response: say() });
    mem.graph.commit([{ subject: 'user', predicate: 'likes', object: WORDS[i % WORDS.length], refs: [turnId] }]);
    return { ms: performance.now() - t0, turnId };
  };
  return { mem, sessions, config, clock, turn };
}

async function close(x: { mem: MemorySystem; sessions: SessionStore; config: ConfigRegistry }) {
  await x.mem.close();
  await x.sessions.close();
  x.config.close();
}

export async function run(): Promise<BenchRow[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-bench-control-'));
  try {
    // Ingest with and without the gate, interleaved so both see the same machine load.
    const on = await setup(root, 'on', false);
    const off = await setup(root, 'off', true);
    if (!on.mem.status().control || off.mem.status().control) throw new Error('the gate is not where the bench expects it');
    const gated: number[] = [];
    const ungated: number[] = [];
    const ids: string[] = [];
    for (let i = 0; i < TURNS; i++) {
      const a = await on.turn(i);
      gated.push(a.ms);
      ids.push(a.turnId);
      ungated.push((await off.turn(i)).ms);
      if (i % 200 === 199) {
        await on.mem.context.prune(WORDS[i % WORDS.length]);
        await off.mem.context.prune(WORDS[i % WORDS.length]);
      }
    }
    await close(off);
    // What the history costs on disk (rows before/after of every graph write), per turn.
    const dbBytes = ['', '-wal'].reduce((n, x) => n + (fs.existsSync(path.join(root, 'on', `memory-control.db${x}`)) ? fs.statSync(path.join(root, 'on', `memory-control.db${x}`)).size : 0), 0);
    const graphBytes = ['', '-wal'].reduce((n, x) => n + (fs.existsSync(path.join(root, 'on', `graph.db${x}`)) ? fs.statSync(path.join(root, 'on', `graph.db${x}`)).size : 0), 0);
    // Half the documents go to the archive (as the archive loop would move them).
    const docs = on.mem.docs.list({ limit: 100_000 });
    on.mem.archive.putMany(docs.slice(0, Math.floor(docs.length / 2)));
    on.mem.docs.removeMany(docs.slice(0, Math.floor(docs.length / 2)).map((d) => d.id));

    const search: number[] = [];
    const preview: number[] = [];
    const forget: number[] = [];
    const exclude: number[] = [];
    const restore: number[] = [];
    for (let k = 0; k < 15; k++) {
      const target = ids[100 + k * 150];
      const q = `number ${ids.indexOf(target)}`;
      let t0 = performance.now();
      await on.mem.recall.search(q, { k: 10 });
      search.push(performance.now() - t0);
      t0 = performance.now();
      await on.mem.control.exclude([target]);
      exclude.push(performance.now() - t0);
      t0 = performance.now();
      await on.mem.control.restore([target]);
      restore.push(performance.now() - t0);
      t0 = performance.now();
      const plan = await on.mem.control.forgetPreview({ query: q });
      preview.push(performance.now() - t0);
      t0 = performance.now();
      await on.mem.control.forget({ turnIds: plan.turns.map((x) => x.turnId), relationIds: plan.facts.map((f) => f.id) });
      forget.push(performance.now() - t0);
    }
    await close(on);
    const row = (name: string, xs: number[], baseline?: string): BenchRow => ({ name, unit: 'ms', p50: round(pct(xs, 50)), p95: round(pct(xs, 95)), n: xs.length, baseline });
    const ingestBase = 'memory control: a turn into the window + graph, control down (no gate)';
    const searchBase = `memory control: recall search in ${TURNS} turns (baseline)`;
    return [
      row(ingestBase, ungated),
      row('memory control: a turn into the window + graph, control on (exclusion/tombstone gate + history of the graph write)', gated, ingestBase),
      row(searchBase, search),
      row(`memory control: forget preview (every tier and log scanned) in ${TURNS} turns`, preview, searchBase),
      row('memory control: forget of one turn (tiers, graph, session log rewrite, history)', forget, searchBase),
      row('memory control: exclude one turn', exclude, searchBase),
      row('memory control: restore one turn', restore, searchBase),
      { name: `memory control: memory-control.db per turn after ${TURNS} turns (history)`, unit: 'KiB', p50: round(dbBytes / TURNS / 1024), p95: round(dbBytes / TURNS / 1024), n: 1, baseline: `graph.db: ${round(graphBytes / TURNS / 1024)} KiB per turn` },
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
