import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GraphDB } from './graph-db.js';
import type { GraphChange } from './graph-state.js';
import { WHOLE_SOURCES_MAX } from './source-delta.js';
import { ConflictError } from '../../spec/index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-graph-delta-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;

function rig() {
  const clock = { t: Date.UTC(2026, 0, 1) };
  const changes: GraphChange[] = [];
  const g = new GraphDB({ path: path.join(root, `g${n++}`, 'graph.db'), now: () => clock.t, onChange: (c) => changes.push(...c) });
  g.open();
  /** The fact said once more, from turn `i`; returns its row as it was before. */
  const say = (i: number) => {
    clock.t += 60_000;
    g.commit([{ subject: 'user', predicate: 'likes', object: 'coffee', refs: [`webui:1#${i}`], speaker: i % 2 ? 'owner' : undefined }]);
  };
  const row = () => {
    const id = g.matchingFacts(['coffee'])[0]?.id;
    if (id === undefined) return undefined;
    const s = g.stateOf({ relations: [id] }).relations[0];
    // What undo must give back exactly (times of touch aside, as the conflict check does).
    return { confidence: s.confidence, refs: s.refs, sources: [...s.sources].sort((a, b) => a.ref.localeCompare(b.ref)), validFrom: s.validFrom, validTo: s.validTo, sentence: s.sentence };
  };
  return { g, changes, say, row };
}

test('a fact said again and again: history keeps what each saying changed, not the whole source list, and undo still puts every row back exactly', () => {
  const { g, changes, say, row } = rig();
  const rows: ReturnType<typeof row>[] = [];
  for (let i = 1; i <= 60; i++) {
    rows.push(row());
    say(i);
  }
  assert.equal(row()!.sources.length, 60);
  assert.equal((JSON.parse(row()!.refs) as string[]).length, 50, 'the refs column is capped: the first ten were pushed out');
  const rel = changes.filter((c) => c.kind === 'relation');
  assert.equal(rel.length, 60);
  // Small relations are kept whole; past the threshold, each entry holds one added source.
  assert.equal(rel[3].after.relations[0].sources.length, 4);
  const late = rel[59];
  assert.deepEqual(late.after.relations[0].sources, []);
  assert.deepEqual(late.after.relations[0].delta?.sourcesAdded?.map((s) => s.ref), ['webui:1#60']);
  assert.equal(late.after.relations[0].delta?.sourceCount, 60);
  // Linear, not quadratic: the last entry is no bigger than one from just past the threshold.
  const size = (c: GraphChange) => JSON.stringify([c.before, c.after]).length;
  assert.ok(size(late) < size(rel[WHOLE_SOURCES_MAX + 1]) * 1.2, `${size(late)} vs ${size(rel[WHOLE_SOURCES_MAX + 1])}`);
  assert.doesNotMatch(JSON.stringify(late), /webui:1#7"/, 'an older source is not repeated in a later entry');

  // Undo out of order is refused: a later saying changed the row.
  assert.throws(() => g.applyUndo(rel[40].before, rel[40].after), ConflictError);
  // Undo from the newest back: each step gives the row exactly as it was before that saying,
  // across the refs column's cap (refs pushed out come back) and down into whole entries.
  for (let i = 59; i >= 1; i--) {
    g.applyUndo(rel[i].before, rel[i].after);
    assert.deepEqual(row(), rows[i], `after undoing saying ${i + 1}`);
  }
  g.applyUndo(rel[0].before, rel[0].after);
  assert.equal(row(), undefined, 'undoing the first saying removes the fact');
  g.close();
});

test('a delta entry whose row was changed in another way (a source removed by a forget) is a conflict, not a wrong undo', () => {
  const { g, changes, say } = rig();
  for (let i = 1; i <= 12; i++) say(i);
  const last = changes.filter((c) => c.kind === 'relation').at(-1)!;
  assert.ok(last.after.relations[0].delta);
  // Another path removes one source (what excluding or forgetting a turn does).
  g.detachRefs(['webui:1#3'], []);
  assert.throws(() => g.applyUndo(last.before, last.after), ConflictError);
  g.close();
});
