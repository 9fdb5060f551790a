import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GraphDB } from './graph-db.js';
import type { GraphChange } from './graph-state.js';
import { ConflictError } from '../../spec/index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-supersede-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const DAY = 86_400_000;
const T0 = Date.UTC(2025, 0, 10);

function fresh(): { g: GraphDB; changes: GraphChange[]; clock: { t: number } } {
  const changes: GraphChange[] = [];
  const clock = { t: T0 };
  const g = new GraphDB({ path: path.join(root, `g${n++}`, 'graph.db'), now: () => clock.t, onChange: (c) => changes.push(...c) });
  g.open();
  return { g, changes, clock };
}

const lives = (g: GraphDB) => g.relationsOf('user', 'lives_in').map((r) => [r.object, r.validFrom, r.validTo ?? null]);

test('K-4: a new value of a single-valued predicate closes the old one at the time it was said, instead of deleting or duplicating it', () => {
  const { g, changes } = fresh();
  g.commit([{ subject: 'user', predicate: 'lives_in', object: '杭州', refs: ['s#1'], validFrom: T0 }]);
  g.commit([{ subject: 'user', predicate: 'likes', object: 'tea', refs: ['s#1'], validFrom: T0 }]);
  g.commit([{ subject: 'user', predicate: 'lives_in', object: '上海', refs: ['s#2'], validFrom: T0 + 30 * DAY }]);
  assert.deepEqual(lives(g), [['上海', T0 + 30 * DAY, null], ['杭州', T0, T0 + 30 * DAY]], 'current first; the old one ends when the new one began');
  g.commit([{ subject: 'user', predicate: 'likes', object: 'coffee', refs: ['s#2'], validFrom: T0 + 30 * DAY }]);
  assert.deepEqual(g.relationsOf('user', 'likes').map((r) => r.validTo ?? null), [null, null], 'a multi-valued predicate is not superseded');
  const sup = changes.find((c) => c.op === 'supersede')!;
  assert.match(sup.summary, /user lives_in 上海 \(replaces 杭州\)/);
  assert.equal(sup.before.relations.find((r) => r.id === lives(g).length - 1 + 0)?.validTo ?? null, null);
  // An older statement distilled late (a cold document) takes its place in the past, not the present.
  g.commit([{ subject: 'user', predicate: 'lives_in', object: '北京', refs: ['s#0'], validFrom: T0 - 100 * DAY }]);
  assert.deepEqual(lives(g), [['上海', T0 + 30 * DAY, null], ['杭州', T0, T0 + 30 * DAY], ['北京', T0 - 100 * DAY, T0]]);
  // Said again while it holds: strengthened, not moved.
  g.commit([{ subject: 'user', predicate: 'lives_in', object: '上海', refs: ['s#3'], validFrom: T0 + 40 * DAY }]);
  assert.deepEqual(lives(g)[0], ['上海', T0 + 30 * DAY, null]);
  // Moving back: the old place holds again from then on.
  g.commit([{ subject: 'user', predicate: 'lives_in', object: '杭州', refs: ['s#4'], validFrom: T0 + 90 * DAY }]);
  assert.deepEqual(lives(g).slice(0, 2), [['杭州', T0 + 90 * DAY, null], ['上海', T0 + 30 * DAY, T0 + 90 * DAY]]);
  g.close();
});

test('K-4: deleting the current value (a review verdict, forget) lets the one it replaced hold again; an edit keeps one timeline', () => {
  const { g } = fresh();
  g.commit([{ subject: 'user', predicate: 'works_at', object: 'Acme', refs: ['a#1'], validFrom: T0 }]);
  g.commit([{ subject: 'user', predicate: 'works_at', object: 'Globex', refs: ['a#2'], validFrom: T0 + DAY }]);
  const [cur] = g.relationsOf('user', 'works_at');
  assert.equal(cur.object, 'Globex');
  assert.equal(g.deleteRelation(cur.id), true);
  assert.deepEqual(g.relationsOf('user', 'works_at').map((r) => [r.object, r.validTo ?? null]), [['Acme', null]]);
  g.commit([{ subject: 'user', predicate: 'works_at', object: 'Initech', refs: ['a#3'], validFrom: T0 + 2 * DAY }]);
  const ini = g.relationsOf('user', 'works_at')[0];
  g.editRelation(ini.id, { object: 'Initrode' });
  assert.deepEqual(g.relationsOf('user', 'works_at').map((r) => [r.object, r.validTo ?? null]), [['Initrode', null], ['Acme', T0 + 2 * DAY]]);
  // Forget of the only source of the current value: the previous one holds again.
  g.deleteByRefs(['a#3']);
  assert.deepEqual(g.relationsOf('user', 'works_at').map((r) => [r.object, r.validTo ?? null]), [['Acme', null]]);
  g.close();
});

test('K-3: every write reports its rows before and after; undo puts them back, and refuses when a later change touched them', () => {
  const { g, changes } = fresh();
  g.commit([{ subject: 'user', predicate: 'lives_in', object: '杭州', refs: ['s#1'], validFrom: T0 }]);
  g.commit([{ subject: 'user', predicate: 'lives_in', object: '上海', refs: ['s#2'], validFrom: T0 + 30 * DAY }]);
  const sup = changes.at(-1)!;
  assert.equal(sup.op, 'supersede');
  g.applyUndo(sup.before, sup.after);
  assert.deepEqual(lives(g), [['杭州', T0, null]], 'undo of the move: 杭州 holds again, 上海 is gone');
  assert.equal(g.getEntity('上海'), undefined, 'the entity the change created went with it');
  // Undo of an entity edit; a later edit of the same entity makes the earlier undo conflict.
  g.editEntity('杭州', { type: 'city' });
  const e1 = changes.at(-1)!;
  g.editEntity('杭州', { attributes: { province: '浙江' } });
  const e2 = changes.at(-1)!;
  assert.throws(() => g.applyUndo(e1.before, e1.after), ConflictError);
  g.applyUndo(e2.before, e2.after);
  g.applyUndo(e1.before, e1.after);
  assert.equal(g.getEntity('杭州')?.type, 'entity');
  // A merge comes back whole.
  g.commit([{ subject: 'Anna', predicate: 'knows', object: 'Bo', refs: ['s#5'] }, { subject: 'anna s.', predicate: 'likes', object: 'tea', refs: ['s#6'] }]);
  g.merge('Anna', 'anna s.');
  const m = changes.at(-1)!;
  assert.equal(m.op, 'merge');
  g.applyUndo(m.before, m.after);
  assert.ok(g.getEntity('anna s.'));
  assert.deepEqual(g.relations({ entity: 'anna s.' }).items.map((r) => `${r.subject} ${r.predicate} ${r.object}`), ['anna s. likes tea']);
  assert.deepEqual(g.sourcesOf(g.relations({ entity: 'anna s.' }).items[0].id), [{ ref: 's#6' }]);
  // A deleted entity comes back with its facts and their sources.
  g.deleteEntity('Anna');
  const d = changes.at(-1)!;
  g.applyUndo(d.before, d.after);
  assert.deepEqual(g.relations({ entity: 'Anna' }).items.map((r) => `${r.subject} ${r.predicate} ${r.object}`), ['Anna knows Bo']);
  g.close();
});

test('M-9: detachRefs takes a turn out of the graph (sentences said in it too) and reattach puts it back, merged with what happened meanwhile', () => {
  const { g } = fresh();
  g.commit([
    { subject: 'user', predicate: 'lives_in', object: '杭州', refs: ['s#1', 'e1'], sentence: '我住在杭州', validFrom: T0 },
    { subject: 'user', predicate: 'likes', object: 'tea', refs: ['s#1', 'e1'], sentence: '我喜欢茶', validFrom: T0 },
    { subject: 'user', predicate: 'likes', object: 'tea', refs: ['s#9'], validFrom: T0 + DAY },
    { subject: 'user', predicate: 'lives_in', object: '上海', refs: ['s#2'], validFrom: T0 + 30 * DAY },
  ]);
  const out = g.detachRefs(['s#1', 'e1'], ['我住在杭州，我喜欢茶']);
  assert.equal(out.relations, 1, 'the fact only that turn supports goes');
  assert.equal(g.getEntity('杭州'), undefined, 'and its bare entity');
  const tea = g.relationsOf('user', 'likes')[0];
  assert.equal(tea.sentence, undefined, 'a surviving fact loses the sentence said in the turn');
  assert.deepEqual(tea.refs, ['s#9']);
  assert.deepEqual(lives(g), [['上海', T0 + 30 * DAY, null]]);
  g.commit([{ subject: 'user', predicate: 'lives_in', object: '杭州', refs: ['s#7'], validFrom: T0 + 60 * DAY }]);
  assert.equal(g.reattach(out.before, ['s#1', 'e1']), 2);
  const l = lives(g);
  assert.deepEqual(l.map((x) => [x[0], x[1]]), [['杭州', T0 + 60 * DAY], ['上海', T0 + 30 * DAY]], 'the restored fact joined the one learned again, which still holds since the move back');
  assert.equal(g.relationsOf('user', 'likes')[0].sentence, '我喜欢茶');
  assert.deepEqual(g.sourcesOf(g.relationsOf('user', 'likes')[0].id).map((s) => s.ref).sort(), ['e1', 's#1', 's#9']);
  g.close();
});

test('a v4 graph.db gains validity: existing facts hold since they were recorded', () => {
  const { g } = fresh();
  g.commit([{ subject: 'user', predicate: 'age', object: '30' }]);
  assert.equal(g.relationsOf('user', 'age')[0].validFrom, T0);
  g.close();
});

test('decision 0490: a dislike said later ends the liking of the same thing (and back); only one of them is current', () => {
  const { g, changes } = fresh();
  const taste = () => [...g.relationsOf('user', 'likes'), ...g.relationsOf('user', 'dislikes')].map((r) => [r.predicate, r.object, r.validTo ?? null]).sort();
  g.commit([{ subject: 'user', predicate: 'likes', object: 'strong black coffee', refs: ['s#1'], validFrom: T0 }]);
  g.commit([{ subject: 'user', predicate: 'likes', object: 'tea', refs: ['s#1'], validFrom: T0 }]);
  g.commit([{ subject: 'user', predicate: 'dislikes', object: 'strong black coffee', refs: ['s#2'], validFrom: T0 + DAY }]);
  assert.deepEqual(taste(), [['dislikes', 'strong black coffee', null], ['likes', 'strong black coffee', T0 + DAY], ['likes', 'tea', null]]);
  assert.match(changes.at(-1)!.summary, /user dislikes strong black coffee \(replaces likes strong black coffee\)/);
  g.commit([{ subject: 'user', predicate: 'likes', object: 'strong black coffee', refs: ['s#3'], validFrom: T0 + 5 * DAY }]);
  assert.deepEqual(taste(), [['dislikes', 'strong black coffee', T0 + 5 * DAY], ['likes', 'strong black coffee', null], ['likes', 'tea', null]], 'liked again: the dislike ends');
  // Deleting the later one lets the earlier hold again, as for a single-valued predicate.
  g.deleteRelation(g.relationsOf('user', 'likes').find((r) => r.object === 'strong black coffee')!.id);
  assert.deepEqual(taste(), [['dislikes', 'strong black coffee', null], ['likes', 'tea', null]]);
  g.close();
});

test('decision 0490: works_as is the current job unless said to be held alongside; a name in another script is not replaced', () => {
  const { g } = fresh();
  const jobs = () => g.relationsOf('user', 'works_as').map((r) => [r.object, r.validTo ?? null]).sort();
  g.commit([{ subject: 'user', predicate: 'works_as', object: 'sound engineer', refs: ['s#1'], validFrom: T0 }]);
  g.commit([{ subject: 'user', predicate: 'works_as', object: 'teacher', sentence: 'now I work as a teacher.', refs: ['s#2'], validFrom: T0 + DAY }]);
  assert.deepEqual(jobs(), [['sound engineer', T0 + DAY], ['teacher', null]]);
  g.commit([{ subject: 'user', predicate: 'works_as', object: 'translator', sentence: 'I also work as a translator.', refs: ['s#3'], validFrom: T0 + 2 * DAY }]);
  assert.deepEqual(jobs(), [['sound engineer', T0 + DAY], ['teacher', null], ['translator', null]], 'a job held alongside ends nothing');

  const names = () => g.relationsOf('user', 'name').map((r) => [r.object, r.validTo ?? null]).sort();
  g.commit([{ subject: 'user', predicate: 'name', object: 'Robin Vance', refs: ['s#4'], validFrom: T0 }]);
  g.commit([{ subject: 'user', predicate: 'name', object: '林小雨', refs: ['s#5'], validFrom: T0 + DAY }]);
  assert.deepEqual(names(), [['Robin Vance', null], ['林小雨', null]], 'a bilingual person keeps a name in each script');
  g.commit([{ subject: 'user', predicate: 'name', object: 'Robin Lin', refs: ['s#6'], validFrom: T0 + 2 * DAY }]);
  assert.deepEqual(names(), [['Robin Lin', null], ['Robin Vance', T0 + 2 * DAY], ['林小雨', null]], 'a new name in the same script replaces the old one');
  g.close();
});

test('a home that ended: no_longer_lives_in X ends the home X from then on (not a home elsewhere) and holds until a home is said again', () => {
  const { g } = fresh();
  const timeline = () =>
    [...g.relationsOf('user', 'lives_in'), ...g.relationsOf('user', 'no_longer_lives_in')]
      .sort((a, b) => (a.validFrom ?? 0) - (b.validFrom ?? 0))
      .map((r) => `${r.predicate} ${r.object} ${(r.validFrom! - T0) / DAY}..${r.validTo == null ? 'now' : (r.validTo - T0) / DAY}`);
  g.commit([{ subject: 'user', predicate: 'lives_in', object: 'Berlin', refs: ['s#1'], validFrom: T0 }]);
  g.commit([{ subject: 'user', predicate: 'no_longer_lives_in', object: 'Berlin', refs: ['s#2'], validFrom: T0 + 10 * DAY }]);
  assert.deepEqual(timeline(), ['lives_in Berlin 0..10', 'no_longer_lives_in Berlin 10..now'], 'the home ends; no home is current');
  g.commit([{ subject: 'user', predicate: 'lives_in', object: 'Paris', refs: ['s#3'], validFrom: T0 + 20 * DAY }]);
  assert.deepEqual(timeline(), ['lives_in Berlin 0..10', 'no_longer_lives_in Berlin 10..20', 'lives_in Paris 20..now']);
  // An end of another place leaves the current home alone.
  g.commit([{ subject: 'user', predicate: 'no_longer_lives_in', object: 'Rome', refs: ['s#4'], validFrom: T0 + 30 * DAY }]);
  assert.deepEqual(timeline().slice(2), ['lives_in Paris 20..now', 'no_longer_lives_in Rome 30..now']);
  // Deleting the end (a wrong fact) gives the home back.
  const end = g.relationsOf('user', 'no_longer_lives_in').find((r) => r.object === 'Berlin')!;
  assert.equal(g.deleteRelation(end.id), true);
  assert.deepEqual(timeline().slice(0, 2), ['lives_in Berlin 0..20', 'lives_in Paris 20..now']);
  g.close();
});

test('a job that ended: no_longer_works_at X ends works_at X, and a new employer ends the end', () => {
  const { g } = fresh();
  const current = () => [...g.relationsOf('user', 'works_at'), ...g.relationsOf('user', 'no_longer_works_at')].filter((r) => r.validTo == null).map((r) => `${r.predicate} ${r.object}`);
  g.commit([{ subject: 'user', predicate: 'works_at', object: 'Acme', refs: ['s#1'], validFrom: T0 }]);
  g.commit([{ subject: 'user', predicate: 'no_longer_works_at', object: 'Acme', refs: ['s#2'], validFrom: T0 + DAY }]);
  assert.deepEqual(current(), ['no_longer_works_at Acme']);
  g.commit([{ subject: 'user', predicate: 'works_at', object: 'Globex', refs: ['s#3'], validFrom: T0 + 2 * DAY }]);
  assert.deepEqual(current(), ['works_at Globex']);
  g.close();
});

test('work one no longer does: no_longer_works_as X ends works_as X, a job held alongside included', () => {
  const { g } = fresh();
  const current = () => [...g.relationsOf('user', 'works_as'), ...g.relationsOf('user', 'no_longer_works_as')].filter((r) => r.validTo == null).map((r) => `${r.predicate} ${r.object}`).sort();
  g.commit([{ subject: 'user', predicate: 'works_as', object: 'nurse', refs: ['s#1'], validFrom: T0, sentence: 'I am a nurse.' }]);
  g.commit([{ subject: 'user', predicate: 'works_as', object: 'translator', refs: ['s#2'], validFrom: T0 + DAY, sentence: 'I also work as a translator.' }]);
  assert.deepEqual(current(), ['works_as nurse', 'works_as translator']);
  // The side job ends; the main one stays.
  g.commit([{ subject: 'user', predicate: 'no_longer_works_as', object: 'translator', refs: ['s#3'], validFrom: T0 + 2 * DAY, sentence: "I'm not a translator anymore." }]);
  assert.deepEqual(current(), ['no_longer_works_as translator', 'works_as nurse']);
  // The main one ends; no job is current but the two ends.
  g.commit([{ subject: 'user', predicate: 'no_longer_works_as', object: 'Nurse', refs: ['s#4'], validFrom: T0 + 3 * DAY, sentence: "I'm no longer a nurse." }]);
  assert.deepEqual(current(), ['no_longer_works_as nurse', 'no_longer_works_as translator']);
  // A new job ends the ends.
  g.commit([{ subject: 'user', predicate: 'works_as', object: 'teacher', refs: ['s#5'], validFrom: T0 + 4 * DAY, sentence: 'I work as a teacher now.' }]);
  assert.deepEqual(current(), ['works_as teacher']);
  g.close();
});

test('0730: a job or a place said in the other language is the value that holds, said again — not a new one that ends it', () => {
  const { g, changes } = fresh();
  const jobs = () => g.relationsOf('user', 'works_as').map((r) => [r.object, r.validTo ?? null, [...(r.refs ?? [])].sort()]);
  g.commit([{ subject: 'user', predicate: 'works_as', object: '护士', refs: ['s#1'], validFrom: T0 }]);
  g.commit([{ subject: 'user', predicate: 'works_as', object: 'nurse', refs: ['s#2'], validFrom: T0 + DAY }]);
  assert.deepEqual(jobs(), [['护士', null, ['s#1', 's#2']]], 'one job, current, with both sources');
  assert.equal(changes.some((c) => c.op === 'supersede'), false);
  assert.equal(g.getEntity('nurse'), undefined, 'no entity for the other words');
  g.commit([{ subject: 'user', predicate: 'lives_in', object: 'Hangzhou', refs: ['s#3'], validFrom: T0 }]);
  g.commit([{ subject: 'user', predicate: 'lives_in', object: '杭州市', refs: ['s#4'], validFrom: T0 + DAY }]);
  assert.deepEqual(lives(g), [['Hangzhou', T0, null]]);
  // "I don't live in Hangzhou anymore" said in Chinese ends it.
  g.commit([{ subject: 'user', predicate: 'no_longer_lives_in', object: '杭州', refs: ['s#5'], validFrom: T0 + 2 * DAY }]);
  assert.deepEqual(lives(g), [['Hangzhou', T0, T0 + 2 * DAY]]);
  // A real change in the other language is still a change; so is another job in the same language.
  g.commit([{ subject: 'user', predicate: 'works_as', object: 'teacher', refs: ['s#6'], validFrom: T0 + 3 * DAY }]);
  assert.deepEqual(jobs().map((j) => [j[0], j[1]]), [['teacher', null], ['护士', T0 + 3 * DAY]]);
  g.commit([{ subject: 'user', predicate: 'works_as', object: 'doctor', refs: ['s#7'], validFrom: T0 + 4 * DAY }]);
  assert.equal(jobs()[0][0], 'doctor');
  // Not in the table, or not a job/place predicate: names are names.
  g.commit([{ subject: 'user', predicate: 'likes', object: 'tea', refs: ['s#8'] }, { subject: 'user', predicate: 'likes', object: '茶', refs: ['s#9'] }]);
  assert.equal(g.relationsOf('user', 'likes').length, 2);
  g.close();
});
