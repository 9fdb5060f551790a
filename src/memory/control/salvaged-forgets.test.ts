/**
 * Decision 0280 over the whole memory: what the person forgot stays forgotten when
 * memory-control.db is found corrupt at start — the tombstones read back from the damaged file
 * keep replay, reindex and the tiers from bringing it back, and a copy of the old conversation log
 * put back is forgotten again. Real SQLite files, session logs and text log; a simulated clock.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { MemorySystem } from '../memory-system.js';
import { openMemoryAt } from '../__fixtures__/memory-on-disk.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-salvaged-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const SECRET = 'The door code is 4711, I live in Reykjavik';

/** Where the secret still is: window, documents, archive, graph, recall. */
async function traces(mem: MemorySystem, word: string): Promise<string[]> {
  const out: string[] = [];
  if (mem.context.events().some((e) => `${e.input} ${e.response}`.includes(word))) out.push('context');
  if (mem.docs.list().some((d) => d.content.includes(word))) out.push('documents');
  if (mem.archive.list({ limit: 10_000 }).some((d) => d.content.includes(word))) out.push('archive');
  if ((await mem.recall.search(word, { k: 50 })).some((h) => h.text.includes(word))) out.push('recall');
  return out;
}

/**
 * A data folder where a turn was forgotten, with a copy of its conversation log from before the
 * forget (a backup, an older export's log) — what could bring it back.
 */
async function forgottenTurn() {
  const home = path.join(root, `h${n++}`);
  fs.mkdirSync(home, { recursive: true });
  const clock = { t: Date.UTC(2026, 0, 1) };
  const a = await openMemoryAt(home, clock);
  await a.sessions.create({ channel: 'webui', id: 'webui:1' });
  const say = async (input: string, reply: string) => {
    clock.t += 60_000;
    const { turnId } = a.sessions.nextTurn('webui:1');
    await a.sessions.append('webui:1', { turnId, kind: 'user', text: input });
    await a.sessions.append('webui:1', { turnId, kind: 'assistant', text: reply });
    await a.textLog.append({ role: 'user', text: input, sessionId: 'webui:1', turnId });
    const base = { source: 'webui', channel: 'webui', sessionId: 'webui:1', refs: [turnId] };
    a.mem.context.append({ ...base, kind: 'user', input, response: '' });
    a.mem.context.append({ ...base, kind: 'agent', input: '', response: reply });
    return turnId;
  };
  await say('I like green tea', 'Noted.');
  const secret = await say(SECRET, 'Noted, 4711.');
  await say('Remind me about the dentist', 'Sure.');
  const logFile = path.join(home, 'sessions', fs.readdirSync(path.join(home, 'sessions')).find((f) => f.endsWith('.jsonl'))!);
  const oldLog = fs.readFileSync(logFile);
  const res = await a.mem.control.forget({ turnIds: [secret] });
  assert.equal(res.turns, 1);
  assert.deepEqual(await traces(a.mem, '4711'), []);
  // A few more changes, so the history spans pages of its own.
  for (let i = 0; i < 30; i++) a.mem.control.record({ kind: 'knowledge', target: `knowledge:k${i}`, op: 'create', summary: `created ${i}`, after: { content: 'note '.repeat(300) } });
  await a.close();
  return { home, clock, secret, logFile, oldLog, file: path.join(home, 'memory-control.db') };
}

function overwritePage(file: string, page: number): void {
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, randomBytes(4096), 0, 4096, (page - 1) * 4096);
  fs.closeSync(fd);
}

function historyPage(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    const pages = db.prepare("SELECT pageno FROM dbstat WHERE name = 'history' AND pagetype = 'leaf' ORDER BY pageno").pluck().all() as number[];
    return pages[Math.floor(pages.length / 2)];
  } finally {
    db.close();
  }
}

const damages: [string, (file: string) => void][] = [
  ['a page in the middle overwritten with garbage', (f) => overwritePage(f, historyPage(f))],
  ['a garbage header', (f) => {
    const fd = fs.openSync(f, 'r+');
    fs.writeSync(fd, randomBytes(100), 0, 100, 0);
    fs.closeSync(fd);
  }],
];

for (const [what, damage] of damages) {
  test(`0280: forgotten stays forgotten with memory-control.db damaged (${what}): the old log put back is not replayed but forgotten again`, async () => {
    const f = await forgottenTurn();
    damage(f.file);
    // The log from before the forget is back (a backup restored by hand, an older export's copy).
    fs.writeFileSync(f.logFile, f.oldLog);
    const b = await openMemoryAt(f.home, f.clock);
    const aside = b.mem.setAside().find((s) => s.store === 'memory-control');
    assert.ok(aside?.salvaged, 'set aside, with what was read back of it');
    assert.ok((aside.salvaged.tombstones ?? 0) >= 2, `the turn's tombstones: ${JSON.stringify(aside.salvaged)}`);
    assert.equal(aside.salvaged.tombstonesLostAtMost, 0, 'nothing of the tombstones is lost');
    assert.equal(b.mem.control.isTombstoned(f.secret), true);
    // The kinds of decision 0320 are read back too: the message by its text, the exchange as a pair.
    assert.equal(b.mem.control.isTombstonedContent(SECRET), true);
    assert.equal(b.mem.control.isTombstonedPair(SECRET, 'Noted, 4711.'), true);
    assert.deepEqual(await traces(b.mem, '4711'), [], 'not replayed into the window at open');
    assert.equal((await b.mem.reindex()).added, 0, 'a reindex brings nothing back');
    assert.deepEqual(await traces(b.mem, '4711'), []);
    assert.doesNotMatch(fs.readFileSync(f.logFile, 'utf8'), /4711/, 'the old log put back was forgotten again');
    assert.match(fs.readFileSync(f.logFile, 'utf8'), /dentist/, 'the rest of it stays');
    assert.ok(b.warnings.some((w) => /forget tombstones \(none lost\)/.test(w)), b.warnings.join('\n'));
    await b.close();
  });
}

test('0280: a memory-control.db of garbage gives nothing back — the loss is reported as unknown, and the forgotten turn comes back from an old log by a reindex (why an import is still refused then)', async () => {
  const f = await forgottenTurn();
  fs.writeFileSync(f.file, 'garbage '.repeat(1000));
  fs.writeFileSync(f.logFile, f.oldLog);
  const b = await openMemoryAt(f.home, f.clock);
  const aside = b.mem.setAside().find((s) => s.store === 'memory-control');
  const sv = aside?.salvaged;
  assert.deepEqual({ tombstones: sv?.tombstones, lost: sv?.tombstonesLostAtMost, exclusions: sv?.exclusions, changes: sv?.changes, read: sv?.read }, { tombstones: 0, lost: null, exclusions: 0, changes: 0, read: 0 });
  assert.equal(b.mem.control.isTombstoned(f.secret), false);
  assert.ok((await b.mem.reindex()).added > 0 && (await traces(b.mem, '4711')).includes('archive'), 'a reindex brings it back from the old log: nothing is there to stop it');
  assert.ok(b.warnings.some((w) => /0 forget tombstones \(an unknown number could not be read\)/.test(w)), b.warnings.join('\n'));
  await b.close();
});
