/**
 * Decision 0450 over the real memory system on disk: forgetting a turn lists the other turns that
 * quote what the person said in it — in the window, the warm documents, the archive and the logs —
 * for the person to include. Included, the quote is in no tier; left out, those turns stay whole.
 * A generic message said again elsewhere is not "quoted".
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chatAt, traces } from '../__fixtures__/memory-on-disk.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-forget-quoting-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const SID = 'webui:1';
const MESSAGE = 'my locker code is KESTREL-2291';

const world = () => chatAt(root);

test('0450: the preview of a turn lists the other turns that quote what was said, with where they live; a generic message is not a quote', async () => {
  const w = await world();
  const secret = await w.say(MESSAGE, 'Noted.');
  await w.say('ok thanks', 'You are welcome.');
  // Quoted in a later message (sunk to the warm documents) and in a reply still in the window.
  const quotedByMe = await w.say(`As I said before: ${MESSAGE}. Can you remind me at 6?`, 'Sure.');
  w.sink(quotedByMe);
  const quotedByAgent = await w.say('What did I tell you about my locker?', `You told me: "${MESSAGE}".`);
  await w.say('What a lovely day', 'It is.');
  await w.say('ok thanks', 'Any time.');

  const plan = await w.mem.control.forgetPreview({ turnIds: [secret.turnId] });
  assert.deepEqual(plan.turns.map((t) => t.turnId), [secret.turnId]);
  assert.deepEqual(plan.quoting?.map((t) => t.turnId), [quotedByMe.turnId, quotedByAgent.turnId]);
  assert.ok(plan.quoting![0].places.includes('document') && plan.quoting![0].places.includes('session-log'), plan.quoting![0].places.join());
  assert.ok(plan.quoting![1].places.includes('context'), plan.quoting![1].places.join());
  assert.match(plan.quoting![0].text, /As I said before/);

  // "ok thanks" is said in two turns; it is not distinctive, so neither quotes the other.
  const generic = (await w.sessions.events(SID)).find((e) => e.kind === 'user' && e.text === 'ok thanks')!;
  const other = await w.mem.control.forgetPreview({ turnIds: [generic.turnId] });
  assert.equal(other.quoting, undefined);
  await w.close();
});

test('0450: included, the quoting turns go too and the quote is in no tier; left out, they stay whole', async () => {
  const w = await world();
  const secret = await w.say(MESSAGE, 'Noted.');
  const quoting = await w.say(`As I said before: ${MESSAGE}. Can you remind me at 6?`, 'Sure.');
  w.sink(quoting);
  await w.say('What a lovely day', 'It is.');

  // Left out (the person unticked it): the forgotten turn goes, the quoting one stays in the tiers
  // and, kept by the person, in the session log as it was.
  await w.mem.control.forget({ turnIds: [secret.turnId], keepTurnIds: [quoting.turnId] });
  assert.ok(w.mem.control.isTombstoned(secret.turnId));
  assert.ok(!w.mem.control.isTombstoned(quoting.turnId));
  assert.deepEqual(await traces(w.mem, 'KESTREL-2291'), ['documents', 'recall'], 'the turn the person kept stays where it was');
  const log = await w.sessions.events(SID);
  assert.ok(log.some((e) => e.turnId === quoting.turnId && e.text.startsWith('As I said before: my locker code is KESTREL-2291')), 'its message is not redacted in the log');
  assert.ok(!log.some((e) => e.turnId === secret.turnId && e.text.includes('KESTREL')), 'the forgotten turn is');
  // Now the person forgets it too, by the turn the preview listed.
  const plan = await w.mem.control.forgetPreview({ turnIds: [quoting.turnId] });
  assert.deepEqual(plan.turns.map((t) => t.turnId), [quoting.turnId]);
  await w.mem.control.forget({ turnIds: plan.turns.map((t) => t.turnId) });
  assert.deepEqual(await traces(w.mem, 'KESTREL-2291'), []);
  assert.ok((await w.sessions.events(SID)).some((e) => e.text === 'What a lovely day'), 'the other turn stays');
  await w.close();
});

test('0450: a forget that includes the quoting turns the preview listed leaves the quote in no tier', async () => {
  const w = await world();
  const secret = await w.say(MESSAGE, 'Noted.');
  const a = await w.say(`As I said before: ${MESSAGE}. Can you remind me at 6?`, 'Sure.');
  w.sink(a);
  await w.say('What did I tell you about my locker?', `You told me: "${MESSAGE}".`);
  const plan = await w.mem.control.forgetPreview({ turnIds: [secret.turnId] });
  assert.equal(plan.quoting?.length, 2);
  const res = await w.mem.control.forget({ turnIds: [...plan.turns, ...(plan.quoting ?? [])].map((t) => t.turnId) });
  assert.equal(res.turns, 3);
  assert.deepEqual(await traces(w.mem, 'KESTREL-2291'), []);
  assert.ok(!(await w.sessions.events(SID)).some((e) => e.text.includes('KESTREL-2291')), 'nor in the session log');
  await w.close();
});

test('0450: a forget told to keep a turn it also forgets is refused, and nothing goes', async () => {
  const w = await world();
  const secret = await w.say(MESSAGE, 'Noted.');
  await assert.rejects(w.mem.control.forget({ turnIds: [secret.turnId], keepTurnIds: [secret.turnId] }), /both to forget and to keep/);
  await assert.rejects(w.mem.control.forget({ turnIds: [secret.turnId], keepTurnIds: 'x' as unknown as string[] }), /keepTurnIds must be a list/);
  assert.ok(!w.mem.control.isTombstoned(secret.turnId));
  assert.deepEqual(await traces(w.mem, 'KESTREL-2291'), ['context', 'recall']);
  await w.close();
});

test('0450: without keepTurnIds a quoting event in the log is still redacted (a client that shows no preview)', async () => {
  const w = await world();
  const secret = await w.say(MESSAGE, 'Noted.');
  const quoting = await w.say(`As I said before: ${MESSAGE}. Can you remind me at 6?`, 'Sure.');
  await w.mem.control.forget({ turnIds: [secret.turnId] });
  assert.ok(!(await w.sessions.events(SID)).some((e) => e.turnId === quoting.turnId && e.text.includes('KESTREL')));
  await w.close();
});

test('0450 (review): a turn that only looked the message up (a tool result, an injection) is not a quoting turn; a quote in other letter case is', async () => {
  const w = await world();
  const secret = await w.say(MESSAGE, 'Noted.');
  // The agent recalled it in another turn: a copy of memory in a tool result, not something said.
  const lookedUp = await w.say('What is on my list today?', 'Groceries and the gym.');
  await w.sessions.append('webui:1', { turnId: lookedUp.turnId, kind: 'tool_result', text: `memory_recall → ${MESSAGE}` });
  await w.sessions.append('webui:1', { turnId: lookedUp.turnId, kind: 'injection', text: `【相关记忆文档】 ${MESSAGE}` });
  const shouted = await w.say(`REMINDER: ${MESSAGE.toUpperCase()}!`, 'Got it.');
  const plan = await w.mem.control.forgetPreview({ turnIds: [secret.turnId] });
  assert.deepEqual(plan.quoting?.map((t) => t.turnId), [shouted.turnId]);
  await w.close();
});

test('0480 (review): a kept quoting turn keeps its tool events too — it is not redacted for the quote in a copy either', async () => {
  const w = await world();
  const secret = await w.say(MESSAGE, 'Noted.');
  const quoting = await w.say(`Remind me at 6: ${MESSAGE}`, 'I will.');
  await w.sessions.append(SID, { turnId: quoting.turnId, kind: 'tool_call', text: 'timer_create', data: { id: 'c1', arguments: JSON.stringify({ at: '18:00', text: MESSAGE }) } });
  await w.mem.control.forget({ turnIds: [secret.turnId], keepTurnIds: [quoting.turnId] });
  const call = (await w.sessions.events(SID)).find((e) => e.turnId === quoting.turnId && e.kind === 'tool_call');
  assert.ok(call && !call.data?.redacted, 'the kept turn’s tool call stays as it was');
  await w.close();
});

test('0480 (review): what a removed knowledge entry merely mentions — a tool’s name, another entry’s name, a marker — is not a copy of it; a snippet of it is', async () => {
  const w = await world();
  const note = 'Always run files_search before files_write. Keep the Home network setup entry current; after [resumed after a restart] check timers. The guest wifi password is plover-8812, written on the card in the hall.';
  await w.mem.knowledge.create('tools note', note);
  await w.mem.knowledge.create('Home network setup', 'Router in the hall cupboard.');
  const t = (await w.say('anything new?', 'Not really.')).turnId;
  const ev = (kind: string, text: string, data: Record<string, unknown>) => w.sessions.append(SID, { turnId: t, kind: kind as never, text, data });
  await ev('tool_call', 'files_search', { id: 'c1', arguments: '{"query":"budget"}' });
  await ev('tool_result', '{"hits":[]}', { id: 'c1', name: 'files_search' });
  await ev('injection', '- Home network setup: Router in the hall cupboard.', { source: 'recall', slot: 'knowledge', sources: [{ tier: 'knowledge', id: 'Home network setup', text: 'Router in the hall cupboard.' }] });
  await ev('marker', '[resumed after a restart]', { op: 'resume' });
  await ev('tool_result', JSON.stringify({ results: [{ name: 'tools note', snippet: '…The guest wifi password is plover-8812, written on the card in the hall.' }] }), { id: 'c2', name: 'knowledge_search' });
  const plan = await w.mem.control.forgetPreview({ query: 'plover-8812' });
  const entry = plan.memories.find((m) => m.title === 'Knowledge base: tools note')!;
  await w.mem.control.forget({ memoryIds: [entry.id] });
  const evs = (await w.sessions.events(SID)).filter((e) => e.turnId === t);
  const redacted = (kind: string) => evs.filter((e) => e.kind === kind).map((e) => !!e.data?.redacted);
  assert.deepEqual(redacted('tool_call'), [false], 'a tool name the note mentions');
  assert.deepEqual(redacted('tool_result'), [false, true], 'the files_search result stays; the snippet of the note goes');
  assert.deepEqual(redacted('injection'), [false], 'another entry the note names');
  assert.deepEqual(redacted('marker'), [false]);
  assert.ok(!JSON.stringify(evs).includes('plover-8812'));
  await w.close();
});

test('0480 (review): a fact is matched by words as a turn is — a number whole ("3456" is not in the phone number 123456789)', async () => {
  const w = await world();
  w.mem.graph.commit([{ subject: 'Bob', predicate: 'phone_number', object: '123456789' }, { subject: 'router', predicate: 'pin', object: '3456' }]);
  const plan = await w.mem.control.forgetPreview({ query: '3456' });
  assert.deepEqual(plan.facts.map((f) => f.text).sort(), [plan.facts.find((f) => /router/.test(f.text))?.text].filter(Boolean));
  assert.equal(plan.facts.length, 1);
  await w.close();
});
