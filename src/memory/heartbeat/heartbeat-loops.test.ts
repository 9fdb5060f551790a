import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConfigReader, ConfigValue, ContextEvent } from '../../spec/index.js';
import type { FakeLlm } from '../../../test/fixtures/fake-llm/index.js';
import { startProviderLlm, type ProviderLlm } from '../../../test/fixtures/provider-llm.js';
import { GraphDB } from '../graph/index.js';
import type { DistillableDoc } from '../distill/index.js';
import { HeartbeatLoops, type LoopName } from './heartbeat-loops.js';
import { ManualScheduler } from './scheduler.js';
import { decideMerge } from './merge-decider.js';
import { reviewRelations } from './relation-reviewer.js';

const MIN = 60_000;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-heartbeat-'));
// LLM behaviour comes from the scripted fake server over HTTP, through a real provider manager.
let provider: ProviderLlm;
let fake: FakeLlm;
before(async () => {
  provider = await startProviderLlm();
  fake = provider.fake;
});
after(async () => {
  await provider?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

class FakeConfig implements ConfigReader {
  private listeners: ((k: string, v: ConfigValue) => void)[] = [];
  constructor(private values: Record<string, ConfigValue> = {}) {}
  get<T extends ConfigValue = ConfigValue>(key: string): T {
    if (!(key in this.values)) throw new Error(`unknown key ${key}`);
    return this.values[key] as T;
  }
  set(key: string, v: ConfigValue): void {
    this.values[key] = v;
    for (const l of this.listeners) l(key, v);
  }
  onChange(l: (k: string, v: ConfigValue) => void): () => void {
    this.listeners.push(l);
    return () => (this.listeners = this.listeners.filter((x) => x !== l));
  }
}

let n = 0;
function graph(): GraphDB {
  const g = new GraphDB({ path: path.join(root, `g${n++}`, 'graph.db') });
  g.open();
  return g;
}

function counting(loops: HeartbeatLoops): Record<string, number> {
  const runs: Record<string, number> = {};
  const orig = loops.runOnce.bind(loops);
  loops.runOnce = (name: LoopName) => {
    runs[name] = (runs[name] ?? 0) + 1;
    return orig(name);
  };
  return runs;
}

test('each loop ticks on its own configured interval with an injected scheduler; stop cancels all', async () => {
  const sched = new ManualScheduler();
  const config = new FakeConfig({ 'core.memory.distill_interval': '30m', 'core.memory.archive_interval': '60m', 'core.memory.merge_interval': '2h', 'core.memory.review_interval': '120m', 'core.memory.rule_distill_interval': '10m' });
  const g = graph();
  const events: ContextEvent[] = [];
  let prunes = 0;
  const loops = new HeartbeatLoops({
    config,
    scheduler: sched,
    now: sched.now,
    graph: g,
    context: { prune: async () => void prunes++, events: () => events },
    docs: { findCold: () => [], archive: () => undefined },
    rules: { tick: async () => undefined },
  });
  const runs = counting(loops);
  loops.start();
  loops.start(); // idempotent
  assert.equal(sched.size, 5);
  await sched.advance(120 * MIN);
  assert.deepEqual(runs, { rules: 12, distill: 4, archive: 2, merge: 1, review: 1 });
  assert.equal(prunes, 4);
  // hot interval change reschedules only that loop
  config.set('core.memory.distill_interval', '10m');
  await sched.advance(30 * MIN);
  assert.equal(runs.distill, 7);
  loops.stop();
  loops.stop();
  assert.equal(sched.size, 0);
  await sched.advance(600 * MIN);
  assert.equal(runs.distill, 7);
  g.close();
});

test('an invalid interval falls back to the default with a warning; a failing loop is logged and keeps running', async () => {
  const sched = new ManualScheduler();
  const warns: string[] = [];
  const errors: string[] = [];
  const log = { debug() {}, info() {}, warn: (m: string) => warns.push(m), error: (m: string) => errors.push(m) };
  let ticks = 0;
  const loops = new HeartbeatLoops({
    config: new FakeConfig({ 'core.memory.rule_distill_interval': 'soon' }),
    scheduler: sched,
    log,
    rules: {
      tick: async () => {
        ticks++;
        throw new Error('disk full');
      },
    },
  });
  assert.equal(loops.intervalOf('rules'), 10 * MIN);
  assert.match(warns[0], /invalid core\.memory\.rule_distill_interval/);
  loops.start();
  await sched.advance(20 * MIN);
  assert.equal(ticks, 2);
  assert.match(errors[0], /heartbeat "rules" failed: disk full/);
  assert.equal(loops.lastRun.rules?.ok, false);
  loops.stop();
});

test('archive: cold docs → triples → graph, then moved to the archive in one call; params from config', async () => {
  const g = graph();
  const docs: DistillableDoc[] = [
    { id: 'd1', text: '我住在杭州。' },
    { id: 'd2', text: 'nothing personal here' },
    { id: 'd3', text: 'I live in the cloud, said the assistant', eventKind: 'agent' },
  ];
  let asked: unknown;
  const archived: string[][] = [];
  const loops = new HeartbeatLoops({
    config: new FakeConfig({ 'core.memory.cold_after_hours': 48, 'core.memory.cold_max_access': 1, 'core.memory.archive_batch': 50 }),
    graph: g,
    now: () => 1_000,
    docs: {
      findCold: (o) => ((asked = o), docs),
      archive: (ids) => archived.push(ids),
    },
  });
  assert.deepEqual(await loops.archiveColdDocs(), { docs: 3, triples: 1 }, "the assistant's own 'I' is not the user");
  assert.deepEqual(asked, { olderThanMs: 48 * 3_600_000, maxAccess: 1, now: 1_000, limit: 50 });
  assert.deepEqual(archived, [['d1', 'd2', 'd3']], 'every distilled document moves on (none is deleted)');
  assert.equal(g.relations().items[0].object, '杭州');
  assert.deepEqual(g.relations().items[0].refs, ['d1']);
  g.close();
});

test('merge via the consolidation input: candidates injected once, the answer applied', async () => {
  const g = graph();
  g.commit([
    { subject: 'Zhang Sanfeng', predicate: 'teaches', object: 'Tai Chi' },
    { subject: 'Zhang San-feng', predicate: 'lives_in', object: 'Wudang' },
    { subject: 'Unrelated', predicate: 'is', object: 'Alone' },
  ]);
  const injected: { text: string; meta?: Record<string, unknown> }[] = [];
  const loops = new HeartbeatLoops({ config: new FakeConfig(), graph: g, injectConsolidation: (text, meta) => injected.push({ text, meta }) });
  const r = await loops.detectEntityMerge();
  assert.deepEqual({ c: r.candidates, via: r.via }, { c: 1, via: 'consolidation' });
  assert.match(injected[0].text, /Zhang Sanfeng/);
  assert.equal(injected[0].meta?.kind, 'memory_merge');
  // pending: not injected again
  assert.equal((await loops.detectEntityMerge()).via, 'none');
  const out = loops.onConsolidationAnswer({ text: '', toolCalls: [{ name: 'memory_merge', arguments: '{"keep":"Zhang Sanfeng","merge":"Zhang San-feng"}' }] }, injected[0].meta);
  assert.deepEqual(out.merged, [{ keep: 'Zhang Sanfeng', drop: 'Zhang San-feng' }]);
  assert.deepEqual(g.relations({ entity: 'Zhang Sanfeng' }).total, 2);
  assert.equal((await loops.detectEntityMerge()).candidates, 0);
  g.close();
});

test('merge via the consolidation input: the kernel ticket’s final answer is applied by itself', async () => {
  const g = graph();
  g.commit([
    { subject: 'Li Lei', predicate: 'likes', object: 'tea' },
    { subject: 'Li-Lei', predicate: 'likes', object: 'go' },
  ]);
  let resolve!: (v: { text: string; status: string }) => void;
  const done = new Promise<{ text: string; status: string }>((r) => (resolve = r));
  const loops = new HeartbeatLoops({ config: new FakeConfig(), graph: g, injectConsolidation: () => ({ done }) });
  assert.equal((await loops.detectEntityMerge()).via, 'consolidation');
  assert.ok(g.getEntity('Li-Lei'));
  resolve({ text: '{"decisions":[{"a":"Li Lei","b":"Li-Lei","same":true,"keep":"Li Lei"}]}', status: 'ok' });
  await done;
  await new Promise((r) => setImmediate(r));
  assert.equal(g.getEntity('Li-Lei'), undefined);
  assert.equal(g.relations({ entity: 'Li Lei' }).total, 2);
  g.close();
});

test('merge through the fake LLM over HTTP: same pair merged, distinct pair remembered', async () => {
  const g = graph();
  g.commit([
    { subject: 'Zhang Sanfeng', predicate: 'teaches', object: 'Tai Chi' },
    { subject: 'Zhang San-feng', predicate: 'lives_in', object: 'Wudang' },
    { subject: 'Project Apollo 11', predicate: 'is', object: 'mission' },
    { subject: 'Project Apollo 12', predicate: 'is', object: 'mission' },
  ]);
  const llm = provider.llm;
  const loops = new HeartbeatLoops({ config: new FakeConfig({ 'core.memory.merge_threshold': 0.75 }), graph: g, llm });
  const candidates = loops.mergeCandidates();
  assert.equal(candidates.length, 2);
  fake.enqueue({
    text: 'Here you go:\n```json\n{"decisions":[{"a":"Zhang Sanfeng","b":"Zhang San-feng","same":true,"keep":"Zhang Sanfeng"},{"a":"Project Apollo 11","b":"Project Apollo 12","same":false}]}\n```',
  });
  const before = fake.requests.length;
  const r = await loops.detectEntityMerge();
  assert.equal(r.via, 'direct');
  assert.deepEqual(r.outcome?.merged, [{ keep: 'Zhang Sanfeng', drop: 'Zhang San-feng' }]);
  assert.equal(r.outcome?.distinct.length, 1);
  assert.equal(fake.requests.length, before + 1);
  assert.match(JSON.stringify(fake.requests.at(-1)?.body.messages), /Project Apollo 11/);
  assert.equal(g.getEntity('Zhang San-feng'), undefined);
  assert.ok(g.getEntity('Project Apollo 12'));
  // decided pairs are not asked again
  assert.deepEqual(loops.mergeCandidates(), []);
  // a malformed answer changes nothing
  g.commit([{ subject: 'Alexander Hamilton', predicate: 'x', object: 'y' }, { subject: 'Alexandr Hamilton', predicate: 'x', object: 'z' }]);
  fake.enqueue({ text: 'I think they might be the same {' });
  const bad = await decideMerge(loops.mergeCandidates(), llm, g);
  assert.deepEqual(bad, { merged: [], distinct: [] });
  assert.ok(g.getEntity('Alexandr Hamilton'));
  g.close();
});

test('review through the fake LLM over HTTP: keep, delete, correct against the source sentence', async () => {
  const g = graph();
  g.commit([
    { subject: 'user', predicate: 'lives_in', object: 'Paris', sentence: 'I live in Paris.' },
    { subject: 'user', predicate: 'likes', object: 'rain', sentence: 'I hate rain.' },
    { subject: 'user', predicate: 'works_as', object: 'nurce', sentence: 'I work as a nurse.' },
    { subject: 'user', predicate: 'knows', object: 'Ann' },
  ]);
  const ids = Object.fromEntries(g.relations().items.map((r) => [r.object, r.id]));
  const llm = provider.llm;
  fake.enqueue({
    text: JSON.stringify({
      reviews: [
        { id: ids.Paris, action: 'keep', confidence: 0.95 },
        { id: ids.rain, action: 'delete' },
        { id: ids.nurce, action: 'correct', object: 'nurse' },
      ],
    }),
  });
  const r = await reviewRelations(g, llm);
  assert.deepEqual(r, { kept: 1, deleted: 1, corrected: 1, unanswered: 0 });
  const sent = JSON.stringify(fake.requests.at(-1)?.body.messages);
  assert.match(sent, /I hate rain/);
  assert.doesNotMatch(sent, /Ann/, 'relations without a sentence are not reviewed');
  const facts = g.relations().items.map((x) => `${x.predicate}:${x.object}:${x.confidence}`).sort();
  assert.deepEqual(facts, ['knows:Ann:0.8', 'lives_in:Paris:0.95', 'works_as:nurse:0.8']);
  assert.equal(g.stats().unreviewed, 0);
  // nothing left to review → no LLM call
  const count = fake.requests.length;
  assert.deepEqual(await reviewRelations(g, llm), { kept: 0, deleted: 0, corrected: 0, unanswered: 0 });
  assert.equal(fake.requests.length, count);
  // malformed JSON: nothing applied, relations stay unreviewed
  g.commit([{ subject: 'user', predicate: 'likes', object: 'tea', sentence: 'I like tea' }]);
  fake.enqueue({ text: 'sure, keep it' });
  assert.deepEqual(await reviewRelations(g, llm), { kept: 0, deleted: 0, corrected: 0, unanswered: 1 });
  assert.equal(g.stats().unreviewed, 1);
  g.close();
});

test('nudge runs a scheduled loop once after the delay, coalesced; a stopped or absent loop is not nudged', async () => {
  const sched = new ManualScheduler();
  const config = new FakeConfig({ 'core.memory.rule_distill_interval': '10m' });
  let ticks = 0;
  const loops = new HeartbeatLoops({ config, scheduler: sched, now: sched.now, rules: { tick: async () => void ticks++ } });
  loops.nudge('rules', 3_000);
  await sched.advance(5_000);
  assert.equal(ticks, 0, 'not started: no nudge');
  loops.start();
  loops.nudge('rules', 3_000);
  loops.nudge('rules', 3_000);
  loops.nudge('distill', 3_000); // no context: not an enabled loop
  await sched.advance(2_999);
  assert.equal(ticks, 0);
  await sched.advance(1);
  assert.equal(ticks, 1, 'two nudges, one run');
  await sched.advance(3_000);
  assert.equal(ticks, 1, 'a nudge runs once');
  loops.nudge('rules', 3_000);
  await sched.advance(3_000);
  assert.equal(ticks, 2, 'a nudge after the last one ran is a new run');
  loops.nudge('rules', 3_000);
  loops.stop();
  assert.equal(sched.size, 0, 'stop cancels a pending nudge');
  await sched.advance(10 * MIN);
  assert.equal(ticks, 2);
});
