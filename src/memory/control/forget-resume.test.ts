/**
 * Decision 0410 over the real memory system on disk: a forget cut off after its commit point (here a
 * step that fails — the session log could not be rewritten — as a kill would) is finished at the
 * next open: the log and the history lose the text too, the forget is in the history once, and
 * its record (which held the texts) is gone from the file. An unreadable record is given up, said
 * in the log; the tombstones stay in effect.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openMemoryAt, traces } from '../__fixtures__/memory-on-disk.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-forget-resume-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const SECRET = 'the alarm code is ORCA-5150';
const SID = 'webui:1';

async function world() {
  const home = path.join(root, `h${n++}`);
  fs.mkdirSync(home, { recursive: true });
  const clock = { t: Date.UTC(2026, 0, 1) };
  const a = await openMemoryAt(home, clock);
  await a.sessions.create({ channel: 'webui', id: SID });
  const say = async (input: string, reply: string) => {
    clock.t += 60_000;
    const { turnId } = a.sessions.nextTurn(SID);
    await a.sessions.append(SID, { turnId, kind: 'user', text: input });
    await a.sessions.append(SID, { turnId, kind: 'assistant', text: reply });
    const base = { source: 'webui', channel: 'webui', sessionId: SID, refs: [turnId] };
    a.mem.context.append({ ...base, kind: 'user', input, response: '' });
    a.mem.context.append({ ...base, kind: 'agent', input: '', response: reply });
    return turnId;
  };
  return { home, clock, ...a, say };
}

const logText = (home: string) => fs.readdirSync(path.join(home, 'sessions')).map((f) => fs.readFileSync(path.join(home, 'sessions', f), 'utf8')).join('\n');
const pendingRows = (home: string) => {
  const db = new Database(path.join(home, 'memory-control.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM forget_pending').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

test('0410: a forget cut off after its commit point is finished at the next open — the log and the history lose the text, the record goes', async () => {
  const w = await world();
  const secret = await w.say(`Remember: ${SECRET}`, 'Noted, the alarm code.');
  await w.say('What a lovely day', 'It is.');
  // A fact of the secret, recorded in the history with its text.
  w.mem.graph.commit([{ subject: 'alarm', predicate: 'code', object: 'ORCA-5150', refs: [secret] }]);
  assert.match(JSON.stringify(w.mem.control.history({ limit: 100 })), /ORCA-5150/);
  const rewrite = w.sessions.redactAll.bind(w.sessions);
  w.sessions.redactAll = async () => {
    throw new Error('disk full');
  };
  await assert.rejects(w.mem.control.forget({ turnIds: [secret] }), /disk full/);
  // Committed: the tiers are clean and the tombstones hold; the log still has it, and the record.
  assert.deepEqual(await traces(w.mem, 'ORCA-5150'), []);
  assert.ok(w.mem.control.isTombstoned(secret));
  assert.match(logText(w.home), /ORCA-5150/);
  w.sessions.redactAll = rewrite;
  await w.close();
  assert.equal(pendingRows(w.home), 1);

  const again = await openMemoryAt(w.home, w.clock);
  assert.doesNotMatch(logText(w.home), /ORCA-5150/, 'the next open finished it');
  const history = again.mem.control.history({ limit: 100 });
  assert.doesNotMatch(JSON.stringify(history), /ORCA-5150/);
  assert.equal(history.filter((h) => h.op === 'forget').length, 1, 'recorded once, by the run that finished it');
  assert.match(logText(w.home), /What a lovely day/, 'the other turn stays');
  await again.close();
  assert.equal(pendingRows(w.home), 0);
  const bytes = fs.readFileSync(path.join(w.home, 'memory-control.db'));
  assert.ok(!bytes.includes(Buffer.from('ORCA-5150')), 'the record held the texts; nothing of it is left in the file');
});

test('0410: an unreadable record of a forget is given up at open, said in the log; the forget’s tombstones stay', async () => {
  const w = await world();
  const secret = await w.say(`Remember: ${SECRET}`, 'Noted.');
  await w.mem.control.forget({ turnIds: [secret] });
  await w.close();
  const db = new Database(path.join(w.home, 'memory-control.db'));
  db.prepare('INSERT INTO forget_pending(key, body, at) VALUES (?, ?, ?)').run('k1', '{not json', 1);
  db.close();
  const again = await openMemoryAt(w.home, w.clock);
  assert.ok(again.warnings.some((m) => /gave up finishing a forget that was cut off \(its record is unreadable\)/.test(m)), again.warnings.join('\n'));
  assert.ok(again.mem.control.isTombstoned(secret));
  await again.close();
  assert.equal(pendingRows(w.home), 0);
});

const owedRows = (home: string) => {
  const db = new Database(path.join(home, 'memory-control.db'), { readonly: true });
  try {
    return db.prepare('SELECT participant, starts FROM forget_owed ORDER BY participant').all() as { participant: string; starts: number }[];
  } finally {
    db.close();
  }
};
const fileHas = (home: string, text: string) =>
  ['memory-control.db', 'memory-control.db-wal'].some((f) => fs.existsSync(path.join(home, f)) && fs.readFileSync(path.join(home, f)).includes(Buffer.from(text)));

/** A plugin's participant (the library, timers): what it was asked to remove and to drop. */
function pluginParticipant(fail = false) {
  const calls: { removed: string[][]; scrubbed: { texts: string[]; turnIds: string[] }[] } = { removed: [], scrubbed: [] };
  const p = {
    find: async () => [],
    describe: async () => [],
    remove: async (ids: string[]) => {
      if (fail) throw new Error('disk full');
      calls.removed.push(ids);
      return { removed: ids.length, texts: ['the pinned alarm note'] };
    },
    scrub: async (texts: string[], turnIds: string[]) => {
      calls.scrubbed.push({ texts, turnIds });
      return 1;
    },
  };
  return { p, calls };
}

test('0420: a forget finished at open before a plugin registered its participant gives that participant its part when it registers', async () => {
  const w = await world();
  const secret = await w.say(`Remember: ${SECRET}`, 'Noted, the alarm code.');
  // The plugin's participant fails inside the forget, after its commit point (a kill would too).
  const broken = pluginParticipant(true);
  w.mem.control.registerForgetParticipant('pins', broken.p);
  await assert.rejects(w.mem.control.forget({ turnIds: [secret], memoryIds: ['mem-alarm'] }), /disk full/);
  await w.close();

  const again = await openMemoryAt(w.home, w.clock);
  // Finished at open — before any plugin started: what the plugin holds is owed to it.
  assert.doesNotMatch(logText(w.home), /ORCA-5150/);
  assert.equal(pendingRows(w.home), 0);
  assert.deepEqual(owedRows(w.home).map((r) => r.participant), ['pins']);
  const late = pluginParticipant();
  again.mem.control.registerForgetParticipant('pins', late.p);
  // Taken in the control's queue; `settled` says when (a plugin awaits it before delivering anything).
  assert.equal(late.calls.scrubbed.length, 0, 'not yet: queued');
  await again.mem.control.settled('pins');
  assert.deepEqual(late.calls.removed, [['mem-alarm']], 'the memory the person ticked is removed');
  assert.equal(late.calls.scrubbed.length, 1);
  assert.ok(late.calls.scrubbed[0].texts.some((t) => t.includes('ORCA-5150')), 'what quotes the forgotten message is dropped');
  assert.deepEqual(late.calls.scrubbed[0].turnIds, [secret], 'and what was made in the forgotten turn');
  assert.ok(again.warnings.every((m) => !/could not take its part/.test(m)), again.warnings.join('\n'));
  await again.close();
  assert.deepEqual(owedRows(w.home), [], 'the debt is paid');
  assert.ok(!fileHas(w.home, 'ORCA-5150'), 'the debt held the texts; nothing of it is left in the file');
});

test('0420: a debt taken also redacts the removed memories’ texts where memory was copied (a tool result, the history), not a message that says the same', async () => {
  const w = await world();
  const secret = await w.say(`Remember: ${SECRET}`, 'Noted, the alarm code.');
  const other = await w.say('Show me my pinned notes', 'Here they are.');
  // The agent read the pinned memory in another turn: its text is in a tool result there.
  await w.sessions.append(SID, { turnId: other, kind: 'tool_result', text: 'library_read → the pinned alarm note' });
  // The person said the same words in a message of their own: not a copy of the memory.
  await w.say('I wrote the pinned alarm note myself', 'Good.');
  // A change of the plan recorded the memory's text (another target than the memory's id).
  w.mem.control.record({ kind: 'plan', target: 'plan', op: 'plan.add', summary: 'pinned a note', after: { snapshot: 'the pinned alarm note' } });
  w.mem.control.registerForgetParticipant('pins', pluginParticipant(true).p);
  await assert.rejects(w.mem.control.forget({ turnIds: [secret], memoryIds: ['mem-alarm'] }), /disk full/);
  await w.close();

  const again = await openMemoryAt(w.home, w.clock);
  assert.match(logText(w.home), /library_read → the pinned alarm note/, 'the forget at open could not know the memory’s text');
  const late = pluginParticipant();
  again.mem.control.registerForgetParticipant('pins', late.p);
  await again.mem.control.settled('pins');
  assert.deepEqual(late.calls.removed, [['mem-alarm']]);
  const log = logText(w.home);
  assert.doesNotMatch(log, /library_read → the pinned alarm note/, 'the tool result that copied the memory is redacted');
  assert.match(log, /I wrote the pinned alarm note myself/, 'the person’s own message stays');
  assert.doesNotMatch(JSON.stringify(again.mem.control.history({ limit: 100 })), /the pinned alarm note/, 'the history entry that held it is redacted');
  await again.close();
});

test('0420 (review): a debt whose payment fails after the memories were removed keeps their texts, and the retry still redacts their copies', async () => {
  const w = await world();
  const secret = await w.say(`Remember: ${SECRET}`, 'Noted, the alarm code.');
  const other = await w.say('Show me my pinned notes', 'Here they are.');
  await w.sessions.append(SID, { turnId: other, kind: 'tool_result', text: 'library_read → the pinned alarm note' });
  w.mem.control.registerForgetParticipant('pins', pluginParticipant(true).p);
  await assert.rejects(w.mem.control.forget({ turnIds: [secret], memoryIds: ['mem-alarm'] }), /disk full/);
  await w.close();

  const again = await openMemoryAt(w.home, w.clock);
  // The plugin removes the memory; then the payment fails: the debt stays, with the memory's text.
  let removedOnce = false;
  const flaky = {
    find: async () => [],
    describe: async () => [],
    remove: async (ids: string[]) => {
      const first = !removedOnce;
      removedOnce = true;
      return { removed: first ? ids.length : 0, texts: first ? ['the pinned alarm note'] : [] };
    },
    scrub: async () => {
      throw new Error('disk full');
    },
  };
  again.mem.control.registerForgetParticipant('pins', flaky);
  // …and the copies cannot be redacted this time (the session logs could not be rewritten).
  again.sessions.redactAll = async () => {
    throw new Error('disk full');
  };
  await again.mem.control.settled('pins');
  assert.ok(again.warnings.some((m) => /could not take its part/.test(m)), again.warnings.join('\n'));
  await again.close();
  assert.deepEqual(owedRows(w.home).map((r) => r.participant), ['pins'], 'still owed');

  const third = await openMemoryAt(w.home, w.clock);
  const late = pluginParticipant();
  late.p.remove = async () => ({ removed: 0, texts: [] });
  third.mem.control.registerForgetParticipant('pins', late.p);
  await third.mem.control.settled('pins');
  assert.doesNotMatch(logText(w.home), /library_read → the pinned alarm note/, 'the retry knew the removed memory’s text');
  await third.close();
  assert.deepEqual(owedRows(w.home), []);
  assert.ok(!fileHas(w.home, 'the pinned alarm note'), 'the debt held the text; nothing of it is left in the file');
});

test('0420 (review): a removed memory with a short title ("Work") does not take, when its debt is paid, the history entries that merely say it', async () => {
  const w = await world();
  const secret = await w.say(`Remember: ${SECRET}`, 'Noted.');
  w.mem.control.record({ kind: 'plan', target: 'plan', op: 'plan.add', summary: 'pinned "Work trip checklist"', after: { title: 'Work trip checklist' } });
  w.mem.control.registerForgetParticipant('pins', pluginParticipant(true).p);
  await assert.rejects(w.mem.control.forget({ turnIds: [secret], memoryIds: ['mem-work'] }), /disk full/);
  await w.close();
  const again = await openMemoryAt(w.home, w.clock);
  const p = pluginParticipant();
  p.p.remove = async (ids: string[]) => ({ removed: ids.length, texts: ['Work'] });
  again.mem.control.registerForgetParticipant('pins', p.p);
  await again.mem.control.settled('pins');
  assert.match(JSON.stringify(again.mem.control.history({ limit: 100 })), /Work trip checklist/);
  await again.close();
});

test('0420: a forget given up at open after three failed runs still gives a plugin not started yet its part', async () => {
  const w = await world();
  const secret = await w.say(`Remember: ${SECRET}`, 'Noted, the alarm code.');
  w.mem.control.registerForgetParticipant('pins', pluginParticipant(true).p);
  await assert.rejects(w.mem.control.forget({ turnIds: [secret], memoryIds: ['mem-alarm'] }), /disk full/);
  await w.close();
  // Its runs at three opens failed (counted in its record): the next open gives it up.
  const db = new Database(path.join(w.home, 'memory-control.db'));
  db.prepare('UPDATE forget_pending SET tries = 3').run();
  db.close();

  const again = await openMemoryAt(w.home, w.clock);
  assert.equal(pendingRows(w.home), 0, 'given up');
  assert.ok(again.warnings.some((m) => /gave up finishing a forget that was cut off \(it failed three times\).*what pins hold of it is owed to them/.test(m)), again.warnings.join('\n'));
  assert.ok(again.mem.control.isTombstoned(secret), 'its tombstones stay in effect');
  assert.deepEqual(owedRows(w.home).map((r) => r.participant), ['pins']);
  const late = pluginParticipant();
  again.mem.control.registerForgetParticipant('pins', late.p);
  await again.mem.control.settled('pins');
  assert.deepEqual(late.calls.removed, [['mem-alarm']], 'the memory the person ticked is removed');
  assert.equal(late.calls.scrubbed.length, 1);
  assert.ok(late.calls.scrubbed[0].texts.some((t) => t.includes('ORCA-5150')), 'what quotes the forgotten message is dropped');
  assert.deepEqual(late.calls.scrubbed[0].turnIds, [secret]);
  await again.close();
  assert.deepEqual(owedRows(w.home), []);
  assert.ok(!fileHas(w.home, 'ORCA-5150'), 'the record and the debt held the texts; nothing of them is left in the file');
});

test('0420: what a plugin that never starts again is owed is given up after three starts, said in the log', async () => {
  const w = await world();
  const secret = await w.say(`Remember: ${SECRET}`, 'Noted.');
  w.mem.control.registerForgetParticipant('pins', pluginParticipant(true).p);
  await assert.rejects(w.mem.control.forget({ turnIds: [secret], memoryIds: ['mem-alarm'] }), /disk full/);
  await w.close();
  // Start 1 finishes the forget and owes the plugin its part; it could have taken it in starts 1–3.
  for (let start = 1; start <= 4; start++) {
    const again = await openMemoryAt(w.home, w.clock);
    const gaveUp = again.warnings.some((m) => /the pins participant did not start in three starts/.test(m));
    await again.close();
    assert.equal(gaveUp, start === 4, `start ${start}: ${again.warnings.join('\n')}`);
    assert.equal(owedRows(w.home).length, start === 4 ? 0 : 1);
  }
  assert.ok(!fileHas(w.home, 'ORCA-5150'));
});
