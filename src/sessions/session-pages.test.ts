import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NotFoundError, ValidationError, type SessionEvent } from '../spec/index.js';
import { SessionStore } from './session-store.js';

const dirs: string[] = [];
const stores: SessionStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-pages-'));
  dirs.push(d);
  return path.join(d, 'sessions');
}

async function openStore(dir: string): Promise<SessionStore> {
  let t = 1_000;
  const store = new SessionStore({ dir, now: () => ++t, logger: { warn: () => undefined } });
  await store.open();
  stores.push(store);
  return store;
}

/** Writes a long session log directly (as years of use would leave it): user + tool + assistant per turn. */
function writeLongLog(dir: string, id: string, turns: number): void {
  fs.mkdirSync(dir, { recursive: true });
  const lines = [JSON.stringify({ type: 'session', v: 1, id, channel: 'webui', title: 'long', createdAt: 1 })];
  let seq = 0;
  for (let n = 1; n <= turns; n++) {
    const turnId = `${id}#${n}`;
    lines.push(JSON.stringify({ type: 'event', seq: ++seq, turnId, kind: 'user', at: n * 10, text: `question ${n} ${'多'.repeat(n % 7)}` }));
    if (n % 3 === 0) lines.push(JSON.stringify({ type: 'event', seq: ++seq, turnId, kind: 'tool_call', at: n * 10 + 1, text: 'lookup', data: { id: `c${n}`, arguments: '{}', round: 1 } }));
    if (n % 50 === 0) lines.push(JSON.stringify({ type: 'title', title: `renamed at ${n}`, at: n * 10 + 2 }));
    lines.push(JSON.stringify({ type: 'event', seq: ++seq, turnId, kind: 'assistant', at: n * 10 + 3, text: `answer ${n}`, data: { status: 'ok' } }));
  }
  fs.writeFileSync(path.join(dir, `${id.replace(':', '%3A')}.jsonl`), `${lines.join('\n')}\n`);
}

const seqs = (evs: SessionEvent[]) => evs.map((e) => e.seq);

describe('SessionStore pages and deletions', () => {
  test('a long log is read in pages from its end and from any seq; the file and the in-memory copy answer alike', async () => {
    const dir = tmpDir();
    writeLongLog(dir, 'webui:long', 2000); // 4,666 events
    const cold = await openStore(dir);
    const info = (await cold.get('webui:long'))!;
    assert.equal(info.lastSeq, 4666);
    const last = await cold.events('webui:long', { beforeSeq: info.lastSeq + 1, limit: 5 });
    assert.deepEqual(seqs(last), [4662, 4663, 4664, 4665, 4666]);
    assert.equal(last.at(-1)!.text, 'answer 2000');
    // paging back from the end reaches the first event, each page older than the one before
    const seen: number[] = [];
    let before = info.lastSeq + 1;
    for (;;) {
      const page = await cold.events('webui:long', { beforeSeq: before, limit: 700 });
      if (page.length === 0) break;
      seen.unshift(...seqs(page));
      before = page[0].seq;
    }
    assert.equal(seen.length, 4666);
    assert.deepEqual(seen.slice(0, 3), [1, 2, 3]);
    // the same reads from a store whose copy of the log is in memory
    const warm = await openStore(dir);
    await warm.events('webui:long'); // reads it whole: now in memory
    let rnd = 11;
    const next = () => (rnd = (rnd * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 60; i++) {
      const a = Math.floor(next() * 4700);
      const q = i % 3 === 0 ? { afterSeq: a, limit: 1 + Math.floor(next() * 300) } : i % 3 === 1 ? { beforeSeq: a + 1, limit: 1 + Math.floor(next() * 300) } : { afterSeq: a, beforeSeq: a + Math.floor(next() * 400) + 1, limit: 250 };
      assert.deepEqual(await cold.events('webui:long', q), await warm.events('webui:long', q), JSON.stringify(q));
    }
    // an append after a page read is seen by the next page read
    await cold.append('webui:long', { turnId: 'webui:long#2001', kind: 'user', text: 'new' });
    assert.deepEqual(seqs(await cold.events('webui:long', { afterSeq: 4666, limit: 10 })), [4667]);
    assert.equal((await cold.get('webui:long'))!.title, 'renamed at 2000');
  });

  test('locate finds where a turn starts; deleting a turn or a reply leaves it out of reads, kept with includeDeleted, across a restart', async () => {
    const dir = tmpDir();
    writeLongLog(dir, 'webui:d', 30);
    let store = await openStore(dir);
    assert.equal(await store.locate('webui:d', 'webui:d#3'), 5);
    assert.equal(await store.locate('webui:d', 'webui:d#99'), undefined);
    const marker = await store.deleteTurns('webui:d', ['webui:d#3'], 'reply');
    assert.equal(marker.kind, 'marker');
    await store.deleteTurns('webui:d', ['webui:d#5', 'webui:d#6'], 'turn');
    await assert.rejects(store.deleteTurns('webui:d', ['webui:d#77'], 'turn'), NotFoundError);
    await assert.rejects(store.deleteTurns('webui:d', [], 'turn'), ValidationError);
    await assert.rejects(store.deleteTurns('webui:d', ['webui:d#1'], 'all' as never), ValidationError);
    for (const s of [store, await openStore(dir)]) {
      const evs = await s.events('webui:d');
      const of3 = evs.filter((e) => e.turnId === 'webui:d#3').map((e) => e.kind);
      assert.deepEqual(of3, ['user'], 'the reply, its tool call too, is gone; the question stays');
      assert.ok(!evs.some((e) => e.turnId === 'webui:d#5' || e.turnId === 'webui:d#6'));
      assert.ok(!evs.some((e) => e.kind === 'marker'), 'deletion markers are bookkeeping');
      assert.equal(s.deleted('webui:d', 'webui:d#3'), 'reply');
      assert.equal(s.deleted('webui:d', 'webui:d#5'), 'turn');
      assert.equal(s.deleted('webui:d', 'webui:d#4'), undefined);
      assert.equal(await s.locate('webui:d', 'webui:d#5'), undefined);
      const all = await s.events('webui:d', { includeDeleted: true });
      assert.equal(all.filter((e) => e.kind === 'marker').length, 2);
      assert.ok(all.some((e) => e.turnId === 'webui:d#5'));
      // pages count what is shown: the last 4 visible events before turn 7
      assert.deepEqual((await s.events('webui:d', { beforeSeq: (await s.locate('webui:d', 'webui:d#7'))!, limit: 4 })).map((e) => `${e.turnId.split('#')[1]}:${e.kind}`), ['2:assistant', '3:user', '4:user', '4:assistant']);
    }
    store = await openStore(dir);
    const t = store.nextTurn('webui:d');
    assert.equal(t.turnId, 'webui:d#31');
  });

  test('a deleted session leaves the list and reads; its id starts again empty, turn ids never reused, across a restart', async () => {
    const dir = tmpDir();
    const store = await openStore(dir);
    await store.create({ channel: 'telegram', id: 'telegram:42', title: 'chat' });
    for (let n = 1; n <= 3; n++) {
      const { turnId } = store.nextTurn('telegram:42');
      await store.append('telegram:42', { turnId, kind: 'user', text: `old ${n}` });
    }
    await store.remove('telegram:42');
    assert.deepEqual(await store.list(), []);
    assert.equal(await store.get('telegram:42'), undefined);
    await assert.rejects(store.events('telegram:42'), NotFoundError);
    await assert.rejects(store.append('telegram:42', { turnId: 'telegram:42#9', kind: 'user', text: 'x' }), NotFoundError);
    await assert.rejects(store.remove('telegram:42'), NotFoundError);
    assert.equal(store.deleted('telegram:42', 'telegram:42#2'), 'turn');
    // the chat writes again: the kernel allocates a turn, then ensures the session
    const { turnId } = store.nextTurn('telegram:42');
    assert.equal(turnId, 'telegram:42#4');
    const info = await store.ensure('telegram:42', 'telegram', 'again');
    assert.equal(info.title, 'again');
    await store.append('telegram:42', { turnId, kind: 'user', text: 'new' });
    for (const s of [store, await openStore(dir)]) {
      assert.deepEqual((await s.list()).map((x) => x.id), ['telegram:42']);
      assert.deepEqual((await s.events('telegram:42')).map((e) => e.text), ['new']);
      assert.deepEqual((await s.events('telegram:42', { beforeSeq: 100, limit: 10 })).map((e) => e.text), ['new']);
      assert.equal(s.deleted('telegram:42', 'telegram:42#1'), 'turn');
      assert.equal(s.deleted('telegram:42', 'telegram:42#4'), undefined);
      assert.equal((await s.get('telegram:42'))!.title, 'again');
    }
    // create() on a deleted id starts it again too
    await store.remove('telegram:42');
    const again = await store.create({ channel: 'telegram', id: 'telegram:42', title: 'third' });
    assert.equal(again.title, 'third');
    assert.deepEqual(await store.events('telegram:42'), []);
  });
});
