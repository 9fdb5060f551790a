import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigRegistry } from '../config/index.js';
import { applyOp, commitJournal, committedImport, journalPath, journalSettings, planSwap, recoverInterruptedImport, undoOps, writeJournal } from './swap-journal.js';

/** A data folder with three live files (one with a WAL), and merged copies of two plus one new file. */
function setup() {
  const home = mkdtempSync(join(tmpdir(), 'ha-swap-'));
  const merged = join(home, '.transfer', 'job', 'merged');
  mkdirSync(join(home, 'documents'), { recursive: true });
  mkdirSync(merged, { recursive: true });
  writeFileSync(join(home, 'graph.db'), 'graph-ours');
  writeFileSync(join(home, 'graph.db-wal'), 'wal-ours');
  writeFileSync(join(home, 'documents', 'documents.db'), 'docs-ours');
  writeFileSync(join(home, 'context.json'), 'ctx-ours');
  for (const n of ['graph.db', 'documents.db', 'new.md']) writeFileSync(join(merged, n), `${n}-merged`);
  const files = [
    { live: join(home, 'graph.db'), merged: join(merged, 'graph.db') },
    { live: join(home, 'documents', 'documents.db'), merged: join(merged, 'documents.db') },
    { live: join(home, 'knowledge', 'new', 'content.md'), merged: join(merged, 'new.md') },
  ];
  return { home, files, backup: join(home, '.transfer', 'job', 'backup') };
}

const state = (home: string) => ({
  graph: readFileSync(join(home, 'graph.db'), 'utf8'),
  wal: existsSync(join(home, 'graph.db-wal')) ? readFileSync(join(home, 'graph.db-wal'), 'utf8') : undefined,
  docs: readFileSync(join(home, 'documents', 'documents.db'), 'utf8'),
  ctx: readFileSync(join(home, 'context.json'), 'utf8'),
  added: existsSync(join(home, 'knowledge', 'new', 'content.md')),
});

test('a swap killed after any number of renames is undone at the next start', () => {
  const { home: ref } = setup();
  const original = state(ref);
  rmSync(ref, { recursive: true, force: true });
  for (let k = 0; k <= 4; k++) {
    const { home, files, backup } = setup();
    mkdirSync(backup, { recursive: true });
    const ops = planSwap(files, backup);
    assert.equal(ops.length, 4, 'the WAL is its own op');
    writeJournal(journalPath(home), ops);
    for (let i = 0; i < k; i++) applyOp(ops[i]); // … and then the process is killed
    if (k === 4) assert.equal(state(home).graph, 'graph.db-merged');
    assert.equal(recoverInterruptedImport(home), 4);
    assert.deepEqual(state(home), original, `killed after ${k} renames`);
    assert.ok(!existsSync(journalPath(home)));
    assert.equal(recoverInterruptedImport(home), 0, 'nothing left to undo');
    rmSync(home, { recursive: true, force: true });
  }
});

test('an op cut between its two renames (original aside, copy not yet in) is undone too', () => {
  const { home, files, backup } = setup();
  mkdirSync(backup, { recursive: true });
  const ops = planSwap(files, backup);
  writeJournal(journalPath(home), ops);
  applyOp(ops[0]);
  renameSync(ops[1].live, ops[1].aside); // the kill lands between the aside and the move-in
  recoverInterruptedImport(home);
  assert.equal(state(home).graph, 'graph-ours');
  assert.equal(state(home).wal, 'wal-ours');
  rmSync(home, { recursive: true, force: true });
});

/** A real config store with two keys: one stored before the import, one at its default. */
function configAt(home: string): ConfigRegistry {
  const c = new ConfigRegistry({ dbPath: join(home, 'config.db'), env: {} });
  c.open();
  c.register({
    'core.memory.recall_depth': { default: 2, description: 'depth', schema: z.number().int() },
    'plugin.webui.language': { default: 'auto', description: 'language', schema: z.string() },
  });
  return c;
}

test('a kill while the import set settings puts them back as stored before (raw rows), once', async () => {
  const { home, files, backup } = setup();
  let c = configAt(home);
  await c.set('core.memory.recall_depth', 5);
  mkdirSync(backup, { recursive: true });
  const ops = planSwap(files, backup);
  writeJournal(journalPath(home), ops);
  for (const op of ops) applyOp(op);
  // What the import does before its first setting: the settings as they were, journalled.
  journalSettings(journalPath(home), [
    { key: 'core.memory.recall_depth', value: c.storedText('core.memory.recall_depth') ?? null },
    { key: 'plugin.webui.language', value: c.storedText('plugin.webui.language') ?? null },
  ]);
  assert.equal(statSync(journalPath(home)).mode & 0o777, 0o600, 'the journal can hold raw settings: private');
  await c.set('core.memory.recall_depth', 9);
  await c.set('plugin.webui.language', 'zh'); // … and then the process is killed
  c.close();

  // The next start: the store opens, nothing registered yet, the journal is undone.
  c = new ConfigRegistry({ dbPath: join(home, 'config.db'), env: {} });
  c.open();
  const warnings: string[] = [];
  assert.equal(recoverInterruptedImport(home, { restoreSettings: (rows) => c.restoreStored(rows), log: { warn: (m) => void warnings.push(m), error: (m) => assert.fail(m) } }), 4);
  c.register({
    'core.memory.recall_depth': { default: 2, description: 'depth', schema: z.number().int() },
    'plugin.webui.language': { default: 'auto', description: 'language', schema: z.string() },
  });
  assert.equal(c.get('core.memory.recall_depth'), 5, 'the stored value before the import');
  assert.equal(c.info('plugin.webui.language').origin, 'default', 'a key that had no row has none again');
  assert.equal(state(home).graph, 'graph-ours');
  assert.ok(!existsSync(journalPath(home)));
  assert.ok(warnings.some((w) => /put 2 back/.test(w)), warnings.join('\n'));
  c.close();
  rmSync(home, { recursive: true, force: true });
});

test('journalled settings that cannot be put back keep the journal; once put back they are not put back again', () => {
  const { home: ref } = setup();
  const original = state(ref);
  rmSync(ref, { recursive: true, force: true });
  const { home, files, backup } = setup();
  mkdirSync(backup, { recursive: true });
  const ops = planSwap(files, backup);
  writeJournal(journalPath(home), ops, [{ key: 'core.memory.recall_depth', value: '5' }]);
  for (const op of ops) applyOp(op);
  const errors: string[] = [];
  const log = { warn: () => {}, error: (m: string) => void errors.push(m) };
  recoverInterruptedImport(home, { log, restoreSettings: () => { throw new Error('database is locked'); } });
  assert.ok(existsSync(journalPath(home)), 'kept for the next start');
  assert.deepEqual(state(home), original, 'the files are undone');
  assert.deepEqual((JSON.parse(readFileSync(journalPath(home), 'utf8')) as { ops: unknown[] }).ops, [], 'what is undone is not undone again');
  // Undoing the same ops again changes nothing (an original back in place is not a merged copy).
  assert.deepEqual(undoOps(ops), []);
  assert.deepEqual(state(home), original);
  assert.ok(errors.some((e) => /could not be put back/.test(e)), errors.join('\n'));
  let calls = 0;
  recoverInterruptedImport(home, { log, restoreSettings: () => void calls++ });
  assert.equal(calls, 1);
  assert.ok(!existsSync(journalPath(home)));
  assert.deepEqual(state(home), original, 'the second start left the files as they were');
  // A journal that says nothing readable about settings is refused whole, its backups kept.
  writeFileSync(journalPath(home), JSON.stringify({ v: 1, ops: [], settings: [{ key: 1 }] }));
  assert.equal(recoverInterruptedImport(home, { log, restoreSettings: () => assert.fail('must not restore') }), 0);
  assert.ok(errors.some((e) => /unreadable journal/.test(e)));
  rmSync(home, { recursive: true, force: true });
});

test('0320: a journal turned into its commit record undoes nothing at start and keeps the tombstones to record; a damaged one is not taken for one', () => {
  const { home, files, backup } = setup();
  mkdirSync(backup, { recursive: true });
  const ops = planSwap(files, backup);
  writeJournal(journalPath(home), ops);
  for (const op of ops) applyOp(op);
  const stones = [{ ref: `sha256:pair:${'a'.repeat(64)}`, at: 5 }];
  // The commit point: one atomic write; the import is kept from here.
  commitJournal(journalPath(home), stones);
  assert.equal(statSync(journalPath(home)).mode & 0o777, 0o600);
  assert.equal(recoverInterruptedImport(home), 0);
  assert.equal(state(home).graph, 'graph.db-merged', 'the import is not undone');
  assert.deepEqual(committedImport(journalPath(home)), { tombstones: stones, replacements: [] }, 'the tombstones wait to be recorded');
  // Decision 0620: the replaced turns it brings wait with them (none in a record written before it).
  const replaced = [{ turnId: 'webui:a#1', byTurn: 'webui:a#2' }];
  commitJournal(journalPath(home), stones, replaced);
  assert.deepEqual(committedImport(journalPath(home)), { tombstones: stones, replacements: replaced });
  // Before the commit point the journal is no commit record; a damaged one neither.
  writeJournal(journalPath(home), ops);
  assert.equal(committedImport(journalPath(home)), undefined);
  writeFileSync(journalPath(home), JSON.stringify({ v: 1, ops: [], committed: { tombstones: [{ ref: 1 }] } }));
  assert.equal(committedImport(journalPath(home)), undefined);
  assert.equal(committedImport(join(home, 'nothing.json')), undefined);
  rmSync(home, { recursive: true, force: true });
});
