import { test, after } from 'node:test';
import { slotText } from '../spec/index.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConfigRegistry, coreConfigDefaults } from '../config/index.js';
import type { PluginLogger } from '../spec/index.js';
import { MemorySystem } from './memory-system.js';
import { ManualScheduler } from './heartbeat/index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-memsys-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const call = { sessionId: 'webui:1', turnId: 'webui:1#2', callId: 'c', signal: new AbortController().signal };
let n = 0;

function setup(prepare?: (home: string) => void) {
  const home = path.join(root, `h${n++}`);
  fs.mkdirSync(home, { recursive: true });
  prepare?.(home);
  const config = new ConfigRegistry({ dbPath: path.join(home, 'config.db'), env: {}, logger: { info() {}, warn() {}, error() {} } as never });
  config.open();
  config.register(coreConfigDefaults());
  const errors: string[] = [];
  const log: PluginLogger = { debug() {}, info() {}, warn() {}, error: (m) => errors.push(m) };
  const scheduler = new ManualScheduler(Date.now());
  const mk = () => new MemorySystem({ homeDir: home, config, log, scheduler, people: config.people });
  return { home, config, errors, scheduler, mk, mem: mk() };
}

const GRAPH_TOOLS = ['memory_recall', 'memory_commit', 'memory_merge', 'memory_purge', 'memory_edit', 'memory_delete_entity', 'memory_introspect', 'person_query', 'person_set_trait', 'person_relate'];

test('assembled: tools, prompt slots, rule distillation into the graph and the 【记忆索引】, persistence across reopen', async () => {
  const { mem, mk, config } = setup();
  await mem.open();
  await mem.open(); // idempotent
  const names = mem.tools().map((t) => t.name);
  assert.deepEqual(names, [...GRAPH_TOOLS, 'doc_query', 'doc_commit', 'knowledge_search', 'knowledge_create', 'knowledge_list']);
  assert.deepEqual(Object.keys(mem.promptSlots()), ['memory_index', 'related_documents', 'knowledge']);

  mem.context.append({ kind: 'user', source: 'webui', channel: 'webui', sessionId: 'webui:1', input: '我住在杭州。我喜欢龙井茶', response: '' });
  const st = await mem.heartbeats.runOnce('rules');
  assert.deepEqual(st?.result, { events: 1, triples: 2 });
  const r = await mem.memoryAPI().recall(['杭州'], 1);
  assert.deepEqual(r.relations.map((x) => `${x.subject} ${x.predicate} ${x.object}`), ['user lives_in 杭州']);
  const block = slotText(await mem.promptSlots().memory_index?.({ sessionId: 'webui:1', turnId: 'webui:1#3', input: '杭州今天天气怎么样', consolidation: false }));
  assert.match(block ?? '', /^- user —lives_in→ 杭州 \(0\.70; \d{4}-\d\d-\d\d\)/, 'the fact, dated by the turn it cites');
  // a tool recall in that turn keeps the entity out of the block
  const tools = Object.fromEntries(mem.tools().map((t) => [t.name, t]));
  await tools.memory_recall.handler({ keywords: ['杭州'] }, call);
  assert.equal(await mem.promptSlots().memory_index?.({ sessionId: 'webui:1', turnId: call.turnId, input: '杭州今天天气怎么样', consolidation: false }), undefined);

  // documents: doc_commit then doc_query consumes and re-appends as cold_storage
  // Inside the scope the kernel puts every tool call in (the daemon's toolScope): the agent's, from its turn.
  const saved = (await mem.control.runAs({ actor: 'agent', tool: 'doc_commit', turnId: call.turnId }, () => tools.doc_commit.handler({ content: 'Trip plan: Kyoto in May, ryokan booked near Gion' }, call))) as { saved: string };
  // The agent's note is in the history as its change, from its turn (K-3).
  const noted = mem.control.history({ target: saved.saved });
  assert.deepEqual(noted.map((c) => [c.kind, c.op, c.actor, c.tool, c.turnId]), [['document', 'create', 'agent', 'doc_commit', call.turnId]]);
  const q = (await tools.doc_query.handler({ query: 'Kyoto ryokan' }, call)) as { restored: number };
  assert.equal(q.restored, 1);
  assert.equal(mem.context.events().filter((e) => e.kind === 'cold_storage').length, 1);

  // knowledge and social APIs
  await mem.knowledgeAPI().create('router', 'Router admin is at 192.168.1.1');
  assert.equal((await mem.knowledgeAPI().search('router admin'))[0].name, 'router');
  await mem.socialAPI().setTrait('Ann', 'mood', 'happy');
  const ro = mem.socialReadAPI();
  assert.equal(await ro.getTrait('Ann', 'mood'), 'happy');
  assert.equal('setTrait' in ro, false);

  await mem.close();
  await mem.close(); // idempotent
  const again = mk();
  await again.open();
  assert.equal((await again.memoryAPI().recall(['龙井'], 1)).relations.length, 1);
  assert.equal(again.context.events().length, 2, 'context flushed on close');
  assert.deepEqual((await again.knowledgeAPI().list()).map((e) => e.name), ['router']);
  await again.close();
  config.close();
});

test('heartbeats tick through the injected scheduler and stop on close', async () => {
  const { mem, scheduler, config } = setup();
  await mem.open();
  mem.startHeartbeats();
  assert.equal(scheduler.size, 5);
  await scheduler.advance(30 * 60_000);
  const s = mem.status().heartbeats;
  assert.equal(s.rules?.ok, true);
  assert.equal(s.distill?.ok, true);
  assert.equal(s.archive, undefined, 'archive runs hourly');
  await mem.close();
  assert.equal(scheduler.size, 0);
  config.close();
});

test('a corrupt graph.db is kept aside and the memory system still starts with a fresh graph', async () => {
  const { mem, errors, home, config } = setup((h) => fs.writeFileSync(path.join(h, 'graph.db'), 'garbage '.repeat(1000)));
  await mem.open();
  assert.ok(errors.some((e) => /graph\.db is corrupt .*kept aside/.test(e)), errors.join('\n'));
  assert.ok(fs.readdirSync(home).some((f) => f.startsWith('graph.db.corrupt-')));
  assert.ok(mem.tools().some((t) => t.name === 'memory_commit'));
  assert.equal(await mem.memoryAPI().commit([{ subject: 'a', predicate: 'b', object: 'c' }]), 1);
  await mem.close();
  config.close();
});

test('an unusable graph leaves the other tiers up: graph tools and slot absent, APIs say unavailable', async () => {
  const { mem, errors, config } = setup((h) => {
    const db = new Database(path.join(h, 'graph.db'));
    db.pragma('user_version = 999');
    db.close();
  });
  await mem.open();
  assert.ok(errors.some((e) => /graph tier could not be opened/.test(e)));
  const names = mem.tools().map((t) => t.name);
  assert.deepEqual(names, ['doc_query', 'doc_commit', 'knowledge_search', 'knowledge_create', 'knowledge_list']);
  assert.deepEqual(Object.keys(mem.promptSlots()), ['related_documents', 'knowledge']);
  await assert.rejects(mem.memoryAPI().recall(['x']), /MEMORY_UNAVAILABLE|not available/);
  await assert.rejects(mem.socialReadAPI().listPersons(), /not available/);
  await mem.close();
  config.close();
});

test('ageing never removes what the user said: cold turns are distilled, then archived on disk, and still recalled with their facts', async () => {
  const { home, scheduler, config } = setup();
  // The memory on the simulated clock: every heartbeat runs at its default interval as time passes.
  const mem = new MemorySystem({ homeDir: home, config, scheduler, now: scheduler.now });
  await mem.open();
  mem.startHeartbeats();
  const say = (text: string, i: number) => {
    mem.context.append({ kind: 'user', source: 'webui', channel: 'webui', sessionId: 'webui:1', input: text, response: '', refs: [`webui:1#${i}`] });
    return mem.context.prune(text);
  };
  await say('I live in Hangzhou and I love tennis.', 1);
  await say('I played tennis the day before yesterday', 2);
  for (let i = 3; i <= 60; i++) await say(`small talk number ${i} about the weather`, i);
  assert.ok(mem.docs.size > 0, 'pruning moved old turns to the documents');
  const ref = (h: { turnId?: string }) => h.turnId === 'webui:1#2';
  const said = mem.docs.list().find((d) => d.refs[0] === 'webui:1#2')!;
  const at = new Date(said.createdAt);
  const twoDaysBefore = new Date(at.getFullYear(), at.getMonth(), at.getDate() - 2);
  const day = twoDaysBefore.getFullYear() * 10_000 + (twoDaysBefore.getMonth() + 1) * 100 + twoDaysBefore.getDate();
  assert.deepEqual(mem.docs.daysOf(said.id), [day], 'the warm document keeps the day it says (decision 0160)');
  // Four simulated days: the heartbeats at their default intervals archive everything cold.
  await scheduler.advance(4 * 86_400_000);
  assert.equal(mem.docs.size, 0, 'the warm tier emptied');
  assert.ok(mem.archive.size >= 20, `archived ${mem.archive.size}`);
  assert.deepEqual(mem.archive.daysOf(said.id), [day], 'and the archive too, after the move');
  assert.deepEqual(mem.docs.saidYears(), undefined, 'none is left behind in the warm tier');
  const byDay = await mem.recall.search(`What did I play on ${String(day).replace(/(\d{4})(\d\d)(\d\d)/, '$1-$2-$3')}?`, { k: 3, now: said.createdAt + 40 * 86_400_000 });
  assert.ok(byDay.some((h) => ref(h) && h.tier === 'archive'), JSON.stringify(byDay.map((h) => [h.tier, h.text])));
  const hits = await mem.recall.search('where does the user live', { k: 5 });
  const turn = hits.find((h) => h.turnId === 'webui:1#1' && h.tier === 'archive');
  assert.ok(turn, JSON.stringify(hits.map((h) => [h.tier, h.text])));
  const facts = await mem.memoryAPI().recall(['Hangzhou'], 1);
  const lives = facts.relations.find((r) => r.predicate === 'lives_in')!;
  assert.equal(lives.object, 'Hangzhou');
  assert.ok(lives.refs?.includes('webui:1#1'), 'the fact cites its turn');
  assert.equal(mem.recall.sources(lives.refs ?? [])[0]?.tier, 'archive', 'and brings it back from the archive');
  await mem.close();
  config.close();
});

test('the warm tier is bounded: beyond core.memory.warm_max_docs the least recently used documents move to the archive', async () => {
  const { mem, config } = setup();
  await config.set('core.memory.warm_max_docs', 100);
  await mem.open();
  mem.docs.addMany(Array.from({ length: 150 }, (_, i) => ({ content: `note ${i} about gardening`, createdAt: Date.now() - i })));
  const r = await mem.heartbeats.runOnce('archive');
  assert.equal(r?.ok, true);
  assert.equal(mem.docs.size, 100);
  assert.equal(mem.archive.size, 50);
  assert.equal((await mem.recall.search('gardening', { k: 200 })).filter((h) => h.tier !== 'graph').length, 150, 'nothing vanished');
  await mem.close();
  config.close();
});

test('R-5: a group prompt’s 【记忆索引】 holds only facts distilled from what was said in that group', async () => {
  const { mem, config } = setup();
  await mem.open();
  const group = { kind: 'group' as const, id: 'qq:group:5' };
  mem.context.append({ kind: 'user', source: 'webui', channel: 'webui', sessionId: 'webui:1', input: 'I live in Hangzhou.', response: '', refs: ['webui:1#1'] });
  mem.context.append({ kind: 'user', source: 'qq', channel: 'qq', sessionId: 'qq:group:5', input: 'I live in Oslo.', response: '', refs: ['qq:group:5#1'], speaker: { id: 'qq:7', name: 'Bo' }, conversation: group });
  await mem.heartbeats.runOnce('rules');
  const slot = mem.promptSlots().memory_index!;
  const q = { sessionId: 'qq:group:5', turnId: 'qq:group:5#2', input: 'who lives in Hangzhou or Oslo, user or Bo?', consolidation: false };
  const owner = slotText(await slot(q)) ?? '';
  assert.match(owner, /user —lives_in→ Hangzhou/);
  assert.match(owner, /Bo —lives_in→ Oslo \([^)]*; said by Bo\)/, 'a named participant is the subject of their own facts, and the block says who said it');
  assert.doesNotMatch(owner.split('\n').find((l) => l.includes('Hangzhou')) ?? '', /said by/, 'the owner’s own facts name nobody');
  const fill = await slot(q);
  const sources = typeof fill === 'object' && fill ? (fill.sources ?? []) : [];
  assert.deepEqual(
    sources.map((x) => [x.text, x.speaker?.id]),
    [
      ['user —lives_in→ Hangzhou', undefined],
      ['Bo —lives_in→ Oslo', 'qq:7'],
    ],
    'the block’s sources name who said each fact',
  );
  const inGroup = slotText(await slot({ ...q, speaker: { id: 'qq:8' }, conversation: group })) ?? '';
  assert.match(inGroup, /Bo —lives_in→ Oslo/);
  assert.doesNotMatch(inGroup, /Hangzhou/, "the owner's private fact stays out of the group");
  await mem.close();
  config.close();
});

test('decision 0090: a person linked across channels gets the facts and turns of their other private chat — nobody else does', async () => {
  const { mem, config } = setup();
  await mem.open();
  const tg = { kind: 'private' as const, id: 'telegram:42' };
  const qqAlice = { kind: 'private' as const, id: 'qq:private:10001' };
  const qqBob = { kind: 'private' as const, id: 'qq:private:20002' };
  const group = { kind: 'group' as const, id: 'qq:group:5' };
  config.people.notePrivateChat('telegram:42', tg.id);
  config.people.notePrivateChat('qq:10001', qqAlice.id);
  config.people.notePrivateChat('qq:20002', qqBob.id);
  mem.context.append({ kind: 'user', source: 'telegram', channel: 'telegram', sessionId: tg.id, input: 'I live in Paris.', response: '', refs: ['telegram:42#1'], speaker: { id: 'telegram:42', name: 'Alice' }, conversation: tg });
  mem.context.append({ kind: 'user', source: 'qq', channel: 'qq', sessionId: qqBob.id, input: 'I live in Rome.', response: '', refs: ['qq:private:20002#1'], speaker: { id: 'qq:20002', name: 'Bob' }, conversation: qqBob });
  await mem.heartbeats.runOnce('rules');
  // The turns themselves, as archived documents (what 【相关记忆文档】 ranks).
  const { eventDocument } = await import('./documents/index.js');
  mem.archive.putMany(mem.context.events().map((e) => eventDocument(e, 0)));
  const slots = mem.promptSlots();
  const ask = async (speaker: { id: string }, conversation: { kind: 'private' | 'group'; id: string }) => {
    const q = { sessionId: conversation.id, turnId: `${conversation.id}#9`, input: 'who lives in Paris or Rome, Alice or Bob?', consolidation: false, speaker, conversation };
    return `${slotText(await slots.memory_index!(q)) ?? ''}\n${slotText(await slots.related_documents!(q)) ?? ''}`;
  };
  assert.doesNotMatch(await ask({ id: 'qq:10001' }, qqAlice), /Paris|Rome/, 'unlinked, her QQ id is someone else');
  config.people.link(['telegram:42', 'qq:10001'], { name: 'Alice' });
  const alice = await ask({ id: 'qq:10001' }, qqAlice);
  assert.match(alice, /Alice —lives_in→ Paris/);
  assert.match(alice, /I live in Paris/);
  assert.doesNotMatch(alice, /Rome/);
  assert.doesNotMatch(await ask({ id: 'qq:20002' }, qqBob), /Paris/, "never in another person's chat");
  assert.doesNotMatch(await ask({ id: 'qq:10001' }, group), /Paris|Rome/, 'never in a group');
  await mem.close();
  config.close();
});

/** A data folder whose `files` have a schema of a newer version (as after a downgrade). */
function newerSchema(files: string[]) {
  return (h: string) => {
    for (const f of files) {
      const db = new Database(path.join(h, f));
      db.pragma('user_version = 99');
      db.close();
    }
  };
}

function withLog(s: ReturnType<typeof setup>) {
  const warnings: string[] = [];
  const errors: string[] = [];
  const log: PluginLogger = { debug() {}, info() {}, warn: (m) => warnings.push(m), error: (m) => errors.push(m) };
  const clock = { t: Date.now() };
  const mem = new MemorySystem({ homeDir: s.home, config: s.config, log, scheduler: s.scheduler, now: () => clock.t });
  return { mem, warnings, errors, clock };
}

const said = (i: number) => ({ kind: 'user' as const, source: 'webui', channel: 'webui', sessionId: 'webui:1', input: `message ${i} about the allotment number ${i}`, response: '', refs: [`webui:1#${i}`], timestamp: Date.now() - 100_000 + i });

test('D5: while the documents cannot open, the window\'s pruned events go to the cold archive (a throttled warning), and recall finds them', async () => {
  const s = setup();
  fs.mkdirSync(path.join(s.home, 'documents'), { recursive: true });
  newerSchema(['documents/documents.db'])(s.home);
  const { mem, warnings, errors, clock } = withLog(s);
  await mem.open();
  assert.ok(errors.some((e) => /docs tier could not be opened/.test(e)), errors.join('\n'));
  assert.equal(mem.status().docs, false);
  for (let i = 1; i <= 45; i++) mem.context.append(said(i));
  await mem.context.prune('allotment');
  assert.equal(mem.context.events().length, 40);
  assert.equal(mem.archive.size, 5, 'the pruned events are in the cold archive');
  for (let i = 46; i <= 50; i++) mem.context.append(said(i));
  clock.t += 60_000;
  await mem.context.prune('allotment');
  assert.equal(mem.archive.size, 10);
  assert.equal(warnings.filter((w) => /documents are unavailable/.test(w)).length, 1, warnings.join('\n'));
  const pruned = [...Array(50).keys()].map((i) => `webui:1#${i + 1}`).filter((t) => !mem.context.events().some((e) => e.refs?.[0] === t));
  assert.equal(pruned.length, 10);
  for (const t of pruned) assert.ok(mem.archive.hasTurn(t, 'user'), t);
  const hit = (await mem.recall.search(`allotment number ${pruned[0].split('#')[1]}`, { k: 3 }))[0];
  assert.equal(hit.tier, 'archive');
  await mem.close();
  s.config.close();
});

test('D5: with neither documents nor archive the window is not pruned — it keeps every event (one warning), and saves them', async () => {
  const s = setup();
  fs.mkdirSync(path.join(s.home, 'documents'), { recursive: true });
  newerSchema(['documents/documents.db', 'documents/archive.db'])(s.home);
  const { mem, warnings } = withLog(s);
  await mem.open();
  assert.deepEqual([mem.status().docs, mem.status().archive], [false, false]);
  for (let i = 1; i <= 45; i++) mem.context.append(said(i));
  await mem.context.prune('allotment');
  await mem.context.prune('allotment');
  assert.equal(mem.context.events().length, 45, 'nothing thrown away');
  assert.equal(warnings.filter((w) => /keeps its 45 events/.test(w)).length, 1, warnings.join('\n'));
  await mem.close();
  const saved = JSON.parse(fs.readFileSync(path.join(s.home, 'context.json'), 'utf8')) as { events: unknown[] };
  assert.equal(saved.events.length, 45);
  s.config.close();
});

test('D6: corrupt stores set aside at open are listed with their files; the documents name the command that brings their turns back', async () => {
  const garbage = 'garbage '.repeat(1000);
  const s = setup((h) => {
    fs.mkdirSync(path.join(h, 'documents'), { recursive: true });
    for (const f of ['graph.db', 'documents/documents.db', 'memory-control.db']) fs.writeFileSync(path.join(h, f), garbage);
  });
  const { mem, warnings, errors, clock } = withLog(s);
  await mem.open();
  const aside = mem.setAside();
  assert.deepEqual(aside.map((a) => a.store).sort(), ['documents', 'graph', 'memory-control']);
  for (const a of aside) {
    assert.equal(a.at, clock.t);
    assert.equal(fs.readFileSync(a.file, 'utf8'), garbage, `${a.store}: the old file is kept`);
  }
  assert.equal(aside.find((a) => a.store === 'documents')?.recover, 'waiter memory reindex');
  assert.ok(warnings.some((w) => /documents\.db is corrupt.*waiter memory reindex/.test(w)), warnings.join('\n'));
  assert.ok(warnings.some((w) => /memory-control\.db is corrupt.*tombstones/.test(w)), warnings.join('\n'));
  assert.ok(errors.some((e) => /graph\.db is corrupt/.test(e)));
  await mem.close();
  // The next start found sound stores: nothing set aside in that run.
  const again = withLog(s).mem;
  await again.open();
  assert.deepEqual(again.setAside(), []);
  await again.close();
  s.config.close();
});

test('a knowledge entry edited by hand is searchable without a restart and announced as memory_changed (knowledge), not recorded in the history', async () => {
  const { mem, home, config } = setup();
  await mem.open();
  await mem.knowledge.watching();
  const events: { kind: string; actors: string[] }[] = [];
  const off = mem.changes.on((e) => events.push(e));
  try {
    fs.mkdirSync(path.join(home, 'knowledge', 'boiler'), { recursive: true });
    fs.writeFileSync(path.join(home, 'knowledge', 'boiler', 'content.md'), 'The boiler service is due every October');
    for (let i = 0; i < 100 && !events.some((e) => e.kind === 'knowledge'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(events.filter((e) => e.kind === 'knowledge').map((e) => e.actors), [['user']]);
    assert.equal((await mem.knowledge.search('boiler service'))[0]?.name, 'boiler');
    assert.equal(mem.control.history({ kind: 'knowledge' }).length, 0, 'nothing knows who edited it: not in the history');
  } finally {
    off();
    await mem.close();
    config.close();
  }
});
