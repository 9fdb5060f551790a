import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyOp, journalPath, planSwap, recoverInterruptedImport, writeJournal } from './swap-journal.js';

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
