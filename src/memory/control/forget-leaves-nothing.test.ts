/**
 * Decision 0400 over the real memory system on disk: after a forget, no file of the data folder
 * holds the forgotten text — not a page a row moved out of as the databases grew, not a copy
 * written before secure delete was on, not another turn quoting it in a tier, not a damaged copy set
 * aside — and a part that could not be done is reported, not swallowed.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { chatAt, openMemoryAt, traces } from '../__fixtures__/memory-on-disk.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-forget-nothing-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const SECRET = 'ZEBRA-SECRET-4711';

/** Every file under `dir` whose bytes hold `word` (as UTF-8), by its path from `dir`. */
function filesHolding(dir: string, word: string): string[] {
  const out: string[] = [];
  const needle = Buffer.from(word, 'utf8');
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (fs.readFileSync(p).includes(needle)) out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

const world = () => chatAt(root);

test('0400: a secret that every tier held, and that rows written after it pushed around the pages, is in no file of the data folder after the forget', async () => {
  const w = await world();
  await w.say('Hello there, how are you today?', 'Fine thanks.');
  const secret = await w.say(`My locker code is ${SECRET} please remember it`, `Noted: your locker code is ${SECRET}.`);
  w.sink(secret);
  w.mem.graph.commit([{ subject: 'user', predicate: 'locker_code', object: SECRET, refs: [secret.turnId] }]);
  // Sixty more turns: the tables' pages split and move their rows (the old copies of the secret's
  // rows stayed in the page's free space when secure delete was on only during a forget).
  for (let i = 0; i < 60; i++) {
    const x = await w.say(`unrelated question number ${i} about trains and buses on the coast`, `unrelated answer ${i} `.repeat(5));
    w.sink(x);
    w.mem.graph.commit([{ subject: `station ${i}`, predicate: 'near', object: `harbour ${i}`, refs: [x.turnId] }]);
  }
  await w.mem.docs.whenIdle?.();
  assert.ok(filesHolding(w.home, SECRET).length >= 4, 'the secret is on disk before the forget');

  const res = await w.mem.control.forget({ turnIds: [secret.turnId] });
  assert.equal(res.unfinished, undefined, JSON.stringify(res.unfinished));
  assert.ok(res.relations >= 1 && res.documents >= 1 && res.archived >= 1, JSON.stringify(res));
  assert.deepEqual(await traces(w.mem, SECRET), []);
  // The turns that stay are all still there.
  assert.equal(w.mem.archive.list({ limit: 1000 }).length, 60);
  await w.close();
  assert.deepEqual(filesHolding(w.home, SECRET), []);
  assert.deepEqual(filesHolding(w.home, 'zebra'), [], 'no index term of it either');
});

test('0400: a copy an older install left in a page (secure delete off) goes with the rebuild after the next forget', async () => {
  const w = await world();
  const a = await w.say('What is the weather like?', 'Sunny.');
  w.mem.graph.commit([{ subject: 'user', predicate: 'gate_code', object: SECRET, refs: [a.turnId] }]);
  const other = await w.say('Tell me a joke', 'Why did the chicken cross the road?');
  await w.close();
  // An older version deleted the fact without secure delete: its bytes stay in the freed space.
  const raw = new Database(path.join(w.home, 'graph.db'));
  raw.pragma('secure_delete = OFF');
  raw.prepare('DELETE FROM relation_sources').run();
  raw.prepare('DELETE FROM relations').run();
  raw.prepare("DELETE FROM entities WHERE name <> 'user'").run();
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.close();
  assert.deepEqual(filesHolding(w.home, SECRET).filter((f) => f.startsWith('graph.db')), ['graph.db'], 'the old bytes are there');

  const again = await openMemoryAt(w.home, w.clock);
  // Any forget rebuilds the files after it.
  await again.mem.control.forget({ turnIds: [other.turnId] });
  await again.close();
  assert.deepEqual(filesHolding(w.home, SECRET).filter((f) => f.startsWith('graph.db')), []);
});

test('0400: damaged copies set aside — a database with its WAL, a plugin JSON file — are blanked; the database copy keeps its size', async () => {
  const w = await world();
  const secret = await w.say(`My locker code is ${SECRET} please remember it`, 'Noted.');
  w.mem.graph.commit([{ subject: 'user', predicate: 'locker_code', object: `${SECRET}`, refs: [secret.turnId] }]);
  w.mem.graph.commit([{ subject: 'user', predicate: 'note', object: `My locker code is ${SECRET} please remember it`, refs: [secret.turnId] }]);
  // Copies as a salvage sets them aside (decision 0250): the database file, its WAL, a plan file.
  const graph = path.join(w.home, 'graph.db');
  const aside = `${graph}.corrupt-1767225600000`;
  const probe = new Database(graph);
  probe.pragma('wal_checkpoint(TRUNCATE)');
  probe.close();
  fs.copyFileSync(graph, aside);
  fs.writeFileSync(`${aside}-wal`, Buffer.concat([Buffer.alloc(64, 1), Buffer.from(`My locker code is ${SECRET} please remember it`), Buffer.alloc(64, 2)]));
  const plan = path.join(w.home, 'plugins', 'memory-manager', 'pinned', 'plan.json.corrupt-1767225600000');
  fs.mkdirSync(path.dirname(plan), { recursive: true });
  fs.writeFileSync(plan, JSON.stringify({ pinned: [{ text: `My locker code is ${SECRET} please remember it` }] }));
  const media = path.join(w.home, 'media', 'x.corrupt-1');
  fs.mkdirSync(path.dirname(media), { recursive: true });
  fs.writeFileSync(media, `My locker code is ${SECRET} please remember it`);
  const size = fs.statSync(aside).size;

  const res = await w.mem.control.forget({ turnIds: [secret.turnId] });
  assert.equal(res.asideCopies, 3, JSON.stringify(res));
  await w.close();
  assert.deepEqual(filesHolding(w.home, SECRET), ['media/x.corrupt-1'], 'only the media file, which is no copy the daemon set aside');
  assert.equal(fs.statSync(aside).size, size);
  assert.ok(fs.readFileSync(plan, 'utf8').includes('[forgotten]'));
  // The copy is still a database the salvage can read.
  const copy = new Database(aside, { readonly: true });
  assert.ok((copy.prepare('SELECT count(*) AS n FROM entities').get() as { n: number }).n >= 1);
  copy.close();
});

test('0400: a participant that fails to scrub is reported in `unfinished`; the rest of the forget is done and the count of what others dropped is kept', async () => {
  const w = await world();
  const secret = await w.say(`My locker code is ${SECRET} please remember it`, 'Noted.');
  const seen: { texts: string[]; turnIds: string[] }[] = [];
  const offA = w.mem.control.registerForgetParticipant('broken', {
    find: async () => [],
    describe: async () => [],
    remove: async () => ({ removed: 0, texts: [] }),
    scrub: async () => {
      throw new Error('disk full');
    },
  });
  const offB = w.mem.control.registerForgetParticipant('reminders', {
    find: async () => [],
    describe: async () => [],
    remove: async () => ({ removed: 0, texts: [] }),
    scrub: async (texts, turnIds) => {
      seen.push({ texts, turnIds });
      return 2;
    },
  });
  const res = await w.mem.control.forget({ turnIds: [secret.turnId] });
  offA();
  offB();
  assert.deepEqual(res.unfinished?.map((u) => u.part), ['broken']);
  assert.match(res.unfinished![0].message, /disk full/);
  assert.equal(res.elsewhere, 2);
  assert.deepEqual(seen[0].turnIds, [secret.turnId], 'a participant is told which turns went');
  assert.ok(seen[0].texts.some((x) => x.includes(SECRET)));
  assert.deepEqual(await traces(w.mem, SECRET), []);
  await w.close();
  assert.deepEqual(filesHolding(w.home, SECRET), []);
});

test('0430: the daemon’s log files are blanked in place where an error quoted the forgotten message; the other lines stay, the size too', async () => {
  const w = await world();
  const secret = await w.say(`My locker code is ${SECRET} please remember it`, 'Noted.');
  const logs = path.join(w.home, 'logs');
  const line = (msg: string) => `${JSON.stringify({ t: '2026-01-01T00:00:00Z', level: 'error', scope: 'homed', msg })}\n`;
  const homed = path.join(logs, 'homed.log');
  fs.writeFileSync(homed, line('starting homed') + line(`provider said: bad request for "My locker code is ${SECRET} please remember it"`) + line('memory tiers open'));
  fs.writeFileSync(path.join(logs, 'homed.log.1'), line(`an older file quoting My locker code is ${SECRET} please remember it`));
  // A large log that never rotates, the quote across the first 1 MiB read and again at its end.
  const quote = `My locker code is ${SECRET} please remember it`;
  const big = path.join(logs, 'supervisor.log');
  const pad = 'x'.repeat((1 << 20) - 20);
  fs.writeFileSync(big, `${pad}${quote}\n${'y'.repeat(1 << 20)}${quote}\n`);
  const bigSize = fs.statSync(big).size;
  const size = fs.statSync(homed).size;
  // A logger holding the file open for appending (as the daemon's does) keeps writing after it.
  const fd = fs.openSync(homed, 'a');
  const res = await w.mem.control.forget({ turnIds: [secret.turnId] });
  fs.writeSync(fd, line('after the forget'));
  fs.closeSync(fd);
  assert.equal(res.daemonLogs, 3);
  assert.equal(fs.statSync(big).size, bigSize);
  assert.doesNotMatch(fs.readFileSync(big, 'utf8'), new RegExp(SECRET), 'found across a chunk boundary and at the end');
  const text = fs.readFileSync(homed, 'utf8');
  assert.doesNotMatch(text, new RegExp(SECRET));
  assert.equal(fs.statSync(homed).size, size + Buffer.byteLength(line('after the forget')), 'blanked in place, byte for byte; the append landed after');
  const lines = text.trim().split('\n').map((l) => JSON.parse(l) as { msg: string });
  assert.deepEqual(lines.map((l) => l.msg.slice(0, 16)), ['starting homed', 'provider said: b', 'memory tiers ope', 'after the forget'], 'every line still parses; the others are as they were');
  await w.close();
  assert.deepEqual(filesHolding(w.home, SECRET), []);
});

test('0430: a quote escaped in a log line — twice JSON-escaped, or with \\u escapes as a provider echoes it (lower or upper hex) — is blanked too, and one an error clipped, as far as it goes; every line still parses', async () => {
  const w = await world();
  const quote = `我的储物柜 "密码" 是 ${SECRET}，请记住`;
  const secret = await w.say(quote, '记下了。');
  const logs = path.join(w.home, 'logs');
  const line = (msg: string) => `${JSON.stringify({ t: '2026-01-01T00:00:00Z', level: 'error', scope: 'homed', msg })}\n`;
  /** A JSON body as Python's json.dumps writes it: every non-ASCII character as \uXXXX. */
  const pyDumps = (v: unknown, upper = false) => JSON.stringify(v).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`);
  const homed = path.join(logs, 'homed.log');
  const body = [
    line('starting homed'),
    line(`provider 400: ${JSON.stringify({ error: { message: `bad input: ${quote}` } })}`),
    line(`provider 400: ${pyDumps({ error: { message: `bad input: ${quote}` } })}`),
    // Clipped by the provider inside its JSON body, then quoted in ours.
    line(`provider 400: ${JSON.stringify({ error: { message: `bad input: ${quote.slice(0, 20)}…` } })}`),
    line('memory tiers open'),
  ].join('');
  fs.writeFileSync(homed, body);
  // A plain-text log (a plugin's stderr) with the body as the provider sent it, upper-case hex.
  const plugin = path.join(logs, 'plugin-telegram.log');
  fs.writeFileSync(plugin, `upstream said ${pyDumps({ message: quote }, true)} and gave up\nclipped: ${quote.slice(0, 20)}... (truncated)\n`);
  const sizes = [fs.statSync(homed).size, fs.statSync(plugin).size];
  const res = await w.mem.control.forget({ turnIds: [secret.turnId] });
  assert.equal(res.daemonLogs, 2);
  assert.deepEqual([fs.statSync(homed).size, fs.statSync(plugin).size], sizes, 'blanked in place, byte for byte');
  for (const f of [homed, plugin]) {
    const text = fs.readFileSync(f, 'utf8');
    assert.doesNotMatch(text, new RegExp(SECRET), f);
    assert.doesNotMatch(text, /ZEBRA-S/, `${f}: the clipped quote is blanked as far as it goes`);
    assert.doesNotMatch(text, /储物柜|\\u50a8|\\u50A8/, `${f}: no form of the message is left`);
  }
  const lines = fs.readFileSync(homed, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { msg: string });
  assert.deepEqual(lines.map((l) => l.msg.slice(0, 14)), ['starting homed', 'provider 400: ', 'provider 400: ', 'provider 400: ', 'memory tiers o']);
  assert.match(lines[3].msg, /^provider 400: \{"error":\{"message":"bad input: \*+…"\}\}$/, 'the clip mark and the JSON around it stay');
  assert.match(fs.readFileSync(plugin, 'utf8'), /^upstream said .* and gave up\nclipped: \*+\.\.\. \(truncated\)\n$/);
  await w.close();
  assert.deepEqual(filesHolding(w.home, SECRET), []);
});

test('0430: a quote whose forms share their first 32 bytes (a newline, a double quote, a non-ASCII letter after them) is blanked whole and the line still parses; another message that only starts the same way is left alone', async () => {
  for (const quote of ['Please remember this for me ok?\nmy locker code is ' + SECRET, `Please remember this for me ok? "my locker code is ${SECRET}"`, `Please remember this for me ok? café code ${SECRET}`]) {
    const w = await world();
    const secret = await w.say(quote, 'Noted.');
    const logs = path.join(w.home, 'logs');
    fs.mkdirSync(logs, { recursive: true });
    const line = (msg: string) => `${JSON.stringify({ t: '2026-01-01T00:00:00Z', level: 'error', scope: 'homed', msg })}\n`;
    const other = 'Please remember this for me ok? the dentist is on Friday';
    fs.writeFileSync(path.join(logs, 'homed.log'), line(`provider 400: bad input: ${quote}`) + line(`provider 400: bad input: ${other}`));
    fs.writeFileSync(path.join(logs, 'plugin-x.log'), `stderr: ${quote}\n`);
    await w.mem.control.forget({ turnIds: [secret.turnId] });
    const homed = fs.readFileSync(path.join(logs, 'homed.log'), 'utf8');
    const plugin = fs.readFileSync(path.join(logs, 'plugin-x.log'), 'utf8');
    assert.doesNotMatch(homed + plugin, new RegExp(SECRET), JSON.stringify(quote));
    assert.doesNotMatch(homed + plugin, /locker|café/, `${JSON.stringify(quote)}: nothing of it is left`);
    const lines = homed.trim().split('\n').map((l) => JSON.parse(l) as { msg: string });
    assert.match(lines[0].msg, /^provider 400: bad input: \*+$/);
    assert.equal(lines[1].msg, `provider 400: bad input: ${other}`, 'a message that only starts the same way stays');
    await w.close();
  }
});
