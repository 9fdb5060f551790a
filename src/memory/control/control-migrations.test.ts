/**
 * Migration 7 of `memory-control.db` (decision 0700) over a real SQLite file at version 6: every
 * exclusion starts unswept (the first open sweeps each once and marks it), and the ids of what the
 * exclusions and pending replacements hold are tied to their turns, so an undo that writes back a
 * fact naming only one of them is known to come from the turn. A payload that is not JSON is skipped.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CONTROL_MIGRATIONS, migrateControl } from './control-migrations.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-control-migrations-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('0700: migration 7 leaves every exclusion to be swept once and ties the held items\' ids to their turns', () => {
  const file = path.join(root, 'memory-control.db');
  const db = new Database(file);
  try {
    for (let v = 0; v < 6; v++) db.exec(CONTROL_MIGRATIONS[v]);
    db.pragma('user_version = 6');
    const held = { v: 1, events: [{ id: 'ev-1' }], docs: [{ doc: { id: 'doc-1' } }], archived: [{ doc: { id: 'arc-1' } }], graph: [{ before: { entities: [], relations: [] }, refs: ['webui:1#1', 'ev-1', 'ev-0'] }], triples: [] };
    db.prepare('INSERT INTO exclusions(turn_id, session_id, at, held) VALUES (?, ?, ?, ?)').run('webui:1#1', 'webui:1', 1, JSON.stringify(held));
    db.prepare('INSERT INTO exclusions(turn_id, session_id, at, held) VALUES (?, ?, ?, ?)').run('webui:1#2', 'webui:1', 2, 'not json');
    db.prepare('INSERT INTO replacements(turn_id, session_id, at, held) VALUES (?, ?, ?, ?)').run('webui:1#3', 'webui:1', 3, JSON.stringify({ v: 1, events: [{ id: 'ev-3' }] }));
    migrateControl(db);
    assert.equal(db.pragma('user_version', { simple: true }), CONTROL_MIGRATIONS.length);
    assert.deepEqual(db.prepare('SELECT turn_id, swept_at FROM exclusions ORDER BY turn_id').all(), [
      { turn_id: 'webui:1#1', swept_at: null },
      { turn_id: 'webui:1#2', swept_at: null },
    ]);
    assert.deepEqual(db.prepare('SELECT ref, turn_id FROM turn_refs ORDER BY ref').all(), [
      { ref: 'arc-1', turn_id: 'webui:1#1' },
      { ref: 'doc-1', turn_id: 'webui:1#1' },
      { ref: 'ev-0', turn_id: 'webui:1#1' },
      { ref: 'ev-1', turn_id: 'webui:1#1' },
      { ref: 'ev-3', turn_id: 'webui:1#3' },
    ]);
  } finally {
    db.close();
  }
});
