import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { ContextEvent, NewContextEvent } from '../../spec/memory.js';
import { testConfig, testLog } from '../embedder/__fixtures__/test-config.js';
import { EmbedderService } from '../embedder/index.js';
import { RelevanceContext, textForVector, type ContextTimers } from './index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'context-test-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const embedder = new EmbedderService({ config: testConfig() });
let n = 0;
const home = (): string => fs.mkdtempSync(path.join(root, `h${n++}-`));

/** Manual timers: nothing fires until the test says so. */
function manualTimers(): ContextTimers & { fire(): void; pending(): number } {
  let fns: (() => void)[] = [];
  return {
    setTimeout: (fn) => {
      fns.push(fn);
      return fns.length;
    },
    clearTimeout: () => {
      fns = [];
    },
    fire() {
      const f = fns;
      fns = [];
      for (const fn of f) fn();
    },
    pending: () => fns.length,
  };
}

function ev(input: string, extra: Partial<NewContextEvent> = {}): NewContextEvent {
  return { kind: 'user', source: 'webui', channel: 'web', sessionId: 's', input, response: '', ...extra };
}

test('textForVector: three branches, noMemory skipped, cleaners applied, whitespace normalised', () => {
  const cleaners = (tool: string) => (tool === 'qq' ? (s: string) => s.replace(/<tool_call>.*?<\/tool_call>/g, '') : undefined);
  assert.equal(textForVector({ kind: 'user', input: ' hello \n world ', response: 'ignored' }), 'hello world');
  assert.equal(
    textForVector(
      {
        kind: 'agent',
        input: 'ignored',
        response: 'done',
        toolOutputs: [
          { tool: 'qq', text: 'sent <tool_call>{"x":1}</tool_call> message' },
          { tool: 'secret', text: 'raw bytes', noMemory: true },
          { tool: 'search', text: 'result   text' },
        ],
      },
      cleaners,
    ),
    'done sent message result text',
  );
  assert.equal(textForVector({ kind: 'cold_storage', input: 'old question', response: 'old answer' }), 'old question old answer');
  const errs: string[] = [];
  const t = textForVector({ kind: 'agent', input: '', response: 'r', toolOutputs: [{ tool: 'bad', text: 'kept raw' }] }, () => () => {
    throw new Error('boom');
  }, (tool) => errs.push(tool));
  assert.equal(t, 'r kept raw');
  assert.deepEqual(errs, ['bad']);
});

test('append keeps time order; cleaners map is honoured in the vectors', async () => {
  const ctx = new RelevanceContext({ home: home(), embedder, topK: 40, cleaners: { qq: (s) => s.replace('NOISE', '') }, timers: manualTimers() });
  await ctx.start();
  const a = ctx.append(ev('second', { timestamp: 2000 }));
  ctx.append(ev('first', { timestamp: 1000 }));
  ctx.append({ kind: 'agent', source: 'webui', channel: 'web', sessionId: 's', input: '', response: 'reply', timestamp: 3000, toolOutputs: [{ tool: 'qq', text: 'NOISE payload' }, { tool: 'x', text: 'hidden', noMemory: true }] });
  assert.deepEqual(ctx.events().map((e) => e.input || e.response), ['first', 'second', 'reply']);
  assert.equal(ctx.vectorText(ctx.events()[2].id), 'reply payload');
  assert.equal(a.timestamp, 2000);
  assert.ok(a.id.length > 0);
  assert.throws(() => ctx.append({ ...ev('x'), kind: 'bogus' as never }), /kind/);
  assert.throws(() => ctx.append(ev('x', { timestamp: Number.NaN })), /timestamp/);
});

test('prune keeps the 10 newest plus the topK−10 most relevant, re-sorted by time; archives the rest with original timestamps', async () => {
  const archived: ContextEvent[] = [];
  const ctx = new RelevanceContext({ home: home(), embedder, topK: 12, archive: (evs) => void archived.push(...evs), timers: manualTimers() });
  await ctx.start();
  const topics = ['pottery class with clay', 'camping trip at the beach', 'guitar lessons', 'adoption agencies research'];
  for (let i = 0; i < 30; i++) ctx.append(ev(`${topics[i % 4]} number ${i}`, { timestamp: 1_000 + i, source: i === 1 ? 'agentcli' : i === 2 ? 'terminal' : 'webui' }));
  await ctx.prune('tell me about the pottery clay class');
  const kept = ctx.events();
  assert.equal(kept.length, 12);
  // The 10 newest (timestamps 1020..1029) are always there, whatever their relevance.
  for (let t = 1020; t < 1030; t++) assert.ok(kept.some((e) => e.timestamp === t), `newest ${t} kept`);
  // The two extra slots go to the most relevant older events: pottery ones (i % 4 === 0).
  const older = kept.filter((e) => e.timestamp < 1020);
  assert.equal(older.length, 2);
  assert.ok(older.every((e) => e.input.startsWith('pottery')), older.map((e) => e.input).join(' | '));
  assert.deepEqual(kept.map((e) => e.timestamp), [...kept.map((e) => e.timestamp)].sort((a, b) => a - b), 'time order');
  // Archived: all pruned except agentcli / terminal sources, original timestamps intact.
  assert.equal(archived.length, 30 - 12 - 2);
  assert.ok(!archived.some((e) => e.source === 'agentcli' || e.source === 'terminal'));
  assert.ok(archived.some((e) => e.timestamp === 1_000 + 3 && e.input === 'adoption agencies research number 3'));
});

test('prune with topK below 10 keeps exactly the 10 newest (lower bound 0 for relevance slots); no prune at or under topK', async () => {
  const archived: ContextEvent[] = [];
  const ctx = new RelevanceContext({ home: home(), embedder, topK: 5, archive: (evs) => void archived.push(...evs), timers: manualTimers() });
  await ctx.start();
  for (let i = 0; i < 5; i++) ctx.append(ev(`e${i}`, { timestamp: i }));
  await ctx.prune('e1');
  assert.equal(ctx.events().length, 5, 'count ≤ topK: untouched');
  for (let i = 5; i < 15; i++) ctx.append(ev(`e${i}`, { timestamp: i }));
  await ctx.prune('e1 e2 e3');
  assert.deepEqual(ctx.events().map((e) => e.timestamp), [5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
  assert.deepEqual(archived.map((e) => e.timestamp), [0, 1, 2, 3, 4]);
});

test('a failing archive keeps the pruned events in the window (nothing lost)', async () => {
  const log = testLog();
  const ctx = new RelevanceContext({ home: home(), embedder, topK: 10, log, archive: () => Promise.reject(new Error('disk full')), timers: manualTimers() });
  await ctx.start();
  for (let i = 0; i < 12; i++) ctx.append(ev(`e${i}`, { timestamp: i }));
  await ctx.prune('x');
  assert.equal(ctx.events().length, 12);
  assert.ok(log.lines.some((l) => /archiving 2 pruned events failed \(disk full\)/.test(l)));
});

test('persistence: debounced save fires once per window; flush writes now; reload restores events', async () => {
  const h = home();
  const timers = manualTimers();
  const config = testConfig({ 'core.context.top_k': 40, 'core.context.save_debounce_ms': 5000 });
  const ctx = new RelevanceContext({ home: h, embedder, config, timers });
  await ctx.start();
  ctx.append(ev('one', { timestamp: 1 }));
  ctx.append(ev('two', { timestamp: 2 }));
  assert.equal(timers.pending(), 1, 'one debounce timer for many appends');
  assert.equal(fs.existsSync(ctx.file), false, 'nothing written before the debounce');
  timers.fire();
  await ctx.flush();
  const saved = JSON.parse(fs.readFileSync(ctx.file, 'utf8')) as { version: number; events: ContextEvent[] };
  assert.equal(saved.version, 1);
  assert.deepEqual(saved.events.map((e) => e.input), ['one', 'two']);
  ctx.append(ev('three', { timestamp: 3 }));
  await ctx.stop(); // flush on shutdown, without waiting for the timer
  assert.equal(fs.readdirSync(h).filter((f) => f.includes('.tmp-')).length, 0, 'no temp files left');
  const again = new RelevanceContext({ home: h, embedder, config, timers: manualTimers() });
  await again.start();
  assert.deepEqual(again.events().map((e) => e.input), ['one', 'two', 'three']);
});

test('a corrupt context.json is kept aside with a clear log line and the window starts empty', async () => {
  const h = home();
  fs.writeFileSync(path.join(h, 'context.json'), '{"version":1,"events":[{"id":');
  const log = testLog();
  const ctx = new RelevanceContext({ home: h, embedder, log, clock: () => 42, timers: manualTimers() });
  await ctx.start();
  assert.equal(ctx.events().length, 0);
  assert.equal(fs.readFileSync(path.join(h, 'context.json.corrupt-42'), 'utf8'), '{"version":1,"events":[{"id":');
  assert.ok(log.lines.some((l) => /warn context: .*context\.json is corrupt \(invalid JSON.*kept aside as .*context\.json\.corrupt-42, starting with an empty context/.test(l)), log.lines.join('\n'));
  assert.deepEqual(ctx.setAside, { file: path.join(h, 'context.json.corrupt-42'), at: 42 });
  assert.equal(ctx.loadedFrom.replayAll, true, 'recovery replays every session log');
  // Invalid single events are left out, valid ones kept; the file as it was is copied aside and
  // recovery is told to replay every session log (decision 0250).
  const h2 = home();
  const withInvalid = JSON.stringify({ version: 1, events: [{ id: 'a', timestamp: 1, kind: 'user', source: 's', channel: 'c', sessionId: 'x', input: 'ok', response: '' }, { id: 'b' }] });
  fs.writeFileSync(path.join(h2, 'context.json'), withInvalid);
  const log2 = testLog();
  const ctx2 = new RelevanceContext({ home: h2, embedder, log: log2, clock: () => 43, timers: manualTimers() });
  await ctx2.start();
  assert.deepEqual(ctx2.events().map((e) => e.id), ['a']);
  assert.ok(log2.lines.some((l) => /1 invalid events in .*context\.json; the file as it was is kept as .*context\.json\.corrupt-43; every session log is replayed/.test(l)), log2.lines.join('\n'));
  assert.equal(fs.readFileSync(path.join(h2, 'context.json.corrupt-43'), 'utf8'), withInvalid);
  assert.equal(ctx2.loadedFrom.replayAll, true);
});

test('turn marks (the crash-recovery watermark) are saved with the events; a speaker is kept when given (absent: the owner); an id is never appended twice', async () => {
  const h = home();
  const ctx = new RelevanceContext({ home: h, embedder, topK: 40, timers: manualTimers(), clock: () => 500 });
  await ctx.start();
  assert.deepEqual(ctx.loadedFrom, { status: 'missing', marks: false, savedAt: undefined, replayAll: true });
  const u = ctx.append(ev('hi', { sessionId: 'webui:1', refs: ['webui:1#3'] }));
  assert.deepEqual(ctx.turnMark('webui:1'), { turn: 3, done: false });
  ctx.append({ kind: 'agent', source: 'webui', channel: 'web', sessionId: 'webui:1', input: 'hi', response: 'hello', refs: ['webui:1#3'] });
  assert.deepEqual(ctx.turnMark('webui:1'), { turn: 3, done: true });
  ctx.append(ev('from another session’s turn id', { sessionId: 'webui:2', refs: ['webui:1#9'] }));
  assert.equal(ctx.turnMark('webui:2'), undefined, 'a ref of another session is not a turn of this one');
  assert.equal(u.speaker, undefined, 'the owner is not named');
  assert.deepEqual(ctx.append(ev('named', { speaker: { id: 'qq:123', name: 'Anna' }, conversation: { kind: 'group', id: 'qq:group:9' } })).speaker, { id: 'qq:123', name: 'Anna' });
  assert.equal(ctx.append(ev('again', { id: u.id })), u, 'same id: the event present is returned');
  assert.equal(ctx.events().length, 4);
  await ctx.stop();
  const again = new RelevanceContext({ home: h, embedder, topK: 40, timers: manualTimers() });
  await again.start();
  assert.deepEqual(again.loadedFrom, { status: 'ok', marks: true, savedAt: 500, replayAll: false });
  assert.deepEqual(again.turnMark('webui:1'), { turn: 3, done: true });
  assert.deepEqual(again.events().find((e) => e.input === 'named')?.conversation, { kind: 'group', id: 'qq:group:9' });
  assert.equal(again.deleteByTurnIds(['webui:1#3']), 2, 'the forget seam removes both events of the turn');
  assert.equal(again.removeIds(['nope']), 0);
  await again.stop();
});

test('decision 0390: a turn has one message and one reply in memory — a second copy of either (a resumed turn whose message recovery replayed) is not appended, in the window or when another tier holds it', async () => {
  const held = new Set(['s#2/user']);
  const ctx = new RelevanceContext({ home: home(), embedder, timers: manualTimers(), held: (t, k) => held.has(`${t}/${k}`) });
  await ctx.start();
  const replayed = ctx.append(ev('my dentist is Dr. Okafor', { id: 'log:s:1', refs: ['s#1'], timestamp: 1000 }));
  assert.equal(ctx.append(ev('my dentist is Dr. Okafor', { refs: ['s#1'], timestamp: 5000 })), replayed, 'the copy stored first is returned');
  ctx.append(ev('', { kind: 'agent', response: 'Noted.', refs: ['s#1'] }));
  ctx.append(ev('', { kind: 'agent', response: 'Noted.', refs: ['s#1'] }));
  ctx.append(ev('already in the documents', { refs: ['s#2'] }));
  ctx.append(ev('a new turn', { refs: ['s#3'] }));
  assert.deepEqual(
    ctx.events().map((e) => [e.kind, e.refs?.[0]]),
    [
      ['user', 's#1'],
      ['agent', 's#1'],
      ['user', 's#3'],
    ],
  );
  await ctx.stop();
});
