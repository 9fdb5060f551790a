/**
 * The LoCoMo benchmark's memory lifecycle (K-7): each conversation replayed through the memory
 * composition the daemon runs (`openMemorySystem`, default config from a real config.db, rule
 * distiller, no LLM), at its real session dates on a simulated clock where every heartbeat loop
 * runs at its default interval; questions asked through the product's recall at a simulated "now".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ConfigRegistry, coreConfigDefaults } from '../../src/config/index.js';
import { ManualScheduler, openMemorySystem, type MemoryCompositionOptions, type MemorySystem, type RankOptions } from '../../src/memory/index.js';
import type { PluginLogger, RecallHit } from '../../src/spec/index.js';
import type { Conversation } from './dataset.js';
import type { RankedItem } from './metrics.js';

/** Simulated time between two turns of a session (the dataset gives only the session's start). */
export const TURN_GAP_MS = 30_000;
export const DAY_MS = 86_400_000;

const quiet: PluginLogger = { debug() {}, info() {}, warn() {}, error: (m) => console.error(`[memory] ${m}`) };

/**
 * The options the bench gives the memory composition: exactly what the daemon gives it minus the
 * LLM and the session logs (the bench has neither), plus the simulated clock. No ranking or tier
 * override exists in `MemoryCompositionOptions`; `test/locomo-lifecycle.test.ts` checks this.
 */
export function memoryOptionsFor(homeDir: string, config: ConfigRegistry, scheduler: ManualScheduler, log: PluginLogger = quiet): MemoryCompositionOptions {
  return { homeDir, config, log, scheduler, now: scheduler.now };
}

/** A config registry with every key at its default, in the conversation's own data folder. */
export function defaultConfig(homeDir: string): ConfigRegistry {
  const config = new ConfigRegistry({ dbPath: path.join(homeDir, 'config.db'), env: {}, logger: { info() {}, warn() {}, error() {} } as never });
  config.open();
  config.register(coreConfigDefaults());
  return config;
}

/** One conversation's memory on its simulated clock. */
export interface ConversationMemory {
  conv: Conversation;
  home: string;
  config: ConfigRegistry;
  scheduler: ManualScheduler;
  memory: MemorySystem;
  /** Wall time spent in the live ingest path (append + prune), ms. */
  ingestMs: number;
  /** Wall time spent in heartbeat loops while the clock moved, ms. */
  heartbeatMs: number;
  close(): Promise<void>;
}

/**
 * Replays a conversation: the clock moves to each session's date (heartbeats run on the way), and
 * each turn goes through the live ingest path the kernel's turn runner takes — `context.append`
 * (who said it as the speaker field) then `context.prune(text)`. Ends right after the last turn.
 */
export async function replay(conv: Conversation, onHome?: (home: string) => void): Promise<ConversationMemory> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'locomo-life-'));
  onHome?.(home);
  const config = defaultConfig(home);
  const scheduler = new ManualScheduler(conv.turns[0].sessionTime - 3_600_000);
  const memory = await openMemorySystem(memoryOptionsFor(home, config, scheduler));
  memory.startHeartbeats();
  let ingestMs = 0;
  let heartbeatMs = 0;
  const moveTo = async (t: number) => {
    if (t <= scheduler.now()) return;
    const h0 = performance.now();
    await scheduler.advance(t - scheduler.now());
    heartbeatMs += performance.now() - h0;
  };
  for (const t of conv.turns) {
    await moveTo(t.sessionTime + t.index * TURN_GAP_MS);
    const t0 = performance.now();
    memory.context.append({
      kind: 'user',
      source: 'locomo',
      channel: 'locomo',
      sessionId: `${conv.id}:S${t.session}`,
      input: t.text,
      response: '',
      refs: [t.diaId],
      speaker: { id: t.speaker, name: t.speaker },
    });
    await memory.context.prune(t.text);
    ingestMs += performance.now() - t0;
  }
  const cm: ConversationMemory = {
    conv,
    home,
    config,
    scheduler,
    memory,
    ingestMs,
    heartbeatMs,
    close: async () => {
      await memory.close();
      config.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
  return cm;
}

/** Lets `ms` of simulated time pass (every heartbeat due runs). */
export async function age(cm: ConversationMemory, ms: number): Promise<void> {
  const h0 = performance.now();
  await cm.scheduler.advance(ms);
  cm.heartbeatMs += performance.now() - h0;
}

/** A question asked the way the product recalls: one search over every tier, default ranking. */
export async function ask(memory: MemorySystem, question: string, k = 50, rank?: Partial<RankOptions>): Promise<{ items: RankedItem[]; hits: RecallHit[] }> {
  const hits = await memory.recall.search(question, rank ? { k, rank } : { k });
  return { hits, items: hits.map((h) => ({ refs: h.refs, text: h.text })) };
}

/** Where the documents of a memory live now. */
export function tierSizes(m: MemorySystem): { context: number; documents: number; archive: number; facts: number } {
  return { context: m.context.events().length, documents: m.docs.size, archive: m.archive.size, facts: m.graph.stats().relations };
}
