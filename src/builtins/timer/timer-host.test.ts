import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestHost, ScriptedLlm } from '../../sdk/testing/index.js';
import type { AgentEvents } from '../../spec/index.js';
import { coreConfigDefaults } from '../../config/index.js';
import { createTimerPlugin, TimerScheduler, TimerStore } from './index.js';

const T0 = Date.parse('2026-05-01T08:00:00Z');

test('timer in the real host: a due reminder starts a turn (source timer); after a restart a missed one fires once with a note', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'ha-timer-host-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const clock = { now: T0 };

  const p1 = createTimerPlugin({ now: () => clock.now, manualTick: true });
  const llm1 = new ScriptedLlm();
  const h1 = await createTestHost({ plugins: [p1], llm: llm1, homeDir: home });
  const starts: AgentEvents['turn_start'][] = [];
  const ends: AgentEvents['turn_end'][] = [];
  h1.agent.bus.on('turn_start', (e) => void starts.push(e));
  h1.agent.bus.on('turn_end', (e) => void ends.push(e));
  assert.match(await h1.callTool('timer_create', { text: 'stretch your legs', when: 'in 5 minutes' }), /created/);
  assert.match(await h1.callTool('timer_create', { text: 'water the plants', when: 'in 2 hours' }), /created/);
  clock.now = T0 + 5 * 60_000;
  assert.equal(await p1.scheduler()!.tick(), 1);
  for (let i = 0; i < 400 && ends.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(ends.length, 1);
  assert.equal(starts[0].input.source, 'timer');
  assert.equal(starts[0].input.trigger, 'system');
  assert.equal(starts[0].input.sessionId, 'test:1');
  assert.match(JSON.stringify(llm1.requests[0].messages), /stretch your legs/);
  await h1.close();

  // Restart three hours later: the 2-hour reminder was missed and fires once, with a note.
  clock.now = T0 + 3 * 3_600_000;
  const p2 = createTimerPlugin({ now: () => clock.now, manualTick: true });
  const llm2 = new ScriptedLlm();
  const h2 = await createTestHost({ plugins: [p2], llm: llm2, homeDir: home });
  t.after(() => h2.close());
  for (let i = 0; i < 400 && llm2.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  const seen = JSON.stringify(llm2.requests[0]?.messages ?? []);
  assert.match(seen, /water the plants/);
  assert.match(seen, /missed while HomeAgent was not running/);
  assert.equal(await h2.callTool('timer_list'), 'no timers');
});

test("R-6: a timer's answer reaches the owner's default channel; without an LLM the reminder itself still arrives", async (t) => {
  const clock = { now: T0 };
  const got: { payload: string; sessionId: string; meta: Record<string, unknown> }[] = [];
  const inbox = { name: 'inbox', start: (sdk: import('../../spec/index.js').PluginSDK) => void sdk.registerOutputChannel('webui', 1, 'test inbox', (m) => void got.push(m)) };
  const p = createTimerPlugin({ now: () => clock.now, manualTick: true });
  const h = await createTestHost({ plugins: [inbox, p], llm: new ScriptedLlm([{ text: 'Time to stretch your legs, Olivia!' }]) });
  t.after(() => h.close());
  await h.callTool('timer_create', { text: 'stretch your legs', when: 'in 5 minutes' });
  clock.now = T0 + 5 * 60_000;
  await p.scheduler()!.tick();
  for (let i = 0; i < 400 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  assert.deepEqual(got.map((m) => [m.payload, m.sessionId, m.meta.proactive, m.meta.source]), [['Time to stretch your legs, Olivia!', 'test:1', true, 'timer']]);

  const p2 = createTimerPlugin({ now: () => clock.now, manualTick: true });
  const got2: typeof got = [];
  const inbox2 = { name: 'inbox', start: (sdk: import('../../spec/index.js').PluginSDK) => void sdk.registerOutputChannel('webui', 1, 'test inbox', (m) => void got2.push(m)) };
  const h2 = await createTestHost({ plugins: [inbox2, p2], llm: new ScriptedLlm([], false) });
  t.after(() => h2.close());
  await h2.callTool('timer_create', { text: 'call the dentist', when: 'in 1 minute' });
  clock.now += 60_000;
  await p2.scheduler()!.tick();
  for (let i = 0; i < 400 && got2.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(got2.length, 2);
  assert.match(got2[0].payload, /provider|LLM/i, 'the turn says why it could not answer');
  assert.equal(got2[1].payload, '⏰ call the dentist');
  assert.equal(got2[1].meta.notice, true);
});

const MALLORY = { id: 'qq:10666', name: 'Mallory', platform: 'qq', userId: '10666' };
const BOB = { id: 'qq:10002', name: 'Bob', platform: 'qq', userId: '10002' };
const GROUP = { kind: 'group' as const, id: 'qq:group:777', platform: 'qq', title: 'Family' };
const OWNER = { id: 'qq:1', name: 'Olivia', platform: 'qq', userId: '1' };

test("decision 0360: a group member's timer records them and fires as their turn in their group; another member neither lists nor cancels it", async (t) => {
  const clock = { now: T0 };
  const p = createTimerPlugin({ now: () => clock.now, manualTick: true });
  const llm = new ScriptedLlm([
    { toolCalls: [{ name: 'timer_create', arguments: { text: 'say something', when: 'in 5 minutes', delivery: 'interrupt' } }] },
    { text: 'set.' },
    { toolCalls: [{ name: 'timer_list', arguments: {} }] },
    { text: 'listed.' },
  ]);
  const h = await createTestHost({ plugins: [p], llm });
  t.after(() => h.close());
  const starts: AgentEvents['turn_start'][] = [];
  h.agent.bus.on('turn_start', (e) => void starts.push(e));
  const inGroup = (speaker: typeof MALLORY, text: string) => h.send(text, { sessionId: GROUP.id, source: 'qq', speaker, conversation: GROUP });
  await inGroup(MALLORY, 'remind me');
  const [timer] = p.scheduler()!.list();
  assert.deepEqual(timer.creator, { owner: false, speaker: MALLORY, conversation: GROUP, turnId: `${GROUP.id}#1` });
  assert.equal(timer.delivery, 'input', "a non-owner's timer never interrupts another turn");
  assert.equal(timer.sessionId, GROUP.id);

  await inGroup(BOB, 'what timers are there?');
  assert.equal(llm.requests.at(-1)?.messages.at(-1)?.content, 'no timers', "Bob does not see Mallory's timer");
  llm.enqueue({ toolCalls: [{ name: 'timer_cancel', arguments: { id: timer.id } }] }, { text: 'tried.' });
  await inGroup(BOB, 'cancel it');
  assert.match(String(llm.requests.at(-1)?.messages.at(-1)?.content), /not found/i);
  assert.equal(p.scheduler()!.list().length, 1, 'still there');
  assert.match(await h.callTool('timer_list'), new RegExp(timer.id), 'the owner sees every timer');

  clock.now = T0 + 5 * 60_000;
  await p.scheduler()!.tick();
  for (let i = 0; i < 400 && !starts.some((s) => s.input.source === 'timer'); i++) await new Promise((r) => setTimeout(r, 25));
  const fired = starts.find((s) => s.input.source === 'timer')!;
  assert.deepEqual(fired.input.speaker, MALLORY, 'it fires as the creator');
  assert.deepEqual(fired.input.conversation, GROUP);
  assert.equal(fired.input.sessionId, GROUP.id);
});

test('decision 0360 (review fix): someone other than the owner keeps at most five reminders, repeating at most hourly; the owner is not limited so', async (t) => {
  const clock = { now: T0 };
  const p = createTimerPlugin({ now: () => clock.now, manualTick: true });
  const llm = new ScriptedLlm([]);
  const h = await createTestHost({ plugins: [p], llm });
  t.after(() => h.close());
  const inGroup = async (args: Record<string, unknown>) => {
    llm.enqueue({ toolCalls: [{ name: 'timer_create', arguments: args }] }, { text: 'ok.' });
    await h.send('remind me', { sessionId: GROUP.id, source: 'qq', speaker: MALLORY, conversation: GROUP });
    return String(llm.requests.at(-1)?.messages.at(-1)?.content);
  };
  assert.match(await inGroup({ text: 'spam', cron: '* * * * *' }), /at most once an hour/);
  assert.match(await inGroup({ text: 'spam', cron: '*/30 * * * *' }), /at most once an hour/);
  assert.match(await inGroup({ text: 'daily', cron: '0 9 * * *' }), /^created/);
  for (let i = 0; i < 4; i++) assert.match(await inGroup({ text: `later ${i}`, when: `in ${i + 1} hours` }), /^created/);
  assert.match(await inGroup({ text: 'one more', when: 'in 9 hours' }), /at most 5 reminders/);
  assert.equal(p.scheduler()!.list().length, 5);
  // Bob has his own five; the owner is not limited so.
  llm.enqueue({ toolCalls: [{ name: 'timer_create', arguments: { text: 'bob', when: 'in 2 hours' } }] }, { text: 'ok.' });
  await h.send('remind me', { sessionId: GROUP.id, source: 'qq', speaker: BOB, conversation: GROUP });
  assert.match(String(llm.requests.at(-1)?.messages.at(-1)?.content), /^created/);
  assert.match(await h.callTool('timer_create', { text: 'owner every minute', cron: '* * * * *' }), /^created/);
  assert.equal(p.scheduler()!.list().length, 7);
});

test('decision 0360: a timer persisted without a creator is the owner\'s only in an owner session; in a group it fires as nobody in that group', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'ha-timer-legacy-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const old = (id: string, sessionId: string) => ({ id, kind: 'once', nextAt: T0 - 60_000, text: `old ${id}`, sessionId, delivery: 'input', createdAt: T0 - 3_600_000, fired: 0 });
  mkdirSync(join(home, 'plugins-data', 'timer'), { recursive: true });
  writeFileSync(join(home, 'plugins-data', 'timer', 'timers.json'), JSON.stringify({ version: 1, timers: [old('tgroup', 'qq:group:777'), old('towner', 'webui:abc')] }));
  const p = createTimerPlugin({ now: () => T0, manualTick: true });
  const h = await createTestHost({ plugins: [p], llm: new ScriptedLlm([{ text: 'a' }, { text: 'b' }]), homeDir: home });
  t.after(() => h.close());
  // They fired while the host started (missed while stopped): read who they fired as from the session logs.
  const userEvent = async (sessionId: string) => (await h.sessions.events(sessionId)).find((e) => e.kind === 'user');
  for (let i = 0; i < 400 && (!(await userEvent('qq:group:777')) || !(await userEvent('webui:abc'))); i++) await new Promise((r) => setTimeout(r, 25));
  const group = await userEvent('qq:group:777');
  assert.ok(group, 'the group timer fired');
  assert.equal((group.data?.speaker as { id?: string } | undefined)?.id, 'timer:unknown-creator', 'not as the owner');
  assert.deepEqual(group.data?.conversation, { kind: 'group', id: 'qq:group:777' });
  const owner = await userEvent('webui:abc');
  assert.ok(owner, 'the owner timer fired');
  assert.equal(owner.data?.speaker, undefined, "a timer of the owner's own session is still the owner's");
});

test("decision 0360: the owner in a group lists and cancels only that group's timers (the group reads the answer); their timer set there fires with the group's view", async (t) => {
  const clock = { now: T0 };
  const p = createTimerPlugin({ now: () => clock.now, manualTick: true });
  const llm = new ScriptedLlm([]);
  const h = await createTestHost({ plugins: [p], llm });
  t.after(() => h.close());
  h.config.register({ 'core.identity.owner_ids': coreConfigDefaults()['core.identity.owner_ids'] });
  await h.config.set('core.identity.owner_ids', [OWNER.id]);
  // A private reminder, set in the owner's own place, and something private said there.
  assert.match(await h.callTool('timer_create', { text: 'take the blood-pressure pills', when: 'in 2 hours' }), /^created/);
  const privateTimer = p.scheduler()!.list()[0];
  await h.send('my bank PIN is 4321');
  const asOwner = async (calls: { name: string; arguments: Record<string, unknown> }[], text: string) => {
    llm.enqueue({ toolCalls: calls }, { text: 'ok.' });
    await h.send(text, { sessionId: GROUP.id, source: 'qq', speaker: OWNER, conversation: GROUP });
    return llm.requests.at(-1)!.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
  };
  const [created] = await asOwner([{ name: 'timer_create', arguments: { text: 'tell everyone dinner is ready', when: 'in 5 minutes' } }], 'remind us');
  assert.match(created, /^created/);
  const [listed] = await asOwner([{ name: 'timer_list', arguments: {} }], 'what timers are there?');
  assert.match(listed, /dinner is ready/);
  assert.doesNotMatch(listed, /blood-pressure/, "the owner's private reminder is not read out in the group");
  const [cancel] = await asOwner([{ name: 'timer_cancel', arguments: { id: privateTimer.id } }], 'cancel the pills one');
  assert.match(cancel, /not found/i);
  assert.equal(p.scheduler()!.list().length, 2, 'still there');
  assert.match(await h.callTool('timer_list'), /blood-pressure[\s\S]*dinner|dinner[\s\S]*blood-pressure/, 'in their own place the owner sees both');

  const n = llm.requests.length;
  clock.now = T0 + 5 * 60_000;
  await p.scheduler()!.tick();
  for (let i = 0; i < 400 && llm.requests.length === n; i++) await new Promise((r) => setTimeout(r, 25));
  const system = String(llm.requests[n].messages[0].content);
  assert.match(system, /dinner is ready|remind us/);
  assert.doesNotMatch(system, /4321/, "the fired turn in the group has the group's view, not the owner's private chats");
});

test('decision 0390: reminders fired right before a kill reach the person after the restart, exactly once; an interrupt one comes as input', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'ha-timer-kill-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const dataDir = join(home, 'plugins-data', 'timer');
  mkdirSync(dataDir, { recursive: true });
  const clock = { now: T0 };
  // The run that is killed: both reminders fire, and neither input is ever recorded.
  const dying = new TimerScheduler({ store: new TimerStore(dataDir), now: () => clock.now, deliver: () => new Promise(() => {}) });
  await dying.open();
  await dying.create({ text: 'stretch your legs', sessionId: 'test:1', when: 'in 5 minutes', creator: { owner: true } });
  await dying.create({ text: 'stop the build', sessionId: 'test:1', when: 'in 5 minutes', delivery: 'interrupt', creator: { owner: true } });
  clock.now = T0 + 5 * 60_000;
  assert.equal(await dying.tick(), 2);

  clock.now += 60_000;
  const p = createTimerPlugin({ now: () => clock.now, manualTick: true });
  const llm = new ScriptedLlm([{ text: 'Time to stretch.' }, { text: 'Stopping the build.' }]);
  const h = await createTestHost({ plugins: [p], llm, homeDir: home });
  // (the turns start while the host starts its plugins: the LLM's requests are what is counted)
  for (let i = 0; i < 400 && (llm.requests.length < 2 || h.agent.busy || h.agent.queued); i++) await new Promise((r) => setTimeout(r, 25));
  await p.scheduler()!.settled();
  assert.equal(llm.requests.length, 2, 'each reminder once');
  const seen = JSON.stringify(llm.requests.map((r) => r.messages));
  assert.match(seen, /stretch your legs/);
  assert.match(seen, /stop the build/);
  assert.doesNotMatch(seen, /打断消息/, 'the interrupt reminder came as an input: the turn it was for is gone');
  const inputs = (await h.sessions.events('test:1')).filter((e) => e.kind === 'user');
  assert.deepEqual(inputs.map((e) => [e.data?.source, e.data?.trigger, typeof (e.data?.meta as Record<string, unknown>)?.timerFire]), [['timer', 'system', 'string'], ['timer', 'system', 'string']]);
  assert.deepEqual(p.scheduler()!.pending(), []);
  await h.close();

  // A later start delivers nothing again.
  const p2 = createTimerPlugin({ now: () => clock.now, manualTick: true });
  const llm2 = new ScriptedLlm();
  const h2 = await createTestHost({ plugins: [p2], llm: llm2, homeDir: home });
  t.after(() => h2.close());
  await p2.scheduler()!.settled();
  assert.equal(h2.agent.queued + (h2.agent.busy ? 1 : 0), 0);
  assert.equal(llm2.requests.length, 0);
});
