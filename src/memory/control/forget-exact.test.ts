/**
 * Decision 0320: a forget takes exactly what the person forgot. A reply is remembered only with
 * its message (a pair tombstone), so a long generic reply ("Sorry, this turn failed: …") takes no
 * other turn — here, or where the tombstones are applied; what the person said is remembered by
 * its text, and found quoted elsewhere by the same rule as its tombstone (a CJK character counts
 * twice); the items of a turn by their ids; tombstones an older version recorded keep their
 * meaning. Real SQLite files, session logs and text log; a simulated clock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { contentHash, pairHash, turnHash } from './tombstone-hash.js';
import { setup, traces } from '../__fixtures__/memory-on-disk.js';

const FAIL = 'Sorry, this turn failed: the provider did not answer in time.';
const PIN = 'My bank PIN is 8642, keep it safe';
const PASSPORT = 'Noted: your passport number is X1234567.';
const FILE = 'notes.txt: the safe combination is 31-7-22';

/** A turn that called a tool, as the kernel logs it (the message, the tool's result, the reply). */
async function toolTurn(s: Awaited<ReturnType<typeof setup>>, input: string, output: string, reply: string): Promise<string> {
  const { turnId } = s.sessions.nextTurn('webui:1');
  await s.sessions.append('webui:1', { turnId, kind: 'user', text: input });
  await s.sessions.append('webui:1', { turnId, kind: 'tool_call', text: 'cat', data: { arguments: '{"path":"notes.txt"}' } });
  await s.sessions.append('webui:1', { turnId, kind: 'tool_result', text: output });
  await s.sessions.append('webui:1', { turnId, kind: 'assistant', text: reply });
  return turnId;
}

test('0320: a long generic reply goes with its turn — another turn that got the same reply keeps it, here and when the tombstones are applied', async () => {
  const { mem, turn, sessions, done } = await setup();
  const pin = await turn(PIN, FAIL);
  const peru = await turn('What is the capital of Peru?', FAIL);
  const res = await mem.control.forget({ turnIds: [pin.turnId] });
  assert.equal(res.turns, 1);
  assert.deepEqual(await traces(mem, '8642'), []);
  // The other turn's reply is not a quote of what was forgotten: its log keeps it.
  const log = await sessions.events('webui:1');
  assert.ok(log.some((e) => e.turnId === peru.turnId && e.kind === 'assistant' && e.text === FAIL && !e.data?.redacted), JSON.stringify(log));
  assert.ok(log.filter((e) => e.turnId === pin.turnId).every((e) => e.data?.redacted), 'the forgotten turn is redacted whole');
  // What is remembered: the message by its text, the reply only with its message.
  assert.equal(mem.control.isTombstonedContent(PIN), true);
  assert.equal(mem.control.isTombstonedContent(FAIL), false, 'a reply alone is no tombstone');
  assert.equal(mem.control.isTombstonedPair(PIN, FAIL), true);
  assert.equal(mem.control.isTombstonedPair('What is the capital of Peru?', FAIL), false);
  // Applied later (after an import brought any tombstone): nothing more goes.
  assert.equal(await mem.control.applyTombstones(), undefined);
  assert.ok((await traces(mem, 'Peru')).includes('context'));
  assert.ok((await sessions.events('webui:1')).some((e) => e.turnId === peru.turnId && e.text === FAIL));
  await done(mem);
});

test('0320: on another install, a turn goes by what was said in it — its message, or its message with its reply — never by a reply alone', async () => {
  // R forgets two turns: a secret message with the generic reply, and "ok" with a reply that says it all.
  const r = await setup();
  const pin = await r.turn(PIN, FAIL);
  const passport = await r.turn('ok', PASSPORT);
  const file = await toolTurn(r, 'ok', FILE, 'Done.');
  await r.mem.control.forget({ turnIds: [pin.turnId, passport.turnId, file] });
  // Under another session id (an import that kept both), turn ids tell nothing: only what was said can.
  const refs = r.mem.control.tombstoneRefs().map((x) => x.ref).filter((ref) => !ref.startsWith('sha256:turn:'));
  assert.ok(refs.includes(`sha256:pair:${pairHash('ok', PASSPORT)}`), 'the "ok" turn is remembered with its reply');
  assert.ok(refs.includes(`sha256:pair:${pairHash('ok', FILE)}`), 'what a tool gave the turn, with its message');
  assert.ok(![PASSPORT, FAIL, FILE].some((x) => refs.includes(`sha256:content:${contentHash(x)}`)), 'no answer alone');
  assert.ok(!refs.includes(`sha256:content:${contentHash('ok')}`), 'nor a short message');
  await r.done(r.mem);

  // S holds copies under other turn ids (another session id on import, say) and turns of its own.
  const s = await setup();
  await s.turn('First things first', 'Sure.');
  const peru = await s.turn('What is the capital of Peru?', FAIL);
  const copyPair = await s.turn('ok', PASSPORT);
  const copyMessage = await s.turn(PIN, 'Got it.');
  const okSure = await s.turn('ok', 'Sure, done.');
  const joke = await s.turn('Tell me a joke about passports', PASSPORT);
  const copyFile = await toolTurn(s, 'ok', FILE, 'Done.');
  const otherFile = await toolTurn(s, 'What does my notes file say?', FILE, 'It holds a combination.');
  assert.deepEqual(await s.mem.control.previewTombstones(refs), { turns: 3, facts: 0, documents: 0, files: 0 });
  s.mem.control.addTombstoneRefs(refs.map((ref) => ({ ref, at: 1 })));
  const res = await s.mem.control.applyTombstones({ actor: 'import', tool: 'import' });
  assert.equal(res?.turns, 3);
  const log = await s.sessions.events('webui:1', { includeDeleted: true });
  const gone = (id: string) => log.filter((e) => e.turnId === id).every((e) => e.data?.redacted);
  assert.ok(gone(copyPair.turnId), 'the same reply to the same "ok" goes');
  assert.ok(gone(copyMessage.turnId), 'what the person said goes, whatever was answered');
  assert.ok(gone(copyFile), 'the same tool output for the same "ok" goes');
  for (const kept of [peru.turnId, okSure.turnId, joke.turnId, otherFile]) assert.ok(!gone(kept), `${kept} stays`);
  assert.equal(await s.mem.control.applyTombstones(), undefined, 'nothing more to forget');
  await s.done(s.mem);
});

test('0320: quotes of what was said are found by the rule of its tombstone — a short Chinese secret is, a short generic reply is not (zh, en)', async () => {
  const { mem, turn, sessions, home, done } = await setup();
  const zh = await turn('门锁密码是4711', '好的');
  const quoting = await turn('我之前说过：门锁密码是4711，别忘了', '好的');
  const okZh = await turn('好的', '好的');
  const en = await turn('The gate code is 1357', 'OK.');
  const quotingEn = await turn('Did I say "The gate code is 1357" yesterday?', 'You did.');
  const okEn = await turn('OK.', 'OK.');
  await mem.control.forget({ turnIds: [zh.turnId, en.turnId] });
  const log = await sessions.events('webui:1', { includeDeleted: true });
  const redacted = (id: string, kind: string) => log.find((e) => e.turnId === id && e.kind === kind)?.data?.redacted === true;
  assert.ok(redacted(quoting.turnId, 'user'), 'the message quoting the Chinese secret is redacted');
  assert.ok(redacted(quotingEn.turnId, 'user'), 'the message quoting the English one too');
  assert.ok(!redacted(quoting.turnId, 'assistant') && !redacted(okZh.turnId, 'user') && !redacted(okZh.turnId, 'assistant'), '好的 is said everywhere: not a quote');
  assert.ok(!redacted(okEn.turnId, 'user') && !redacted(quotingEn.turnId, 'assistant'), 'nor is OK.');
  const text = fs.readFileSync(path.join(home, 'logs', 'text.jsonl'), 'utf8');
  assert.doesNotMatch(text, /4711|1357/, 'the text log keeps no quote of them either');
  assert.match(text, /好的/);
  await done(mem);
});

test('0320: each item of a forgotten turn is remembered by its id — not by a text it produced', async () => {
  const { mem, turn, done } = await setup();
  const t = await turn('ok', 'Sure.');
  const doc = mem.docs.add({ content: 'A note the agent wrote in that turn: the boat is moored at pier 9', sessionId: 'webui:1', refs: [t.turnId] });
  await mem.control.forget({ turnIds: [t.turnId] });
  for (const id of [t.user.id, t.agent.id, doc.id]) assert.equal(mem.control.isTombstonedDocument(id), true, id);
  assert.equal(mem.control.isTombstonedContent(doc.content), false, 'a text the turn produced is no content tombstone');
  assert.equal(mem.control.isTombstonedDocument('another-id'), false);
  await done(mem);
});

test('0320: tombstones an older version recorded keep their meaning — a text of any turn, a turn by its id — across a reopen', async () => {
  const { home, mem, mk, turn, sessions, done } = await setup();
  const a = await turn('What time is it in Lima?', 'It is nine in the morning in Lima right now.');
  const b = await turn('Where do I park at the office?', 'Level -2, spot 118, next to the lifts.');
  const c = await turn('Something else entirely', 'Fine.');
  await mem.close();
  // What an older version wrote: a content tombstone of a reply (it recorded one for every text
  // of a turn) and a turn tombstone, straight into memory-control.db.
  const db = new Database(path.join(home, 'memory-control.db'));
  db.prepare('INSERT INTO tombstones(hash, kind, at) VALUES (?, ?, ?)').run(contentHash('It is nine in the morning in Lima right now.'), 'content', 1);
  db.prepare('INSERT INTO tombstones(hash, kind, at) VALUES (?, ?, ?)').run(turnHash(b.turnId), 'turn', 1);
  db.close();
  const again = mk();
  await again.open();
  assert.equal(again.control.isTombstoned(b.turnId), true);
  assert.equal(again.control.isTombstonedContent('It is nine in the morning in Lima right now.'), true);
  const res = await again.control.applyTombstones();
  assert.equal(res?.turns, 2, 'the turn whose reply an older forget named, and the turn by its id');
  const log = await sessions.events('webui:1', { includeDeleted: true });
  assert.ok(log.filter((e) => e.turnId === a.turnId || e.turnId === b.turnId).every((e) => e.data?.redacted));
  assert.ok(log.filter((e) => e.turnId === c.turnId).every((e) => !e.data?.redacted));
  await done(again);
});

test('0320: a fact\'s sentence and a note are the model\'s text — forgetting them takes no message of the person that says the same, here or where the tombstones go', async () => {
  const { mem, turn, sessions, done } = await setup();
  const THANKS = 'thanks so much for your help';
  const LENA = `My daughter Lena starts school on Monday, ${THANKS}`;
  const NOTE = 'The person likes to start the week with a plan';
  // The model sets a fact's sentence freely (memory_commit), and writes notes (doc_commit).
  mem.graph.commit([{ subject: 'user', predicate: 'says', object: 'thanks', sentence: THANKS }]);
  const fact = mem.graph.relations({ limit: 10, offset: 0 }).items.find((r) => r.sentence === THANKS)!;
  const note = mem.docs.add({ content: NOTE, sessionId: 'webui:1', refs: [] });
  const lena = await turn(LENA, 'Good luck to Lena!');
  const week = await turn(NOTE, 'Noted.');
  const res = await mem.control.forget({ relationIds: [fact.id], documents: [{ tier: 'document', id: note.id }] });
  assert.equal(res.relations, 1);
  assert.equal(res.documents, 1);
  const log = await sessions.events('webui:1', { includeDeleted: true });
  for (const t of [lena, week]) assert.ok(log.filter((e) => e.turnId === t.turnId).every((e) => !e.data?.redacted), `${t.turnId}: the person's message is not a quote of the model's text`);
  assert.equal(mem.control.isTombstonedContent(THANKS), false, 'no content tombstone of a fact sentence');
  assert.equal(mem.control.isTombstonedContent(NOTE), false, 'nor of a note');
  assert.equal(mem.control.isTombstonedDocument(note.id), true, 'the note goes by its id');
  // Applied again (after an import): the person's turns stay.
  assert.equal(await mem.control.applyTombstones(), undefined);
  assert.ok((await traces(mem, 'Lena')).includes('context'));
  await done(mem);
});

test('0320: a forget made here is not applied again by text when an import brings other tombstones — the person\'s other turns that said the same stay', async () => {
  const { mem, turn, sessions, done } = await setup();
  const HELLO = 'Hello! How can I help you today?';
  const ASK = 'What is the weather like in Lima?';
  const hi1 = await turn('hi', HELLO);
  const hi2 = await turn('hi', HELLO);
  const ask1 = await turn(ASK, 'Sunny, 24 degrees.');
  const ask2 = await turn(ASK, 'Cloudy, 19 degrees.');
  await mem.control.forget({ turnIds: [hi1.turnId, ask1.turnId] });
  assert.equal(mem.control.isTombstonedPair('hi', HELLO), true, 'the pair is distinctive (it weighs ≥ 12)');
  const kept = (id: string) => mem.context.events().some((e) => e.refs?.includes(id));
  assert.ok(kept(hi2.turnId) && kept(ask2.turnId), 'the forget took the turns asked for, by id');
  // An import brings a tombstone new here (a forget made elsewhere of something else): only it is applied.
  const other = `sha256:turn:${turnHash('webui:9#1')}`;
  assert.equal(mem.control.addTombstoneRefs([{ ref: other, at: 1 }]), 1);
  assert.equal(await mem.control.applyTombstones({ actor: 'import', tool: 'import' }, { refs: [other] }), undefined);
  assert.ok(kept(hi2.turnId), 'the second "hi" stays');
  assert.ok(kept(ask2.turnId), 'the question asked again stays');
  const log = await sessions.events('webui:1', { includeDeleted: true });
  assert.ok(log.filter((e) => e.turnId === hi2.turnId).every((e) => !e.data?.redacted));
  assert.ok(log.some((e) => e.turnId === ask2.turnId && e.kind === 'assistant' && !e.data?.redacted), 'its answer stays');
  // An import's tombstone that names what is here still takes it.
  const ref = `sha256:pair:${pairHash('hi', HELLO)}`;
  assert.equal((await mem.control.applyTombstones({}, { refs: [ref] }))?.turns, 1, 'given as new, the pair takes the turn that has it');
  assert.ok(!kept(hi2.turnId));
  await done(mem);
});

test('0320: a turn with no message (proactive) is remembered by its reply paired with "" — a copy under another turn id goes, a person\'s turn with the same answer stays', async () => {
  const BRIEF = 'Good morning! Your dentist appointment is at 9:00 today.';
  /** A proactive turn as the kernel would log it from a heartbeat with no chat message: a reply only. */
  const proactive = async (s: Awaited<ReturnType<typeof setup>>) => {
    const { turnId } = s.sessions.nextTurn('webui:1');
    await s.sessions.append('webui:1', { turnId, kind: 'assistant', text: BRIEF });
    s.mem.context.append({ source: 'heartbeat', channel: 'webui', sessionId: 'webui:1', refs: [turnId], kind: 'agent', input: '', response: BRIEF });
    return turnId;
  };
  const r = await setup();
  const p = await proactive(r);
  await r.mem.control.forget({ turnIds: [p] });
  assert.equal(r.mem.control.isTombstonedPair('', BRIEF), true, 'its reply, with no message');
  assert.equal(r.mem.control.isTombstonedContent(BRIEF), false, 'never a content tombstone of a reply');
  const refs = r.mem.control.tombstoneRefs().map((x) => x.ref).filter((ref) => !ref.startsWith('sha256:turn:') && !ref.startsWith('sha256:document:'));
  assert.deepEqual(refs, [`sha256:pair:${pairHash('', BRIEF)}`]);
  await r.done(r.mem);

  // Another install (or a session renamed by keep-both): turn ids tell nothing.
  const s = await setup();
  await s.turn('First things first', 'Sure.');
  const asked = await s.turn('What is on today?', BRIEF);
  const copy = await proactive(s);
  s.mem.control.addTombstoneRefs(refs.map((ref) => ({ ref, at: 1 })));
  assert.deepEqual(await s.mem.control.previewTombstones(refs), { turns: 1, facts: 0, documents: 0, files: 0 });
  assert.equal((await s.mem.control.applyTombstones({}, { refs }))?.turns, 1);
  const log = await s.sessions.events('webui:1', { includeDeleted: true });
  assert.ok(log.filter((e) => e.turnId === copy).every((e) => e.data?.redacted), 'the copy of the proactive turn goes');
  assert.ok(log.filter((e) => e.turnId === asked.turnId).every((e) => !e.data?.redacted), 'a turn that asked and got the same answer stays');
  await s.done(s.mem);
});

test('0430: an interrupt joined to a forgotten turn is what the person said — remembered by its text, its copies elsewhere go', async () => {
  const { mem, sessions, done } = await setup();
  const INTERRUPT = 'wait, the garage code is actually 9911-X';
  const { turnId } = sessions.nextTurn('webui:1');
  await sessions.append('webui:1', { turnId, kind: 'user', text: 'Tell me about my garage' });
  await sessions.append('webui:1', { turnId, kind: 'interrupt', text: INTERRUPT });
  await sessions.append('webui:1', { turnId, kind: 'assistant', text: 'Noted.' });
  // A copy in another turn (a tool quoting it back).
  const other = sessions.nextTurn('webui:1').turnId;
  await sessions.append('webui:1', { turnId: other, kind: 'user', text: 'What did I say?' });
  await sessions.append('webui:1', { turnId: other, kind: 'tool_result', text: `earlier: ${INTERRUPT}` });
  await sessions.append('webui:1', { turnId: other, kind: 'assistant', text: 'You told me a code.' });
  await mem.control.forget({ turnIds: [turnId] });
  assert.equal(mem.control.isTombstonedContent(INTERRUPT), true);
  const log = await sessions.events('webui:1');
  assert.doesNotMatch(JSON.stringify(log), /9911-X/);
  assert.ok(log.some((e) => e.turnId === other && e.kind === 'assistant' && e.text === 'You told me a code.'), 'the rest of the other turn stays');
  await done(mem);
});

test('0430: a fact forgotten by itself takes its own history, not that of the other facts its sentence gave', async () => {
  const { mem, turn, done } = await setup();
  const SENTENCE = 'Hello! My name is Alex and I live in Berlin.';
  const t = await turn(SENTENCE, 'Nice to meet you.');
  mem.graph.commit([
    { subject: 'you', predicate: 'name', object: 'Alex', refs: [t.turnId], sentence: SENTENCE },
    { subject: 'you', predicate: 'lives in', object: 'Berlin', refs: [t.turnId], sentence: SENTENCE },
  ]);
  const facts = mem.graph.matchingFacts(['you']);
  const name = facts.find((r) => r.object === 'Alex')!;
  const city = facts.find((r) => r.object === 'Berlin')!;
  await mem.control.forget({ relationIds: [name.id] });
  const history = mem.control.history({ limit: 100 });
  const about = (id: number) => history.filter((h) => h.target === `relation:${id}`);
  assert.ok(about(name.id).length > 0 && about(name.id).every((h) => h.redacted), 'the forgotten fact’s entries are redacted');
  assert.ok(about(city.id).length > 0 && about(city.id).every((h) => !h.redacted), 'the other fact from the same sentence keeps its history');
  // The fact and its entity are gone from the history; the sentence (the person's message, kept) stays.
  assert.doesNotMatch(JSON.stringify(history), /name Alex|"name":"Alex"/);
  await done(mem);
});

test('a turn found by what a tool answered in it is shown in the preview by what the person said, not as a blank line', async () => {
  const s = await setup();
  try {
    const turnId = await toolTurn(s, 'Where do I live now?', 'user lives_in 龙井村 (fact #4)', 'Here is what I found.');
    const plan = await s.mem.control.forgetPreview({ query: '龙井村' });
    const t = plan.turns.find((x) => x.turnId === turnId);
    assert.ok(t, JSON.stringify(plan.turns));
    assert.match(t.text, /Where do I live now\?/);
  } finally {
    await s.done(s.mem);
  }
});
