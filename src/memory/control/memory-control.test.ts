import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConflictError } from '../../spec/index.js';
import fs from 'node:fs';
import path from 'node:path';
import type { MemoryChangedEvent } from '../../spec/index.js';
import { CHANGE_FEED_WINDOW_MS } from './change-feed.js';
import { withChangeActor } from './change-actor.js';
import { contentHash } from './tombstone-hash.js';
import { eventDocument } from '../documents/index.js';
import Database from 'better-sqlite3';
import { setup, traces } from '../__fixtures__/memory-on-disk.js';

const DAY = 86_400_000;

test('M-9: an excluded turn leaves the window, the documents, the archive and the graph, is not distilled or replayed, and comes back on restore', async () => {
  const { mem, mk, turn, sessions, clock, done } = await setup();
  await turn('我喜欢龙井茶', '好的');
  const secret = await turn('I live in Reykjavik. The door code is 4711', 'Noted: 4711.');
  await turn('What is the weather like?', 'Sunny.');
  await mem.heartbeats.runOnce('rules');
  // The secret's user event went to the documents (pruned), its reply to the archive (cold).
  mem.context.removeIds([secret.user.id, secret.agent.id]);
  mem.docs.archiveEvents([secret.user]);
  mem.archive.putMany([eventDocument(secret.agent, clock.t)]);
  assert.deepEqual(await traces(mem, '4711'), ['documents', 'archive', 'recall'], 'the secret is in the tiers before the exclusion');
  assert.ok(mem.graph.matchingFacts(['reykjavik']).length > 0, 'and a fact of it in the graph');
  const factsBefore = mem.graph.matchingFacts(['reykjavik']).length;

  const r = await mem.control.exclude([secret.turnId]);
  assert.equal(r.turns, 1);
  assert.deepEqual(await traces(mem, 'Reykjavik'), []);
  assert.deepEqual(await traces(mem, '4711'), []);
  // Ingest paths obey it: the window refuses its events, the graph its facts, replay and reindex its log.
  mem.context.append({ kind: 'user', source: 'webui', channel: 'webui', sessionId: 'webui:1', refs: [secret.turnId], input: 'again: door code 4711', response: '' });
  await mem.rules.tick();
  mem.graph.commit([{ subject: 'user', predicate: 'lives_in', object: 'Reykjavik', refs: [secret.turnId] }]);
  assert.equal((await mem.reindex()).added, 0);
  assert.deepEqual(await traces(mem, '4711'), []);
  await mem.close();
  const again = mk();
  await again.open();
  assert.deepEqual(await traces(again, '4711'), [], 'not replayed from the session log at open');
  assert.deepEqual(again.control.excluded(), [secret.turnId]);

  const back = await again.control.restore([secret.turnId]);
  assert.equal(back.turns, 1);
  const t = await traces(again, '4711');
  assert.ok(t.includes('documents') && t.includes('archive') && t.includes('recall'), `restored everywhere: ${t}`);
  assert.ok(again.graph.matchingFacts(['reykjavik']).length >= Math.min(1, factsBefore), 'its facts are back in the graph');
  const hist = again.control.history({ target: secret.turnId });
  assert.deepEqual(hist.map((c) => c.op), ['restore', 'exclude']);
  assert.ok((await sessions.events('webui:1')).some((e) => e.text.includes('4711')), 'exclusion never touches the log');
  await done(again);
});

test('M-9 over the natural lifecycle: a turn pruned into the documents, distilled and archived by the loops is excluded from all of it, stays out through more turns and loops, and comes back on restore', async () => {
  const { mem, clock, turn, done } = await setup();
  const secret = await turn('I live in Reykjavik and the safe code is 2718', 'Noted the safe code 2718.');
  for (let i = 0; i < 30; i++) {
    await turn(`Small talk number ${i} about the weather and lunch`, `Reply ${i}.`);
    await mem.context.prune(`weather ${i}`);
  }
  assert.ok(mem.docs.hasTurn(secret.turnId), 'pruned into the documents');
  clock.t += 4 * DAY;
  await mem.heartbeats.runOnce('rules');
  await mem.heartbeats.runOnce('archive');
  assert.ok(mem.archive.hasTurn(secret.turnId), 'archived by the loop');
  assert.ok(mem.graph.matchingFacts(['reykjavik']).length > 0, 'distilled');

  await mem.control.exclude([secret.turnId]);
  assert.deepEqual(await traces(mem, '2718'), []);
  assert.deepEqual(await traces(mem, 'Reykjavik'), []);
  for (let i = 0; i < 15; i++) {
    await turn(`More talk ${i} about trains`, `Trains ${i}.`);
    await mem.context.prune(`trains ${i}`);
  }
  clock.t += 4 * DAY;
  for (const loop of ['rules', 'distill', 'archive', 'merge', 'review'] as const) await mem.heartbeats.runOnce(loop);
  assert.equal((await mem.reindex()).added, 0);
  assert.deepEqual(await traces(mem, '2718'), [], 'no loop, prune or reindex brought it back');

  await mem.control.restore([secret.turnId]);
  const back = await traces(mem, '2718');
  assert.ok(back.includes('archive') && back.includes('recall'), back.join());
  assert.ok(mem.graph.matchingFacts(['reykjavik']).length > 0, 'its fact is back');
  await done(mem);
});

test('K-2: a short reply ("Noted.") is forgotten with its turn, never by its text: applying tombstones later takes no other turn that says the same', async () => {
  const { mem, turn, done } = await setup();
  const secret = await turn('My locker code at the gym is 5521', 'Noted.');
  const milk = await turn('Remind me to buy oat milk', 'Noted.');
  await mem.control.forget({ turnIds: [secret.turnId] });
  assert.deepEqual(await traces(mem, '5521'), []);
  assert.equal(mem.control.isTombstonedContent('My locker code at the gym is 5521'), true);
  assert.equal(mem.control.isTombstonedContent('Noted.'), false, 'a text said in countless turns is not matched alone');
  // A CJK character counts twice: a short Chinese secret is distinctive, a short Chinese "ok" is not.
  const zh = await turn('门锁密码是4711', '记住了');
  await mem.control.forget({ turnIds: [zh.turnId] });
  assert.equal(mem.control.isTombstonedContent('门锁密码是4711'), true);
  assert.equal(mem.control.isTombstonedContent('记住了'), false);
  // What an import's tombstones set off (and an older version's tombstone of the short text itself).
  assert.equal(mem.control.addTombstoneRefs([{ ref: `sha256:content:${contentHash('Noted.')}`, at: 1 }]), 1);
  assert.equal(await mem.control.applyTombstones(), undefined, 'nothing more to forget here');
  assert.ok((await traces(mem, 'oat milk')).includes('context'), 'the other turn that said "Noted." stays');
  assert.equal(mem.control.isTombstoned(milk.turnId), false);
  await done(mem);
});

test('K-2: forget removes every trace — tiers, graph, logs, history — and tombstones keep reindex and replay from bringing it back', async () => {
  const { home, mem, mk, turn, sessions, clock, done } = await setup();
  await turn('我住在杭州', '记住了');
  const secret = await turn('The door code is 4711, I live in Reykjavik', 'Noted, 4711.');
  const other = await turn('Remind me about the dentist', 'Sure.');
  mem.context.removeIds([secret.agent.id]);
  mem.archive.putMany([eventDocument(secret.agent, clock.t)]);
  await mem.heartbeats.runOnce('rules');
  assert.ok(mem.graph.matchingFacts(['reykjavik']).length > 0, 'a fact was distilled from it');

  const plan = await mem.control.forgetPreview({ query: '4711' });
  assert.deepEqual(plan.turns.map((x) => x.turnId), [secret.turnId]);
  assert.ok(plan.turns[0].places.includes('context') && plan.turns[0].places.includes('archive') && plan.turns[0].places.includes('session-log'), plan.turns[0].places.join());
  assert.ok(plan.facts.some((f) => /reykjavik/i.test(f.text)), 'the fact said in it goes with it');
  // Said why, and as a triple the page can say as a sentence: the query (4711) is not in the fact.
  const reykjavik = plan.facts.find((f) => /reykjavik/i.test(f.text))!;
  assert.notEqual(reykjavik.reason, 'asked');
  assert.deepEqual(reykjavik.fact, { subject: 'user', predicate: 'lives_in', object: reykjavik.fact?.object });
  assert.match(reykjavik.fact?.object ?? '', /reykjavik/i);
  assert.deepEqual(await traces(mem, '4711'), ['context', 'archive', 'graph', 'recall'], 'a preview changes nothing');

  const res = await mem.control.forget({ turnIds: plan.turns.map((x) => x.turnId), relationIds: plan.facts.map((f) => f.id) });
  assert.equal(res.turns, 1);
  assert.ok(res.sessionEvents >= 2 && res.textLogLines >= 1 && res.relations >= 1, JSON.stringify(res));
  assert.deepEqual(await traces(mem, '4711'), []);
  assert.deepEqual(await traces(mem, 'Reykjavik'), []);
  assert.equal(mem.graph.getEntity('Reykjavik'), undefined, 'an entity left without relations goes');
  // The session log keeps the turn's place, not its text; the text log drops it; other turns stay.
  const logText = fs.readFileSync(path.join(home, 'sessions', fs.readdirSync(path.join(home, 'sessions')).find((f) => f.endsWith('.jsonl'))!), 'utf8');
  assert.doesNotMatch(logText, /4711|Reykjavik/);
  assert.match(logText, /dentist/);
  assert.doesNotMatch(fs.readFileSync(path.join(home, 'logs', 'text.jsonl'), 'utf8'), /4711/);
  assert.ok((await sessions.events('webui:1')).some((e) => e.turnId === secret.turnId && e.data?.redacted === true));
  // No history entry holds it; the forget itself is recorded without text.
  assert.doesNotMatch(JSON.stringify(mem.control.history({ limit: 1000 })), /4711|Reykjavik/i);
  assert.equal(mem.control.history({ kind: 'forget' }).length, 1);
  // Tombstones are hashes, never the text.
  assert.equal(mem.control.isTombstoned(secret.turnId), true);
  assert.equal(mem.control.isTombstoned(other.turnId), false);
  assert.equal(mem.control.isTombstonedContent('The door code is 4711, I live in Reykjavik'), true);
  assert.equal(mem.control.isTombstonedFact('user', 'lives_in', 'reykjavik'), true);
  assert.equal(mem.control.isTombstonedFact('user', 'lives_in', 'Hangzhou'), false);
  const controlDb = fs.readFileSync(path.join(home, 'memory-control.db'));
  // (Words, not "4711": four hex digits turn up in a SHA-256 now and then — the tombstones are hex.)
  for (const w of ['door code', 'Reykjavik']) assert.equal(controlDb.includes(Buffer.from(w)), false, `memory-control.db holds no byte of it (${w})`);
  for (const f of ['documents.db', 'graph.db']) {
    const p = fs.readdirSync(home, { recursive: true }).map(String).find((x) => x.endsWith(f));
    if (p) assert.equal(fs.readFileSync(path.join(home, p)).includes(Buffer.from('Reykjavik')), false, `${f} holds no byte of it (secure delete)`);
  }
  // Nothing brings it back: a reindex, a restart's replay, a distiller re-reading the turn.
  assert.equal((await mem.reindex()).added, 0);
  mem.context.append({ kind: 'user', source: 'webui', channel: 'webui', sessionId: 'webui:1', refs: [secret.turnId], input: 'The door code is 4711', response: '' });
  mem.graph.commit([{ subject: 'user', predicate: 'lives_in', object: 'Reykjavik', refs: [secret.turnId] }]);
  assert.deepEqual(await traces(mem, '4711'), []);
  await mem.close();
  const again = mk();
  await again.open();
  assert.deepEqual(await traces(again, '4711'), []);
  assert.deepEqual(await traces(again, 'dentist'), ['context', 'recall'], 'other turns are untouched');
  await assert.rejects(again.control.undo(again.control.history({ kind: 'forget' })[0].id), { code: 'CONFLICT' });
  await done(again);
});

test('K-2: the knowledge base takes part — an entry holding the words is listed and goes only when ticked; a quote of the turn in another entry is blanked', async () => {
  const { mem, turn, done } = await setup();
  const secret = await turn('My locker combination is 9-31-7 at the gym on Elm Street', 'Got it.');
  // What the agent wrote with knowledge_create: one entry about it, one quoting the turn among other things.
  await mem.knowledge.create('gym', 'Locker combination 9-31-7 (Elm Street gym)');
  await mem.knowledge.create('notes 2026', 'Errands. "My locker combination is 9-31-7 at the gym on Elm Street" — said in chat. Buy milk.');
  await mem.knowledge.create('recipes', 'Pesto: basil, pine nuts');
  const plan = await mem.control.forgetPreview({ query: '9-31-7' });
  assert.deepEqual(plan.turns.map((x) => x.turnId), [secret.turnId]);
  const kb = plan.memories.filter((m) => m.title.startsWith('Knowledge base: '));
  assert.deepEqual(kb.map((m) => m.title).sort(), ['Knowledge base: gym', 'Knowledge base: notes 2026']);
  assert.ok(kb.every((m) => /^[A-Za-z0-9_-]{3,64}$/.test(m.id)), 'ids a forget request accepts');
  // Forget the turn and tick only the "gym" entry.
  const gym = kb.find((m) => m.title.endsWith('gym'))!;
  const res = await mem.control.forget({ turnIds: [secret.turnId], memoryIds: [gym.id] });
  assert.equal(res.memories, 1);
  assert.deepEqual((await mem.knowledge.list()).map((e) => e.name), ['notes 2026', 'recipes']);
  const notes = (await mem.knowledge.get('notes 2026')).content;
  assert.doesNotMatch(notes, /9-31-7/, 'the quote of the forgotten turn is blanked');
  assert.match(notes, /\[forgotten\][\s\S]*Buy milk/, 'the rest of the entry stays');
  assert.equal((await mem.knowledge.search('locker combination')).length, 0);
  // A preview opened on one entry describes it; an id of no entry describes nothing.
  assert.deepEqual((await mem.control.forgetPreview({ memoryIds: ['kb-00000000000000000000000000000000'] })).memories, []);
  // The history of the entries (K-3) keeps nothing of what was forgotten, and forget's own rewrites are not knowledge changes.
  const kbHistory = mem.control.history({ kind: 'knowledge' });
  assert.ok(!JSON.stringify(mem.control.history({ limit: 500 })).includes('9-31-7'), 'no history entry holds the forgotten words');
  assert.deepEqual(kbHistory.map((c) => c.op).sort(), ['create', 'create', 'create'], 'only the three creations, not the delete and the blanking');
  await done(mem);
});

test('K-3: every change of a knowledge entry is in the history with who made it; undo puts the entry back unless it changed since', async () => {
  const { mem, done } = await setup();
  // The agent writes an entry with its tool, in a turn.
  const create = mem.tools().find((t) => t.name === 'knowledge_create')!;
  // (Inside the scope the kernel puts every tool call in: the daemon's toolScope.)
  await mem.control.runAs({ actor: 'agent', tool: 'knowledge_create', turnId: 'webui:1#4' }, () => create.handler({ name: 'router', content: 'Admin page at 192.168.1.1' }, { turnId: 'webui:1#4' } as never));
  // The person corrects it in the WebUI (outside any tool: the user).
  await mem.knowledge.update('router', 'Admin page at 192.168.0.1');
  const h = mem.control.history({ target: 'knowledge:router' });
  assert.deepEqual(
    h.map((c) => [c.op, c.actor, c.tool ?? null, c.turnId ?? null]),
    [
      ['update', 'user', null, null],
      ['create', 'agent', 'knowledge_create', 'webui:1#4'],
    ],
  );
  assert.deepEqual(h[0].before, { content: 'Admin page at 192.168.1.1' });
  assert.deepEqual(h[0].after, { content: 'Admin page at 192.168.0.1' });
  // Writing the same text again changes nothing and records nothing.
  await mem.knowledge.create('router', 'Admin page at 192.168.0.1', { overwrite: true });
  assert.equal(mem.control.history({ target: 'knowledge:router' }).length, 2);
  // Undo of the agent's creation while the person's edit stands: refused, nothing changes.
  await assert.rejects(mem.control.undo(h[1].id), (e: unknown) => e instanceof ConflictError && /changed since/.test(e.message));
  assert.equal((await mem.knowledge.get('router')).content, 'Admin page at 192.168.0.1');
  // Undo the edit, then the creation: the entry is back as the agent wrote it, then gone.
  await mem.control.undo(h[0].id);
  assert.equal((await mem.knowledge.get('router')).content, 'Admin page at 192.168.1.1');
  await mem.control.undo(h[1].id);
  assert.deepEqual(await mem.knowledge.list(), []);
  // A deletion is undone too; the undos are recorded as undos, not as new knowledge edits.
  await mem.knowledge.create('wifi', 'SSID home-5g');
  await mem.knowledge.delete('wifi');
  const del = mem.control.history({ target: 'knowledge:wifi' })[0];
  assert.equal(del.op, 'delete');
  await mem.control.undo(del.id);
  assert.equal((await mem.knowledge.get('wifi')).content, 'SSID home-5g');
  assert.deepEqual(
    mem.control.history({ kind: 'knowledge' }).map((c) => c.op),
    ['undo', 'delete', 'create', 'undo', 'undo', 'update', 'create'],
  );
  await done(mem);
});

test('K-2: bad forget requests get coded errors and change nothing', async () => {
  const { mem, turn, done } = await setup();
  await turn('keep this sentence about tea', 'ok');
  await assert.rejects(mem.control.forgetPreview({}), { code: 'VALIDATION' });
  await assert.rejects(mem.control.forget({ turnIds: 'webui:1#1' as never }), { code: 'VALIDATION' });
  await assert.rejects(mem.control.forget({ memoryIds: ['../../etc/passwd'] }), { code: 'VALIDATION' });
  await assert.rejects(mem.control.exclude(['../x']), { code: 'VALIDATION' });
  // A turn that was never said is refused, not recorded to wait for the day it is.
  await assert.rejects(mem.control.exclude(['nosuch#1']), { code: 'NOT_FOUND' });
  await assert.rejects(mem.control.exclude(['webui:1#99']), { code: 'NOT_FOUND' });
  assert.deepEqual(mem.control.excluded(), []);
  assert.deepEqual(mem.control.history({ kind: 'exclusion' }), []);
  await assert.rejects(mem.control.undo('no-such'), { code: 'NOT_FOUND' });
  assert.ok((await mem.recall.search('tea', { k: 5 })).length > 0);
  await done(mem);
});

test('K-3 / K-4: graph changes are recorded with who made them; undo puts the rows back; a newer single-valued fact supersedes (en, zh)', async () => {
  const { mem, clock, done } = await setup();
  mem.graph.commit([{ subject: 'user', predicate: 'lives_in', object: 'Paris', refs: ['webui:1#1'], validFrom: clock.t }]);
  clock.t += 30 * DAY;
  mem.graph.commit([{ subject: 'user', predicate: 'lives_in', object: 'Berlin', refs: ['webui:1#2'], validFrom: clock.t }]);
  const hist = mem.control.history({ subject: 'Berlin' });
  assert.equal(hist[0].op, 'supersede');
  assert.equal(hist[0].actor, 'user');
  assert.equal(hist[0].turnId, 'webui:1#2');
  const lives = mem.graph.relationsOf('user', 'lives_in');
  assert.deepEqual(lives.map((r) => [r.object, r.validTo == null]), [['Berlin', true], ['Paris', false]], 'Paris kept, closed');
  assert.equal(lives.find((r) => r.object === 'Paris')?.validTo, clock.t);
  // Undo of the move: Paris holds again, Berlin goes.
  const u = await mem.control.undo(hist[0].id);
  assert.equal(u.op, 'undo');
  assert.deepEqual(mem.graph.relationsOf('user', 'lives_in').map((r) => [r.object, r.validTo ?? null]), [['Paris', null]]);
  await assert.rejects(mem.control.undo(hist[0].id), { code: 'CONFLICT' }, 'undone already');
  assert.equal(mem.control.history({ target: hist[0].target })[0].undoOf, hist[0].id);
  await done(mem);
});

test('K-4: "我住在杭州", a month later "我搬到上海了" — distilled from the turns, recall gives 上海 first and still knows 杭州 until the move', async () => {
  const { mem, clock, turn, done } = await setup();
  await turn('我住在杭州', '好的');
  await mem.heartbeats.runOnce('rules');
  clock.t += 30 * DAY;
  const moved = clock.t;
  await turn('我搬到上海了', '恭喜');
  await mem.heartbeats.runOnce('rules');
  const lives = mem.graph.relationsOf('user', 'lives_in');
  assert.deepEqual(lives.map((r) => [r.object, r.validTo == null]), [['上海', true], ['杭州', false]], '杭州 kept, closed');
  assert.ok(Math.abs((lives[1].validTo ?? 0) - moved) < 120_000, 'closed when the move was said');
  const hits = (await mem.recall.search('我住在杭州还是上海', { k: 10, tiers: ['graph'] })).map((h) => h.text);
  assert.match(hits[0], /上海/, `current first: ${hits.join(' | ')}`);
  assert.ok(hits.some((h) => /杭州 \(until \d{4}-\d\d-\d\d\)/.test(h)), 'the old value with its end date');
  const supersede = mem.control.history({ subject: '上海' }).find((c) => c.op === 'supersede');
  assert.ok(supersede, 'the history shows the move');
  assert.match(supersede.summary, /replaces 杭州/);
  assert.equal(supersede.actor, 'heartbeat', 'distilled by the rule loop');
  // The 【记忆索引】 the model reads: 上海 holds, 杭州 ended on the day of the move.
  const fill = await mem.promptSlots().memory_index?.({ sessionId: 'webui:1', turnId: 'webui:1#9', input: '我以前住在杭州吗，现在住在上海吗', consolidation: false });
  const block = typeof fill === 'string' ? fill : (fill?.text ?? '');
  const lines = block.split('\n').filter((l) => /lives_in/.test(l));
  assert.match(lines[0], /上海 \([^)]*\)$/);
  assert.doesNotMatch(lines[0], /until/);
  assert.match(lines[1], new RegExp(`杭州 \\(.*until ${new Date(moved).toISOString().slice(0, 10)}\\)`));
  await done(mem);
});

test('K-4 (en): "I live in Paris", then "I moved to Berlin" — Berlin is current, Paris kept with its end', async () => {
  const { mem, clock, turn, done } = await setup();
  await turn('I live in Paris', 'Nice.');
  await mem.heartbeats.runOnce('rules');
  clock.t += 30 * DAY;
  await turn('I moved to Berlin', 'Congratulations.');
  await mem.heartbeats.runOnce('rules');
  const lives = mem.graph.relationsOf('user', 'lives_in');
  assert.deepEqual(lives.map((r) => [r.object, r.validTo == null]), [['Berlin', true], ['Paris', false]]);
  const hits = (await mem.recall.search('do I live in Paris or Berlin', { k: 10, tiers: ['graph'] })).map((h) => h.text);
  assert.match(hits[0], /Berlin/, hits.join(' | '));
  assert.ok(hits.some((h) => /Paris \(until /.test(h)));
  await done(mem);
});

test('K-2: forget reaches what a chat deletion only hid — a deleted turn of a live session and the log of a deleted session', async () => {
  const { home, mem, turn, sessions, done } = await setup();
  const hidden = await turn('My passport number is X7781234', 'Noted X7781234.');
  await turn('What a nice day', 'Indeed.');
  await sessions.deleteTurns('webui:1', [hidden.turnId], 'turn');
  await sessions.create({ channel: 'webui', id: 'webui:gone' });
  const { turnId: goneTurn } = sessions.nextTurn('webui:gone');
  await sessions.append('webui:gone', { turnId: goneTurn, kind: 'user', text: 'Copy of my passport number is X7781234 again' });
  await sessions.remove('webui:gone');
  const plan = await mem.control.forgetPreview({ query: 'X7781234' });
  assert.ok(plan.turns.some((x) => x.turnId === hidden.turnId && x.places.includes('session-log')), 'the deleted turn is found in the log');
  await mem.control.forget({ turnIds: plan.turns.map((x) => x.turnId), relationIds: plan.facts.map((f) => f.id) });
  for (const f of fs.readdirSync(path.join(home, 'sessions'))) assert.doesNotMatch(fs.readFileSync(path.join(home, 'sessions', f), 'utf8'), /X7781234/, f);
  assert.deepEqual((await sessions.events('webui:1')).map((e) => e.text), ['What a nice day', 'Indeed.'], 'the deletion still hides it');
  const all = await sessions.events('webui:1', { includeDeleted: true });
  assert.deepEqual(all.filter((e) => e.turnId === hidden.turnId && e.kind !== 'marker').map((e) => [e.kind, e.text]), [['user', '[forgotten]'], ['assistant', '[forgotten]']]);
  assert.equal(all.find((e) => e.kind === 'marker')?.data?.op, 'delete', 'the deletion marker keeps what it hides');
  await done(mem);
});

test('decision 0160: the days said in a turn go and come with it — exclude takes them, restore brings them back, forget removes them from both files', async () => {
  const { home, mem, turn, clock, done } = await setup();
  const other = await turn('We talked about the weather yesterday', 'Rainy, yes.');
  const said = await turn('I met Anna at the harbour yesterday', 'Yesterday at the harbour, noted.');
  mem.context.removeIds([said.user.id, said.agent.id]);
  mem.docs.archiveEvents([said.user]);
  mem.archive.putMany([eventDocument(said.agent, clock.t)]);
  const today = new Date(clock.t);
  const y = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1);
  const key = y.getFullYear() * 10_000 + (y.getMonth() + 1) * 100 + y.getDate();
  const query = `Who did I meet on ${y.getDate()} ${y.toLocaleString('en', { month: 'long' })} ${y.getFullYear()}?`;
  const found = async () => (await mem.recall.search(query, { k: 5, now: clock.t + 30 * DAY })).map((h) => h.id);
  assert.deepEqual([mem.docs.daysOf(said.user.id), mem.archive.daysOf(said.agent.id)], [[key], [key]]);
  assert.ok((await found()).includes(said.user.id) && (await found()).includes(said.agent.id));

  await mem.control.exclude([said.turnId]);
  assert.deepEqual([mem.docs.daysOf(said.user.id), mem.archive.daysOf(said.agent.id)], [[], []]);
  assert.ok(!(await found()).some((id) => id === said.user.id || id === said.agent.id));
  await mem.control.restore([said.turnId]);
  assert.deepEqual([mem.docs.daysOf(said.user.id), mem.archive.daysOf(said.agent.id)], [[key], [key]], 'restored with its days');

  await mem.control.forget({ turnIds: [said.turnId] });
  assert.ok(!(await found()).some((id) => id === said.user.id || id === said.agent.id));
  assert.ok((await found()).includes(other.user.id), 'the other turn that says that day, still in the window, is still found');
  await done(mem);
  for (const [file, col] of [['documents.db', 'id'], ['archive.db', 'n']] as const) {
    const db = new Database(path.join(home, 'documents', file), { readonly: true });
    assert.equal(db.prepare(`SELECT count(*) FROM turn_days`).pluck().get(), 0, `${file}: no day of the forgotten turn is left (${col})`);
    db.close();
  }
});

test('K-2 / K-5: a note without a turn forgotten on one install is forgotten on another from its tombstones by its id — not by its text (0320 review fix 1: notes are the agent\'s text)', async () => {
  const note = (id: string, content: string, at: number) => ({ id, content, input: '', response: '', kind: 'commit', source: 'agent', channel: 'webui', sessionId: 'webui:1', createdAt: at, addedAt: at, accessCount: 0, refs: [] as string[] });
  const secret = 'The spare key hides under the blue flowerpot';
  // R holds the note in its archive and forgets it there.
  const r = await setup();
  r.mem.archive.putMany([note('note:key', secret, r.clock.t)]);
  await r.mem.control.forget({ documents: [{ tier: 'archive', id: 'note:key' }] });
  assert.deepEqual(await traces(r.mem, 'flowerpot'), []);
  const refs = r.mem.control.tombstoneRefs().map((x) => x.ref);
  await r.done(r.mem);

  // S held the same note (same id) in its archive, the same text under another id in its archive
  // and its documents, and as a note in its context window; and an unrelated note.
  const s = await setup();
  s.mem.archive.putMany([note('note:key', secret, s.clock.t), note('note:copy', secret, s.clock.t), note('note:bike', 'The bike shop on Elm Street fixes Bromptons', s.clock.t)]);
  s.mem.docs.commit(secret);
  s.mem.context.append({ kind: 'cold_storage', source: 'agent', channel: 'webui', sessionId: 'webui:1', input: secret, response: '' });
  const held = await traces(s.mem, 'flowerpot');
  assert.deepEqual(held, ['context', 'documents', 'archive', 'recall']);
  assert.deepEqual(await s.mem.control.previewTombstones(refs), { turns: 0, facts: 0, documents: 1, files: 0 });
  assert.deepEqual(await traces(s.mem, 'flowerpot'), held, 'a preview changes nothing');
  assert.ok(s.mem.control.addTombstoneRefs(refs.map((ref) => ({ ref, at: 1 }))) > 0);
  const res = await s.mem.control.applyTombstones({ actor: 'import', tool: 'import' });
  assert.deepEqual([res?.archived, res?.documents, res?.contextEvents], [1, 0, 0]);
  assert.ok(!s.mem.archive.has('note:key'), 'the same note (its id) goes');
  assert.ok(s.mem.archive.has('note:copy'), 'the same text under another id stays: a note is not remembered by its text');
  assert.ok(s.mem.archive.has('note:bike'), 'the unrelated note stays');
  assert.equal(await s.mem.control.applyTombstones(), undefined, 'nothing more to forget');
  await s.done(s.mem);
});

test('M-9: a restore that fails part-way keeps the turn excluded with everything it held; a later restore brings all of it back', async () => {
  const { mem, turn, clock, done } = await setup();
  const secret = await turn('My locker combination is 3141', 'Noted: 3141.');
  mem.context.removeIds([secret.user.id, secret.agent.id]);
  mem.docs.archiveEvents([secret.user]);
  mem.archive.putMany([eventDocument(secret.agent, clock.t)]);
  await mem.control.exclude([secret.turnId]);
  assert.deepEqual(await traces(mem, '3141'), []);
  // The archive cannot be written while the restore runs (closed: as a disk error would).
  mem.archive.close();
  await assert.rejects(mem.control.restore([secret.turnId]), (e: Error & { code?: string }) => e.code === 'RESTORE_FAILED' && /stay excluded, nothing is lost/.test(e.message));
  assert.deepEqual(mem.control.excluded(), [secret.turnId], 'still excluded');
  mem.archive.open();
  assert.deepEqual(await traces(mem, '3141'), [], 'what was put back before the failure is aside again');
  const r = await mem.control.restore([secret.turnId]);
  assert.equal(r.turns, 1);
  assert.deepEqual(await traces(mem, '3141'), ['documents', 'archive', 'recall'], 'all of it is back');
  await done(mem);
});

test('K-2: forget blanks the forgotten text in damaged copies set aside (a session log, context.json), leaving the rest as it was', async () => {
  const { home, mem, turn, done } = await setup();
  const secret = await turn('My safe combination is 5-17-42 "left"', 'Noted.');
  const other = 'the ferry leaves at nine';
  const logAside = path.join(home, 'sessions', 'webui%3Aold.jsonl.corrupt-1700000000000');
  const ctxAside = path.join(home, 'context.json.corrupt-1700000000001');
  fs.writeFileSync(logAside, `{"type":"event","text":${JSON.stringify('My safe combination is 5-17-42 "left"')}}\n{"type":"event","text":"${other}"}\n[not json`);
  fs.writeFileSync(ctxAside, `{"events":[{"input":${JSON.stringify('My safe combination is 5-17-42 "left"')}},{"input":"${other}"}`);
  const r = await mem.control.forget({ turnIds: [secret.turnId] });
  assert.equal(r.asideCopies, 2);
  for (const f of [logAside, ctxAside]) {
    const text = fs.readFileSync(f, 'utf8');
    assert.doesNotMatch(text, /5-17-42/);
    assert.match(text, /\[forgotten\]/);
    assert.match(text, /the ferry leaves at nine/, 'the rest stays as it was');
  }
  assert.match(fs.readFileSync(logAside, 'utf8'), /\[not json$/);
  await done(mem);
});

test('decision 0260: every change to memory reaches the change feed — one event per kind per burst, with who, without text', async () => {
  const { mem, turn, done } = await setup();
  const events: MemoryChangedEvent[] = [];
  mem.changes.on((e) => events.push(e));
  const settle = () => new Promise((r) => setTimeout(r, CHANGE_FEED_WINDOW_MS + 150));
  // A distillation adding 200 facts, one commit each, as the heartbeat.
  await withChangeActor({ actor: 'heartbeat', tool: 'distill' }, async () => {
    for (let i = 0; i < 200; i++) mem.graph.commit([{ subject: 'user', predicate: 'likes', object: `Secretfruit ${i}` }]);
  });
  await settle();
  assert.deepEqual(events.filter((e) => e.kind === 'relation').map((e) => e.actors), [['heartbeat']], 'one relation event for the burst');
  events.length = 0;

  // The person forgets a turn (as from `waiter memory forget`): one forget event; an exclusion, a knowledge entry.
  const secret = await turn('The door code is 4711', 'Noted, 4711.');
  const other = await turn('Remind me about the dentist', 'Sure.');
  await mem.control.forget({ turnIds: [secret.turnId] });
  await mem.control.exclude([other.turnId]);
  await mem.knowledge.create('door codes', 'the shed: 4711');
  await settle();
  assert.deepEqual(events.map((e) => `${e.kind}:${e.actors.join()}`).sort(), ['exclusion:user', 'forget:user', 'knowledge:user']);
  // Pruning moves events into the documents (not in the history, but the documents view lists them).
  events.length = 0;
  await mem.control.restore([other.turnId]);
  for (let i = 0; i < 45; i++) await turn(`small talk ${i}`, `reply ${i}`);
  await mem.context.prune('weather');
  await settle();
  assert.ok(events.some((e) => e.kind === 'document'), JSON.stringify(events));
  assert.doesNotMatch(JSON.stringify(events), /4711|Secretfruit|door|dentist|small talk/, 'no text in any event');
  await done(mem);
});
