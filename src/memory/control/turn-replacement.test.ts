/**
 * Decision 0550 over the real memory system on disk (SQLite tiers, session logs): a turn replaced by
 * a regenerate or an edit-and-resend leaves the context window, the documents, the archive and the
 * graph (a fact only it supports), is not recalled by the new turn, and stays out through a reindex,
 * a restart and the ingest gates — the new message is remembered once. A failed send puts it back;
 * a turn replaced while excluded does not come back on a restore.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConflictError, REPLACES_META_KEY } from '../../spec/index.js';
import { chatAt, openMemoryAt, traces } from '../__fixtures__/memory-on-disk.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-replace-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const SID = 'webui:1';
const LOCK = 'I live in Reykjavik and my bike lock code is 8086';

type World = Awaited<ReturnType<typeof chatAt>>;

/** What the WebUI's resend writes in the log: the turn deleted, the message logged again as a new turn, tagged with what it replaces. */
async function resend(w: World, turnId: string, text: string, meta: Record<string, unknown>): Promise<string> {
  await w.sessions.deleteTurns(SID, [turnId], 'turn');
  const { turnId: by } = w.sessions.nextTurn(SID);
  await w.sessions.append(SID, { turnId: by, kind: 'user', text, data: { source: 'webui', trigger: 'user', meta } });
  return by;
}

/** What the kernel then does with the new turn: its message and reply in the window (and the reply in the log). */
async function answer(w: World, by: string, text: string, reply: string): Promise<void> {
  await w.sessions.append(SID, { turnId: by, kind: 'assistant', text: reply, data: { status: 'ok' } });
  const base = { source: 'webui', channel: 'webui', sessionId: SID, refs: [by] };
  w.mem.context.append({ ...base, kind: 'user', input: text, response: '' });
  w.mem.context.append({ ...base, kind: 'agent', input: text, response: reply });
}

/** The turns of the messages recall finds holding `word`, one entry per copy of a message (any tier). */
async function recalledMessages(w: { mem: World['mem'] }, word: string): Promise<string[]> {
  const hits = (await w.mem.recall.search(word, { k: 50 })).filter((h) => h.tier !== 'graph' && h.kind === 'user' && h.text.includes(word));
  return hits.map((h) => h.turnId ?? '?').sort();
}

/** The turns whose copies (a message or a reply, any tier) recall finds holding `word`. */
async function recalledTurns(w: { mem: World['mem'] }, word: string): Promise<string[]> {
  const hits = (await w.mem.recall.search(word, { k: 50 })).filter((h) => h.tier !== 'graph' && h.text.includes(word));
  return [...new Set(hits.map((h) => h.turnId ?? '?'))].sort();
}

/** A turn said, distilled, and sunk out of the window as ageing does: its message in the documents, its reply in the archive. */
async function lockTurn(w: World) {
  const lock = await w.say(LOCK, 'Noted: the lock code is 8086.');
  const other = await w.say('I like kayaking on weekends', 'Lovely.');
  await w.mem.heartbeats.runOnce('rules');
  // A fact both turns support, and one only the lock turn does.
  w.mem.graph.commit([{ subject: 'user', predicate: 'owns', object: 'red bicycle', refs: [other.turnId] }]);
  w.mem.graph.commit([{ subject: 'user', predicate: 'owns', object: 'red bicycle', refs: [lock.turnId] }]);
  w.sink(lock);
  return { lock, other };
}

test('0550: a regenerated turn leaves every tier before the new one runs; the message is remembered once, by the new turn — through reindex and a restart', async () => {
  const w = await chatAt(root);
  const { lock, other } = await lockTurn(w);
  const before = await traces(w.mem, '8086');
  assert.ok(before.includes('documents') && before.includes('archive') && before.includes('recall'), before.join());
  assert.deepEqual(w.mem.graph.matchingFacts(['reykjavik']).map((f) => f.refs?.includes(lock.turnId)), [true], 'the home fact cites the lock turn');

  let duringSend: string[] = ['(not called)'];
  const r = await w.mem.control.replaceTurn(lock.turnId, async (meta) => {
    assert.deepEqual(meta, { [REPLACES_META_KEY]: lock.turnId });
    duringSend = await traces(w.mem, '8086');
    return resend(w, lock.turnId, LOCK, meta);
  });
  assert.equal(r.replaced, true);
  assert.ok(r.removed >= 3, `message, reply and fact left the tiers (${r.removed})`);
  assert.deepEqual(duringSend, [], 'taken out before the new message is sent: the new turn cannot recall the old one (nor its fact)');
  const homeNow = w.mem.graph.matchingFacts(['reykjavik']);
  assert.deepEqual(
    homeNow.map((f) => [f.refs?.includes(r.turnId), f.refs?.includes(lock.turnId)]),
    [[true, false]],
    'the fact only the replaced turn supported went with it, and is back at once from the new message',
  );
  const bicycle = w.mem.graph.matchingFacts(['bicycle']);
  assert.deepEqual(bicycle.map((k) => k.refs), [[other.turnId]], 'a fact another turn supports stays, without the replaced source');
  assert.deepEqual(await recalledTurns(w, 'bike lock'), [], 'nothing of it until the new turn runs');

  await answer(w, r.turnId, LOCK, 'Noted again: 8086.');
  await w.mem.heartbeats.runOnce('rules');
  assert.deepEqual(await recalledMessages(w, 'bike lock'), [r.turnId], 'recall finds the message once, in the new turn');
  assert.deepEqual(await recalledTurns(w, '8086'), [r.turnId], 'and no reply of the old one');
  const home = w.mem.graph.matchingFacts(['reykjavik']);
  assert.deepEqual(home.map((f) => [f.refs?.includes(r.turnId), f.refs?.includes(lock.turnId)]), [[true, false]], 'the fact is back, from the new turn alone');

  // The ingest gates keep the replaced turn out: the window, the graph, reindex.
  w.mem.context.append({ kind: 'user', source: 'webui', channel: 'webui', sessionId: SID, refs: [lock.turnId], input: LOCK, response: '' });
  w.mem.graph.commit([{ subject: 'user', predicate: 'uses', object: 'bike lock 8086', refs: [lock.turnId] }]);
  assert.equal(w.mem.graph.matchingFacts(['uses']).length, 0);
  assert.equal((await w.mem.reindex()).added, 0, 'reindex brings nothing back');
  assert.deepEqual(await recalledMessages(w, 'bike lock'), [r.turnId]);
  assert.deepEqual(await recalledTurns(w, '8086'), [r.turnId]);

  // The history says it, and it cannot be undone; the log keeps the old turn (the chat shows it deleted, as before).
  const [entry] = w.mem.control.history({ kind: 'replacement' });
  assert.equal(entry.target, lock.turnId);
  assert.equal(entry.summary, `replaced turn ${lock.turnId} with ${r.turnId}`);
  assert.equal(entry.actor, 'user');
  await assert.rejects(w.mem.control.undo(entry.id), ConflictError);
  const logged = await w.sessions.events(SID, { includeDeleted: true });
  assert.ok(logged.some((e) => e.turnId === lock.turnId && e.text === LOCK), 'the log still holds the replaced turn');
  assert.ok(!(await w.sessions.events(SID)).some((e) => e.turnId === lock.turnId), 'shown deleted');
  await w.close();

  const again = await openMemoryAt(w.home, w.clock);
  assert.deepEqual(await recalledMessages(again, 'bike lock'), [r.turnId], 'after a restart: once');
  assert.equal((await again.mem.reindex()).added, 0);
  assert.deepEqual(await recalledMessages(again, 'bike lock'), [r.turnId]);
  assert.deepEqual(await recalledTurns(again, '8086'), [r.turnId]);
  await again.close();
});

test('0550: edit-and-resend — the old wording is nowhere in memory, the new one once', async () => {
  const w = await chatAt(root);
  const q = await w.say('Remind me: the parcel locker pin is 4417', 'I will remember 4417.');
  await w.say('Thanks', 'You are welcome.');
  const edited = 'Remind me: the parcel locker pin is 5529';
  const r = await w.mem.control.replaceTurn(q.turnId, (meta) => resend(w, q.turnId, edited, meta));
  await answer(w, r.turnId, edited, 'I will remember 5529.');
  assert.deepEqual(await traces(w.mem, '4417'), [], 'the old wording and its reply are in no tier');
  assert.deepEqual(await recalledMessages(w, '5529'), [r.turnId], 'the new message, once');
  assert.equal((await w.mem.reindex()).added, 0);
  assert.deepEqual(await traces(w.mem, '4417'), []);
  await w.close();
});

test('0550: a send that fails puts everything back where it was; the gate opens again', async () => {
  const w = await chatAt(root);
  const { lock } = await lockTurn(w);
  const before = await traces(w.mem, '8086');
  const facts = w.mem.graph.matchingFacts(['reykjavik']).map((f) => [f.subject, f.predicate, f.object, f.refs]);
  await assert.rejects(
    w.mem.control.replaceTurn(lock.turnId, async () => {
      throw new Error('disk full');
    }),
    /disk full/,
  );
  assert.deepEqual(await traces(w.mem, '8086'), before);
  assert.deepEqual(await recalledMessages(w, 'bike lock'), [lock.turnId], 'the message, once');
  assert.deepEqual(await recalledTurns(w, '8086'), [lock.turnId]);
  assert.deepEqual(w.mem.graph.matchingFacts(['reykjavik']).map((f) => [f.subject, f.predicate, f.object, f.refs]), facts, 'its fact is back');
  assert.equal(w.mem.control.blocks(lock.turnId), false);
  assert.deepEqual(w.mem.control.history({ kind: 'replacement' }), []);
  await w.close();
  const again = await openMemoryAt(w.home, w.clock);
  assert.deepEqual(await recalledMessages(again, 'bike lock'), [lock.turnId], 'nothing left to settle at the next open');
  await again.close();
});

test('0550: a turn replaced while excluded does not come back when the exclusion is restored', async () => {
  const w = await chatAt(root);
  const { lock } = await lockTurn(w);
  await w.mem.control.exclude([lock.turnId]);
  const r = await w.mem.control.replaceTurn(lock.turnId, (meta) => resend(w, lock.turnId, LOCK, meta));
  await answer(w, r.turnId, LOCK, 'Noted again.');
  await w.mem.control.restore([lock.turnId]);
  assert.deepEqual(await recalledMessages(w, 'bike lock'), [r.turnId], 'once, in the new turn');
  assert.deepEqual(await recalledTurns(w, '8086'), [r.turnId]);
  assert.deepEqual(w.mem.graph.matchingFacts(['reykjavik']).map((f) => [f.refs?.includes(r.turnId), f.refs?.includes(lock.turnId)]), [[true, false]], 'the fact held with the exclusion is not put back; the new message gave it again');
  await w.close();
});

test('0550: a prune that scored the replaced turn before it went does not move it into the documents', async () => {
  const w = await chatAt(root);
  const lock = await w.say(LOCK, 'Noted: 8086.');
  for (let i = 0; i < 45; i++) await w.say(`Small talk ${i} about lunch`, `Reply ${i}.`);
  // The prune takes its snapshot and scores; the replacement happens meanwhile (the scoring waits for it).
  const ctx = w.mem.context as unknown as { score: (...a: unknown[]) => Promise<unknown> };
  const score = ctx.score.bind(ctx);
  let release!: () => void;
  const replaced = new Promise<void>((r) => (release = r));
  ctx.score = async (...a: unknown[]) => {
    const out = await score(...a);
    await replaced;
    return out;
  };
  const pruning = w.mem.context.prune('lunch');
  const r = await w.mem.control.replaceTurn(lock.turnId, (meta) => resend(w, lock.turnId, LOCK, meta));
  release();
  await pruning;
  assert.ok(w.mem.docs.size > 0, 'the prune moved the other turns');
  await answer(w, r.turnId, LOCK, 'Noted again.');
  assert.deepEqual(await recalledMessages(w, 'bike lock'), [r.turnId]);
  assert.deepEqual(await recalledTurns(w, '8086'), [r.turnId]);
  assert.equal(w.mem.docs.hasTurn(lock.turnId), false);
  await w.close();
});

test('0600: a finished replacement is not swept again at the next open — only an import\'s swapped tiers make it unfinished again', async () => {
  const w = await chatAt(root);
  const { lock } = await lockTurn(w);
  // The old message's warm copy, as an older copy of the tiers would hold it.
  const [docId] = w.mem.docs.idsOfTurn(lock.turnId);
  const oldCopy = w.mem.docs.get(docId)!;
  const r = await w.mem.control.replaceTurn(lock.turnId, (meta) => resend(w, lock.turnId, LOCK, meta));
  assert.equal(r.replaced, true);
  assert.deepEqual(await w.mem.control.reconcile(), { replacements: 0, exclusions: 0 }, 'done: an open has nothing of it to sweep');
  await w.close();

  const again = await openMemoryAt(w.home, w.clock);
  try {
    assert.deepEqual(await again.mem.control.reconcile(), { replacements: 0, exclusions: 0 }, 'nor after a restart');
    // An import swaps the tiers' files: what they hold was never swept. Here the old copy comes back
    // with them (put into the live tier behind the gate, as a swapped file would bring it).
    again.mem.docs.restore([oldCopy], [undefined]);
    assert.ok(again.mem.docs.hasTurn(lock.turnId));
    await again.mem.withTiersClosed(async () => undefined);
    assert.equal(again.mem.docs.hasTurn(lock.turnId), false, 'the reopen swept it again');
    assert.deepEqual(await again.mem.control.reconcile(), { replacements: 0, exclusions: 0 }, 'and marked it done again');
  } finally {
    await again.close();
  }
});

test('0600: an undo that writes a fact of a replaced turn back makes that replacement unfinished: the next open sweeps it out again', async () => {
  const w = await chatAt(root);
  const { lock } = await lockTurn(w);
  const [home] = w.mem.graph.matchingFacts(['reykjavik']);
  assert.ok(home.refs?.includes(lock.turnId));
  // The person deletes the fact, then edits the turn it came from (the new wording does not say
  // where they live), then undoes the delete.
  assert.equal(w.mem.graph.deleteRelation(home.id), true);
  const deleted = w.mem.control.history({ target: `relation:${home.id}` }).find((c) => c.op === 'delete');
  assert.ok(deleted, JSON.stringify(w.mem.control.history({ target: `relation:${home.id}` })));
  assert.equal((await w.mem.control.replaceTurn(lock.turnId, (meta) => resend(w, lock.turnId, 'my bike lock code is 8086', meta))).replaced, true);
  const newHome = () => w.mem.graph.matchingFacts(['reykjavik']).filter((f) => f.refs?.includes(lock.turnId));
  assert.deepEqual(newHome(), []);
  await w.mem.control.undo(deleted.id);
  assert.equal(newHome().length, 1, 'the undo brought the fact back citing the replaced turn');
  assert.deepEqual(await w.mem.control.reconcile(), { replacements: 1, exclusions: 0 }, 'the replacement is swept again');
  assert.deepEqual(newHome(), [], 'and the old turn is out of the graph again');
  await w.close();
});

test('0700: an undo that writes back a fact naming only an event id of the replaced turn makes the replacement unfinished: the next open sweeps the fact out', async () => {
  const w = await chatAt(root);
  const { lock } = await lockTurn(w);
  // A fact citing the turn's message by its event id alone (as a distiller that read the message,
  // not the turn, cites it): [lock.user.id], not the turn id.
  w.mem.graph.commit([{ subject: 'user', predicate: 'rides', object: 'a tandem bicycle', refs: [lock.user.id] }]);
  const [tandem] = w.mem.graph.matchingFacts(['tandem']);
  assert.deepEqual(tandem.refs, [lock.user.id]);
  assert.equal(w.mem.graph.deleteRelation(tandem.id), true);
  const deleted = w.mem.control.history({ target: `relation:${tandem.id}` }).find((c) => c.op === 'delete');
  assert.ok(deleted);
  assert.equal((await w.mem.control.replaceTurn(lock.turnId, (meta) => resend(w, lock.turnId, 'my bike lock code is 8086', meta))).replaced, true);
  await w.mem.control.undo(deleted.id);
  assert.equal(w.mem.graph.matchingFacts(['tandem']).length, 1, 'the undo brought the fact back, citing the replaced turn\'s message');
  await w.close();

  const again = await openMemoryAt(w.home, w.clock);
  try {
    assert.deepEqual(again.mem.graph.matchingFacts(['tandem']), [], 'the open swept the replaced turn again: the fact made from it is gone');
    assert.deepEqual(await again.mem.control.reconcile(), { replacements: 0, exclusions: 0 }, 'and marked it done again');
  } finally {
    await again.close();
  }
});

test('0700: the ids a sweep tied to a replaced turn are kept with it, and go when the turn is forgotten', async () => {
  const w = await chatAt(root);
  const { lock } = await lockTurn(w);
  assert.equal((await w.mem.control.replaceTurn(lock.turnId, (meta) => resend(w, lock.turnId, LOCK, meta))).replaced, true);
  await w.close();
  const refsOf = (turnId: string) => {
    const db = new Database(path.join(w.home, 'memory-control.db'), { readonly: true });
    try {
      return db.prepare('SELECT ref FROM turn_refs WHERE turn_id = ?').pluck().all(turnId) as string[];
    } finally {
      db.close();
    }
  };
  assert.ok(refsOf(lock.turnId).includes(lock.user.id), 'the message\'s event id is tied to the replaced turn');
  const again = await openMemoryAt(w.home, w.clock);
  await again.mem.control.forget({ turnIds: [lock.turnId] });
  await again.close();
  assert.deepEqual(refsOf(lock.turnId), [], 'forgotten: nothing of its items\' ids stays');
});
