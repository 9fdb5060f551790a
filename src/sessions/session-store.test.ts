import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConflictError, NotFoundError, PayloadTooLargeError, ValidationError, type SessionEvent } from '../spec/index.js';
import { SessionStore } from './session-store.js';
import { sessionFileStem, sessionIdFromFileStem } from './session-id.js';

const dirs: string[] = [];
const stores: SessionStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-sessions-'));
  dirs.push(d);
  return path.join(d, 'sessions');
}

async function openStore(dir: string, extra: { maxEventBytes?: number } = {}) {
  const warnings: string[] = [];
  const errors: { msg: string; data?: Record<string, unknown> }[] = [];
  let t = 1_000;
  const store = new SessionStore({ dir, now: () => ++t, logger: { warn: (m) => warnings.push(m), error: (msg, data) => errors.push({ msg, data }) }, ...extra });
  await store.open();
  stores.push(store);
  return { store, warnings, errors };
}

describe('SessionStore', () => {
  test('events are read from memory after the first read, stay equal to the log through appends, renames and concurrent reads, and copies are safe to change', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    const ids = Array.from({ length: 20 }, (_, i) => `webui:c${i}`); // more than are cached at once
    for (const id of ids) await store.create({ channel: 'webui', id });
    for (let round = 0; round < 3; round++) {
      for (const id of ids) {
        const t = store.nextTurn(id);
        await Promise.all([
          store.append(id, { turnId: t.turnId, kind: 'user', text: `q${round}`, data: { n: round } }),
          store.events(id), // a read racing the append
          store.append(id, { turnId: t.turnId, kind: 'assistant', text: `a${round}` }),
        ]);
        await store.events(id);
      }
      await store.rename(ids[round], `renamed ${round}`);
    }
    const got = await store.events(ids[0]);
    got[0].text = 'changed by a caller';
    (got[0].data as { n: number }).n = 99;
    const fresh = await openStore(dir);
    for (const id of ids) assert.deepEqual(await store.events(id), await fresh.store.events(id), id);
    assert.equal((await store.events(ids[0]))[0].text, 'q0');
    assert.deepEqual((await store.events(ids[0], { afterSeq: 4, limit: 1 })).map((e) => e.seq), [5]);
    assert.equal((await store.turns(ids[5])).length, 3);
  });

  test('create, append, events, and seq/turns/title across restart', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    const info = await store.create({ channel: 'webui', title: 'Hello', id: 'webui:3f2a' });
    assert.equal(info.lastSeq, 0);
    const t1 = store.nextTurn('webui:3f2a');
    assert.deepEqual(t1, { turnId: 'webui:3f2a#1', turnSeq: 1 });
    const e1 = await store.append('webui:3f2a', { turnId: t1.turnId, kind: 'user', text: 'hi' });
    const e2 = await store.append('webui:3f2a', { turnId: t1.turnId, kind: 'assistant', text: 'hello', data: { provider: 'fake' } });
    assert.equal(e1.seq, 1);
    assert.equal(e2.seq, 2);
    const t2 = store.nextTurn('webui:3f2a');
    await store.append('webui:3f2a', { turnId: t2.turnId, kind: 'user', text: 'again' });
    await store.rename('webui:3f2a', 'Renamed');
    await store.close();

    const { store: again } = await openStore(dir);
    const got = await again.get('webui:3f2a');
    assert.ok(got);
    assert.equal(got.lastSeq, 3);
    assert.equal(got.turns, 2);
    assert.equal(got.title, 'Renamed');
    assert.equal(got.channel, 'webui');
    const t3 = again.nextTurn('webui:3f2a');
    assert.equal(t3.turnSeq, 3);
    const e4 = await again.append('webui:3f2a', { turnId: t3.turnId, kind: 'user', text: 'after restart' });
    assert.equal(e4.seq, 4);
    const evs = await again.events('webui:3f2a');
    assert.deepEqual(
      evs.map((e) => [e.seq, e.kind, e.text]),
      [
        [1, 'user', 'hi'],
        [2, 'assistant', 'hello'],
        [3, 'user', 'again'],
        [4, 'user', 'after restart'],
      ],
    );
    assert.deepEqual(evs[1].data, { provider: 'fake' });
    assert.deepEqual(
      (await again.events('webui:3f2a', { afterSeq: 1, limit: 2 })).map((e) => e.seq),
      [2, 3],
    );
    const turns = await again.turns('webui:3f2a');
    assert.deepEqual(
      turns.map((t) => [t.turnId, t.seqs]),
      [
        ['webui:3f2a#1', [1, 2]],
        ['webui:3f2a#2', [3]],
        ['webui:3f2a#3', [4]],
      ],
    );
  });

  test('one JSONL file per session with an escaped name', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    await store.create({ channel: 'cli', id: 'cli:default' });
    const generated = await store.create({ channel: 'webui' });
    assert.match(generated.id, /^webui:[0-9a-f]{8}$/);
    const files = fs.readdirSync(dir).sort();
    assert.deepEqual(files, [`cli%3Adefault.jsonl`, `${sessionFileStem(generated.id)}.jsonl`].sort());
    assert.equal(sessionIdFromFileStem('cli%3Adefault'), 'cli:default');
    assert.equal(sessionFileStem('a.b'), 'a%2Eb');
  });

  test('concurrent appends to one session get distinct increasing seqs, all persisted', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    await store.ensure('cli:x', 'cli');
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => store.append('cli:x', { turnId: 'cli:x#1', kind: 'user', text: `m${i}` })));
    assert.deepEqual(
      results.map((e) => e.seq),
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
    await store.close();
    const { store: again } = await openStore(dir);
    const evs = await again.events('cli:x');
    assert.equal(evs.length, 40);
    assert.deepEqual(
      evs.map((e) => e.text),
      results.map((e) => e.text),
    );
  });

  test('a torn last line is skipped with a warning and the file repaired', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    await store.create({ channel: 'webui', id: 'webui:t' });
    await store.append('webui:t', { turnId: 'webui:t#1', kind: 'user', text: 'one' });
    await store.append('webui:t', { turnId: 'webui:t#1', kind: 'assistant', text: 'two' });
    await store.close();
    const file = path.join(dir, 'webui%3At.jsonl');
    fs.appendFileSync(file, '{"type":"event","seq":3,"turnId":"webui:t#1","kind":"assi');

    const { store: again, warnings } = await openStore(dir);
    assert.ok(warnings.some((w) => /torn/.test(w)));
    assert.equal((await again.get('webui:t'))?.lastSeq, 2);
    const e3 = await again.append('webui:t', { turnId: 'webui:t#2', kind: 'user', text: 'three' });
    assert.equal(e3.seq, 3);
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 4); // header + 3 events
    for (const l of lines) JSON.parse(l);
    // The cut line was never acknowledged (an append is, only after its fdatasync): no copy of it is
    // kept beside the log, where a forget could not reach it.
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f !== 'webui%3At.jsonl'), []);
    assert.deepEqual(
      (await again.events('webui:t')).map((e) => e.text),
      ['one', 'two', 'three'],
    );
  });

  test('a complete last line missing only its newline is kept and completed', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    await store.create({ channel: 'cli', id: 'cli:n' });
    await store.close();
    const file = path.join(dir, 'cli%3An.jsonl');
    fs.appendFileSync(file, JSON.stringify({ type: 'event', seq: 1, turnId: 'cli:n#1', kind: 'user', at: 5, text: 'kept' }));
    const { store: again } = await openStore(dir);
    const e2 = await again.append('cli:n', { turnId: 'cli:n#2', kind: 'user', text: 'next' });
    assert.equal(e2.seq, 2);
    assert.deepEqual(
      (await again.events('cli:n')).map((e) => e.text),
      ['kept', 'next'],
    );
    assert.equal((await again.get('cli:n'))?.turns, 2);
  });

  test('a malformed line in the middle is skipped, the rest is read', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    await store.create({ channel: 'webui', id: 'webui:m' });
    await store.append('webui:m', { turnId: 'webui:m#1', kind: 'user', text: 'a' });
    await store.close();
    fs.appendFileSync(path.join(dir, 'webui%3Am.jsonl'), 'garbage\n');
    const { store: again, warnings } = await openStore(dir);
    await again.append('webui:m', { turnId: 'webui:m#1', kind: 'user', text: 'b' });
    assert.deepEqual(
      (await again.events('webui:m')).map((e) => [e.seq, e.text]),
      [
        [1, 'a'],
        [2, 'b'],
      ],
    );
    assert.ok(warnings.some((w) => /malformed/.test(w)));
  });

  test('bad session ids are rejected and never touch the file system outside dir', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    for (const bad of ['../x', 'a/b', '', 'a\\b', 'x..y', 'a b', 'x'.repeat(129), '..']) {
      await assert.rejects(store.create({ channel: 'webui', id: bad }), ValidationError, JSON.stringify(bad));
      await assert.rejects(store.get(bad), ValidationError);
      await assert.rejects(store.append(bad, { turnId: 't', kind: 'user', text: 'x' }), ValidationError);
      await assert.rejects(store.events(bad), ValidationError);
      assert.throws(() => store.nextTurn(bad), ValidationError);
    }
    await assert.rejects(store.create({ channel: 'we/b' }), ValidationError);
    assert.deepEqual(fs.readdirSync(dir), []);
    assert.deepEqual(fs.readdirSync(path.dirname(dir)), ['sessions']);
  });

  test('unknown sessions, duplicates, bad events and oversized events', async () => {
    const { store } = await openStore(tmpDir(), { maxEventBytes: 1024 });
    await assert.rejects(store.append('cli:none', { turnId: 'cli:none#1', kind: 'user', text: 'x' }), NotFoundError);
    await assert.rejects(store.events('cli:none'), NotFoundError);
    assert.throws(() => store.nextTurn('cli:none'), NotFoundError);
    assert.equal(await store.get('cli:none'), undefined);
    await store.create({ channel: 'cli', id: 'cli:a' });
    await assert.rejects(store.create({ channel: 'cli', id: 'cli:a' }), ConflictError);
    const same = await store.ensure('cli:a', 'cli');
    assert.equal(same.id, 'cli:a');
    await assert.rejects(store.append('cli:a', { turnId: 'cli:a#1', kind: 'shout' as 'user', text: 'x' }), /kind/);
    await assert.rejects(store.append('cli:a', { turnId: '', kind: 'user', text: 'x' }), ValidationError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await assert.rejects(store.append('cli:a', { turnId: 'cli:a#1', kind: 'user', text: 'x', data: cyclic }), /JSON/);
    await assert.rejects(store.append('cli:a', { turnId: 'cli:a#1', kind: 'user', text: 'x'.repeat(2000) }), PayloadTooLargeError);
    await assert.rejects(store.events('cli:a', { limit: 0 }), ValidationError);
    await assert.rejects(store.rename('cli:a', 'x'.repeat(201)), ValidationError);
    assert.equal((await store.get('cli:a'))?.lastSeq, 0);
  });

  test('concurrent ensure creates the session once; list is newest first', async () => {
    const { store } = await openStore(tmpDir());
    const infos = await Promise.all([store.ensure('cli:z', 'cli', 'Z'), store.ensure('cli:z', 'cli'), store.ensure('cli:z', 'cli')]);
    assert.ok(infos.every((i) => i.createdAt === infos[0].createdAt && i.title === 'Z'));
    await store.create({ channel: 'webui', id: 'webui:new' });
    await store.append('cli:z', { turnId: 'cli:z#1', kind: 'user', text: 'bump' });
    assert.deepEqual(
      (await store.list()).map((s) => s.id),
      ['cli:z', 'webui:new'],
    );
  });

  test('a file with only a torn header is removed; foreign files are ignored', async () => {
    const dir = tmpDir();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'cli%3Ahalf.jsonl'), '{"type":"session","id":"cli:ha');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'hello');
    fs.writeFileSync(path.join(dir, '%2E%2Ebad.jsonl'), '{"type":"session","id":"..bad"}\n');
    fs.writeFileSync(path.join(dir, 'cli%3Aempty.jsonl'), '');
    const { store } = await openStore(dir);
    assert.deepEqual(await store.list(), []);
    assert.equal(fs.existsSync(path.join(dir, 'cli%3Ahalf.jsonl')), false);
    assert.equal(fs.existsSync(path.join(dir, 'cli%3Aempty.jsonl')), false);
    // Nothing else is left: a torn header is not kept in a side file either.
    assert.deepEqual(fs.readdirSync(dir).sort(), ['%2E%2Ebad.jsonl', 'notes.txt']);
    const info = await store.create({ channel: 'cli', id: 'cli:half' });
    assert.equal(info.id, 'cli:half');
  });

  test('a log with no readable line (saved as UTF-16, lines wrapped in arrays) is moved aside exactly as it was, never deleted; an error names it', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    await store.create({ channel: 'cli', id: 'cli:default' });
    await store.append('cli:default', { turnId: 'cli:default#1', kind: 'user', text: 'the boat is called Aurora' });
    await store.create({ channel: 'cli', id: 'cli:arrays' });
    await store.append('cli:arrays', { turnId: 'cli:arrays#1', kind: 'user', text: 'keep me' });
    await store.close();
    const utf16File = path.join(dir, 'cli%3Adefault.jsonl');
    // What `iconv -t UTF-16` writes: a BOM, two bytes a character (each newline leaves a 0x00 after it: a torn tail).
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(fs.readFileSync(utf16File, 'utf8'), 'utf16le')]);
    fs.writeFileSync(utf16File, utf16);
    const arraysFile = path.join(dir, 'cli%3Aarrays.jsonl');
    const arrays = fs.readFileSync(arraysFile, 'utf8').split('\n').filter(Boolean).map((l) => `[ ${l} ]\n`).join('');
    fs.writeFileSync(arraysFile, arrays);

    const { store: again, errors } = await openStore(dir);
    assert.deepEqual(await again.list(), []);
    const names = fs.readdirSync(dir).sort();
    assert.equal(names.length, 2, names.join(','));
    const [arraysAside, utf16Aside] = names;
    assert.match(arraysAside, /^cli%3Aarrays\.jsonl\.corrupt-\d+$/);
    assert.match(utf16Aside, /^cli%3Adefault\.jsonl\.corrupt-\d+$/);
    assert.ok(fs.readFileSync(path.join(dir, utf16Aside)).equals(utf16), 'the UTF-16 log is kept byte for byte (its torn tail put back)');
    assert.equal(fs.readFileSync(path.join(dir, arraysAside), 'utf8'), arrays);
    assert.deepEqual(errors.map((e) => e.data?.movedTo).sort(), [arraysAside, utf16Aside]);
    assert.ok(errors.every((e) => /moved aside/.test(e.msg)));
    // The id is free again; a new session under it starts a new log and leaves the one aside alone.
    await again.create({ channel: 'cli', id: 'cli:default' });
    assert.ok(fs.readFileSync(path.join(dir, utf16Aside)).equals(utf16));
    const { store: third } = await openStore(dir);
    assert.deepEqual((await third.list()).map((s) => s.id), ['cli:default']);
  });

  test('methods before open fail clearly; close is idempotent', async () => {
    const store = new SessionStore({ dir: tmpDir() });
    await assert.rejects(store.list(), /not open/);
    await store.open();
    await store.close();
    await store.close();
    await assert.rejects(store.list(), /not open/);
  });

  test('K-2: redact rewrites the log atomically — the events keep their place without their text — appends go on, and a reopen reads it back', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    await store.create({ channel: 'webui', id: 'webui:r' });
    const a = store.nextTurn('webui:r');
    await store.append('webui:r', { turnId: a.turnId, kind: 'user', text: 'the door code is 4711', data: { attachments: [{ name: '4711.txt' }] } });
    await store.append('webui:r', { turnId: a.turnId, kind: 'assistant', text: 'noted 4711' });
    const b = store.nextTurn('webui:r');
    await store.append('webui:r', { turnId: b.turnId, kind: 'user', text: 'hello' });
    assert.equal(await store.redact('webui:r', (e) => e.turnId === a.turnId), 2);
    assert.equal(await store.redact('webui:r', (e) => e.turnId === a.turnId), 0, 'already redacted');
    const evs = await store.events('webui:r');
    assert.deepEqual(evs.map((e) => [e.seq, e.turnId, e.text]), [[1, a.turnId, '[forgotten]'], [2, a.turnId, '[forgotten]'], [3, b.turnId, 'hello']]);
    assert.deepEqual(evs[0].data, { redacted: true });
    await store.append('webui:r', { turnId: b.turnId, kind: 'assistant', text: 'hi' });
    const file = fs.readdirSync(dir).find((f) => f.endsWith('.jsonl'))!;
    assert.doesNotMatch(fs.readFileSync(path.join(dir, file), 'utf8'), /(?<!\d)4711(?!\d)/);
    assert.equal(fs.readdirSync(dir).filter((f) => !f.endsWith('.jsonl')).length, 0, 'no temp file left');
    const { store: again } = await openStore(dir);
    assert.deepEqual((await again.events('webui:r')).map((e) => e.text), ['[forgotten]', '[forgotten]', 'hello', 'hi']);
  });

  test('K-2: a title made from a forgotten message goes with it — renamed after the first message left, or emptied; other titles stay', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    // Named after its first message (as the kernel names it), then renamed by a WebUI-style 40-character cut.
    await store.create({ channel: 'cli', id: 'cli:t', title: 'Hello, my name is Alice and I live in…' });
    await store.rename('cli:t', 'Hello, my name is Alice and I live in Pa');
    await store.append('cli:t', { turnId: 'cli:t#1', kind: 'user', text: 'Hello, my name is Alice and I live in Paris near the river' });
    await store.append('cli:t', { turnId: 'cli:t#1', kind: 'assistant', text: 'Nice to meet you' });
    await store.append('cli:t', { turnId: 'cli:t#2', kind: 'user', text: 'what should I cook tonight?' });
    // A title the person chose that no forgotten message holds stays.
    await store.create({ channel: 'cli', id: 'cli:k', title: 'Recipes' });
    await store.append('cli:k', { turnId: 'cli:k#1', kind: 'user', text: 'I live in Paris, what is cheap to cook?' });
    // The only message forgotten: no title is left.
    await store.create({ channel: 'cli', id: 'cli:o', title: 'my bank pin is 4711' });
    await store.append('cli:o', { turnId: 'cli:o#1', kind: 'user', text: 'my bank pin is 4711' });

    const forgotten = (e: SessionEvent) => /Paris|4711/.test(e.text);
    assert.equal(await store.redactAll(forgotten), 3);
    const titles = async (st: SessionStore) => Object.fromEntries((await st.list()).map((x) => [x.id, x.title]));
    const expected = { 'cli:t': 'what should I cook tonight?', 'cli:k': 'Recipes', 'cli:o': '' };
    assert.deepEqual(await titles(store), expected);
    for (const f of fs.readdirSync(dir)) assert.doesNotMatch(fs.readFileSync(path.join(dir, f), 'utf8'), /Alice|4711/, f);
    const { store: again } = await openStore(dir);
    assert.deepEqual(await titles(again), expected, 'a reopen reads the same titles');
  });

  test('K-2: redact keeps every line it does not redact byte for byte — a line that does not parse included', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    await store.create({ channel: 'cli', id: 'cli:d' });
    await store.append('cli:d', { turnId: 'cli:d#1', kind: 'user', text: 'forget this 4711' });
    await store.close();
    const file = path.join(dir, 'cli%3Ad.jsonl');
    // A line damaged by hand (a quote lost), and a valid line in an unusual spacing.
    const damaged = '{"type":"event","seq":2,"turnId":"cli:d#2","kind":"user","at":7,"text":"the ferry leaves at 9\n';
    const spaced = '{ "type": "event", "seq": 3, "turnId": "cli:d#3", "kind": "user", "at": 8, "text": "ok" }\n';
    fs.appendFileSync(file, damaged + spaced);
    const before = fs.readFileSync(file, 'utf8');
    const { store: again } = await openStore(dir);
    assert.equal(await again.redact('cli:d', (e) => e.turnId === 'cli:d#1'), 1);
    const after = fs.readFileSync(file, 'utf8');
    assert.doesNotMatch(after, /(?<!\d)4711(?!\d)/);
    const [headerB, , ...restB] = before.split('\n');
    const [headerA, redacted, ...restA] = after.split('\n');
    assert.equal(headerA, headerB);
    assert.deepEqual(restA, restB, 'the damaged line and the others are unchanged');
    assert.ok(after.includes(damaged) && after.includes(spaced));
    assert.match(redacted, /"text":"\[forgotten\]"/);
    assert.deepEqual((await again.events('cli:d')).map((e) => [e.seq, e.text]), [[1, '[forgotten]'], [3, 'ok']]);
    const e4 = await again.append('cli:d', { turnId: 'cli:d#4', kind: 'user', text: 'next' });
    assert.equal(e4.seq, 4);
  });
});

describe('SessionStore write gate (decision 0380)', () => {
  test('writes wait while the gate is closed and land, in order, in the log swapped in meanwhile; turns handed out meanwhile start above the floor', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    const id = 'webui:g';
    await store.create({ channel: 'webui', id });
    await store.append(id, { ...store.nextTurn(id), kind: 'user', text: 'one' });
    const file = store.fileOf(id);
    const open = await store.holdWrites(new Map([[id, 5]]));
    assert.equal(store.writesHeld, true);
    // Turns handed out while it is closed start above the archive's (5), also for a session not here yet.
    const t1 = store.nextTurn(id);
    const t2 = store.nextTurn(id);
    assert.deepEqual([t1.turnSeq, t2.turnSeq], [6, 7]);
    assert.equal(store.nextTurn('webui:new').turnSeq, 1);
    let written = 0;
    const a = store.append(id, { turnId: t1.turnId, kind: 'user', text: 'two' }).then((e) => (written++, e));
    const b = store.append(id, { turnId: t2.turnId, kind: 'user', text: 'three' }).then((e) => (written++, e));
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(written, 0, 'no write while the gate is closed');
    // The import's part: a longer log (turns 1…5) swapped in and re-read, under the closed gate.
    const lines = [fs.readFileSync(file, 'utf8').split('\n')[0]];
    for (let n = 1; n <= 5; n++) lines.push(JSON.stringify({ type: 'event', seq: n, turnId: `${id}#${n}`, kind: 'user', at: 1, text: `imported ${n}` }));
    fs.writeFileSync(`${file}.tmp`, `${lines.join('\n')}\n`);
    fs.renameSync(`${file}.tmp`, file);
    await store.reload([id]);
    open();
    assert.equal(store.writesHeld, false);
    const [ea, eb] = await Promise.all([a, b]);
    assert.deepEqual([ea.seq, ea.turnId, eb.seq, eb.turnId], [6, t1.turnId, 7, t2.turnId]);
    const log = await store.events(id);
    assert.deepEqual(log.map((e) => `${e.seq}:${e.turnId.slice(id.length)}:${e.text}`), ['1:#1:imported 1', '2:#2:imported 2', '3:#3:imported 3', '4:#4:imported 4', '5:#5:imported 5', '6:#6:two', '7:#7:three']);
    // Numbers handed out stay handed out after the reload.
    assert.equal(store.nextTurn(id).turnSeq, 8);
  });

  test('an event that starts a turn whose id the log already holds takes the id `renumber` gives', async () => {
    const dir = tmpDir();
    const { store } = await openStore(dir);
    const id = 'webui:r';
    await store.create({ channel: 'webui', id });
    await store.append(id, { turnId: `${id}#1`, kind: 'user', text: 'one' });
    let n = 1;
    const ev = await store.append(id, { turnId: `${id}#1`, kind: 'user', text: 'again' }, { renumber: () => `${id}#${++n}` });
    assert.equal(ev.turnId, `${id}#2`);
    // Without it (a reply of the turn) the id is kept.
    assert.equal((await store.append(id, { turnId: `${id}#2`, kind: 'assistant', text: 'hi' })).turnId, `${id}#2`);
  });
});
