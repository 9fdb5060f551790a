/**
 * Decision 0550, killed for real: a process regenerates a turn over a data folder on disk and
 * SIGKILLs itself mid-way (`__fixtures__/resend-then-die.ts`); the next open settles what it left
 * by the session log. Before the new message is logged: the old turn is back where it was, once.
 * After: the new message is remembered once, the old turn nowhere. Never a turn remembered nowhere,
 * never twice.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chatAt, openMemoryAt, traces } from '../__fixtures__/memory-on-disk.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-replace-kill-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const LOCK = 'I live in Reykjavik and my bike lock code is 8086';
const child = fileURLToPath(new URL('../__fixtures__/resend-then-die.ts', import.meta.url));

/** A chat whose first turn sits in every tier: its message in the documents, its reply in the archive, its fact in the graph. */
async function prepared() {
  const w = await chatAt(root);
  const lock = await w.say(LOCK, 'Noted: the lock code is 8086.');
  await w.say('I like kayaking on weekends', 'Lovely.');
  await w.mem.heartbeats.runOnce('rules');
  w.sink(lock);
  const where = await traces(w.mem, '8086');
  assert.deepEqual(where, ['documents', 'archive', 'graph', 'recall']);
  assert.equal(w.mem.graph.matchingFacts(['reykjavik']).length, 1);
  await w.close();
  w.clock.t += 60_000;
  return { home: w.home, clock: w.clock, lock: lock.turnId };
}

/** Runs the dying regenerate; resolves with the signal that ended it. */
function regenerateAndDie(home: string, turnId: string, mode: string, at: number): Promise<NodeJS.Signals | null> {
  const p = spawn(process.execPath, ['--import', 'tsx', child, home, turnId, mode, String(at)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  p.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    p.on('error', reject);
    p.on('exit', (code, signal) => (signal ? resolve(signal) : reject(new Error(`the child exited with ${code}: ${err}`))));
  });
}

/** The turns of the copies of the message recall finds (one entry per copy). */
async function messages(mem: Awaited<ReturnType<typeof openMemoryAt>>['mem']): Promise<string[]> {
  return (await mem.recall.search('bike lock', { k: 50 })).filter((h) => h.tier !== 'graph' && h.kind === 'user' && h.text.includes('bike lock')).map((h) => h.turnId ?? '?');
}

for (const mode of ['mid-hold', 'before-log'] as const) {
  test(`0550: killed ${mode === 'mid-hold' ? 'while the turn was being taken out' : 'before the new message reached the log'} — the next open puts the old turn back, once`, async () => {
    const w = await prepared();
    assert.equal(await regenerateAndDie(w.home, w.lock, mode, w.clock.t), 'SIGKILL');
    const again = await openMemoryAt(w.home, w.clock);
    try {
      assert.deepEqual(await messages(again.mem), [w.lock], 'the old message is remembered, once');
      assert.ok(again.mem.docs.hasTurn(w.lock), 'back in the documents');
      assert.ok(again.mem.archive.hasTurn(w.lock), 'its reply back in the archive');
      assert.equal(again.mem.context.events().filter((e) => e.refs?.[0] === w.lock).length, 0, 'not doubled into the window');
      assert.equal(again.mem.graph.matchingFacts(['reykjavik']).length, 1, 'its fact is back');
      assert.equal(again.mem.control.blocks(w.lock), false, 'nothing pending is left');
      assert.deepEqual(again.mem.control.history({ kind: 'replacement' }), []);
      assert.ok(again.warnings.every((m) => !/settling .* failed/.test(m)), again.warnings.join('\n'));
    } finally {
      await again.close();
    }
  });
}

test('0550: killed after the new message reached the log — the next open finishes the replacement: the message once, in the new turn', async () => {
  const w = await prepared();
  assert.equal(await regenerateAndDie(w.home, w.lock, 'after-log', w.clock.t), 'SIGKILL');
  const again = await openMemoryAt(w.home, w.clock);
  try {
    const logged = await again.sessions.events('webui:1');
    const by = logged.find((e) => e.kind === 'user' && e.text === LOCK)!.turnId;
    assert.notEqual(by, w.lock);
    assert.deepEqual(await messages(again.mem), [by], 'the new message (replayed from the log), once; the old one nowhere');
    assert.equal(again.mem.docs.hasTurn(w.lock), false);
    assert.equal(again.mem.archive.hasTurn(w.lock), false);
    assert.equal(again.mem.graph.matchingFacts(['reykjavik']).filter((f) => f.refs?.includes(w.lock)).length, 0, 'no fact cites the old turn');
    assert.equal(again.mem.control.blocks(w.lock), true, 'the gate keeps it out');
    const [entry] = again.mem.control.history({ kind: 'replacement' });
    assert.equal(entry?.summary, `replaced turn ${w.lock} with ${by}`, 'recorded once, by the open that finished it');
    assert.equal((await again.mem.reindex()).added, 0);
    assert.deepEqual(await messages(again.mem), [by]);
    assert.deepEqual(await again.mem.control.reconcile(), { replacements: 0, exclusions: 0 }, 'done now: not swept at the next open (decision 0600)');
  } finally {
    await again.close();
  }
  const third = await openMemoryAt(w.home, w.clock);
  assert.equal(third.mem.control.history({ kind: 'replacement' }).length, 1, 'not recorded again');
  await third.close();
});

test('0600: killed in the last sweep of a committed replacement — not done, so the next open sweeps it again and marks it done', async () => {
  const w = await prepared();
  assert.equal(await regenerateAndDie(w.home, w.lock, 'mid-commit-sweep', w.clock.t), 'SIGKILL');
  const again = await openMemoryAt(w.home, w.clock);
  try {
    assert.equal(again.mem.docs.hasTurn(w.lock), false, 'the copy the killed sweep did not take is gone');
    const by = (await again.sessions.events('webui:1')).find((e) => e.kind === 'user' && e.text === LOCK)!.turnId;
    assert.deepEqual(await messages(again.mem), [by], 'the message once, in the new turn');
    assert.equal(again.mem.control.history({ kind: 'replacement' }).length, 1, 'recorded once, by the killed run');
    assert.deepEqual(await again.mem.control.reconcile(), { replacements: 0, exclusions: 0 }, 'the open marked it done');
  } finally {
    await again.close();
  }
});
