/**
 * Decision 0520 over the real memory system on disk: the person said "我叫小林，住在杭州" in one
 * turn, and forgets the turn but keeps their name. The name stays in the graph citing only the kept
 * source — no sentence, no link to the turn, nothing of 杭州 in any tier, the graph file, the
 * history or the logs — and survives a reindex and a restart; the place goes. A keep that names an
 * unknown fact, or one the turns did not give, is refused before anything goes.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { keptFactAt, keptFactSource, NotFoundError, ValidationError, ConflictError } from '../../spec/index.js';
import { chatAt, openMemoryAt, traces } from '../__fixtures__/memory-on-disk.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-forget-keep-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const SID = 'webui:1';

/** A chat where the person gave their name and their city in one turn, distilled by the rule distiller. */
async function world() {
  const w = await chatAt(root);
  const said = await w.say('我叫小林，住在杭州', '好的，小林。');
  const other = await w.say('我喜欢喝茉莉花茶', '记住了。');
  await w.mem.heartbeats.runOnce('rules');
  const fact = (predicate: string) => w.mem.graph.relationsOf('user', predicate)[0];
  assert.equal(fact('name')?.object, '小林', 'the distiller took the name');
  assert.equal(fact('lives_in')?.object, '杭州', 'and the place');
  return { ...w, said, other, fact };
}

/** Every file of the data folder that holds `word` (the graph, the logs, memory-control …), by name. */
function filesHolding(home: string, word: string): string[] {
  const out: string[] = [];
  const needle = Buffer.from(word, 'utf8');
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (fs.readFileSync(p).includes(needle)) out.push(path.relative(home, p));
    }
  };
  walk(home);
  return out;
}

test('0520: the preview marks the facts that go with the turns; forgetting the turn with the name kept leaves the name and nothing else of the turn', async () => {
  const w = await world();
  const name = w.fact('name');
  const place = w.fact('lives_in');
  const plan = await w.mem.control.forgetPreview({ query: '杭州' });
  assert.deepEqual(plan.turns.map((t) => t.turnId), [w.said.turnId]);
  const byId = new Map(plan.facts.map((f) => [f.id, f]));
  assert.equal(byId.get(place.id)?.withTurns, true);
  // The name's sentence says 杭州: found by the words, and marked as one that goes with the turn.
  assert.equal(byId.get(name.id)?.withTurns, true, JSON.stringify(plan.facts));

  const res = await w.mem.control.forget({ turnIds: [w.said.turnId], relationIds: [place.id], keepRelationIds: [name.id] });
  assert.equal(res.turns, 1);
  assert.equal(res.keptFacts, 1);
  assert.equal(res.relations, 1, 'the place went');

  const kept = w.mem.graph.relation(name.id)!;
  assert.deepEqual([kept.subject, kept.predicate, kept.object], ['user', 'name', '小林']);
  assert.equal(kept.sentence, undefined, 'the sentence was said in the forgotten turn');
  assert.equal(kept.refs?.length, 1);
  assert.equal(keptFactAt(kept.refs), w.clock.t, 'it cites the kept source, with the time of the forget');
  assert.deepEqual(w.mem.graph.sourcesOf(name.id), [{ ref: keptFactSource(w.clock.t), speaker: 'user' }], 'who stated it stays: the owner');
  assert.equal(kept.validFrom, name.validFrom, 'its timeline is the fact’s own and stays');
  assert.equal(w.mem.graph.relationsOf('user', 'lives_in').length, 0);
  assert.ok(w.mem.control.isTombstonedFact('user', 'lives_in', '杭州'));
  assert.ok(!w.mem.control.isTombstonedFact('user', 'name', '小林'), 'a kept fact is no forgotten fact (an import or a new saying keeps it)');

  // Nothing of the turn, anywhere: not in a tier, nor in a file of the data folder.
  assert.deepEqual(await traces(w.mem, '杭州'), []);
  assert.deepEqual(await traces(w.mem, '我叫小林'), []);
  await w.mem.context.flush();
  assert.deepEqual(filesHolding(w.home, '杭州'), []);
  assert.deepEqual(filesHolding(w.home, '我叫小林'), [], 'the sentence the fact cited is in no file');
  // The turn keeps its place in the log (`[forgotten]`) and the history its redacted traces, as any
  // forget leaves them; the kept fact names it nowhere.
  assert.deepEqual(filesHolding(w.home, w.said.turnId).filter((f) => f.startsWith('graph')), []);
  assert.ok(!(await w.sessions.events(SID)).some((e) => e.turnId === w.said.turnId && !e.data?.redacted));
  assert.ok((await w.sessions.events(SID)).some((e) => e.text === '我喜欢喝茉莉花茶'), 'the other turn stays');

  // Recall finds the name, with no turn to jump to.
  const hit = (await w.mem.recall.search('小林', { k: 20 })).find((h) => h.id === `relation:${name.id}`);
  assert.ok(hit, 'recall finds the kept fact');
  assert.equal(hit.turnId, undefined);
  // A group or someone else's chat cannot be shown to have heard it: the owner's only.
  assert.equal(w.mem.recall.factInScope(kept, ['qq:group:1']), false);

  // The history says it was kept, names no turn, and holds nothing of what was forgotten.
  const history = w.mem.control.history({ limit: 1000 });
  const keep = history.find((h) => h.op === 'keep');
  assert.equal(keep?.target, `relation:${name.id}`);
  assert.equal(keep?.summary, 'kept user name 小林 (the turn it came from was forgotten)');
  assert.equal(keep?.turnId, undefined);
  assert.doesNotMatch(JSON.stringify(history), /杭州|我叫小林/);
  // The fact's own earlier entries held the sentence: they are redacted traces now.
  assert.ok(history.filter((h) => h.target === `relation:${name.id}` && h.op === 'create').every((h) => h.redacted && h.before === undefined && h.after === undefined));
  await assert.rejects(w.mem.control.undo(keep!.id), ConflictError, 'nothing to undo: the turn is gone for good');
  await w.close();
});

test('0520: a kept fact survives a reindex and a restart; forgotten by hand later, it goes', async () => {
  const w = await world();
  const name = w.fact('name');
  await w.mem.control.forget({ turnIds: [w.said.turnId], keepRelationIds: [name.id] });
  // The session log still has the turn's place (as `[forgotten]`): a reindex must bring nothing back.
  await w.mem.reindex();
  await w.mem.heartbeats.runOnce('rules');
  assert.deepEqual(await traces(w.mem, '杭州'), []);
  assert.equal(w.mem.graph.relationsOf('user', 'lives_in').length, 0);
  assert.ok(keptFactAt(w.mem.graph.relation(name.id)?.refs) !== undefined);
  await w.close();

  const again = await openMemoryAt(w.home, w.clock);
  const kept = again.mem.graph.relationsOf('user', 'name')[0];
  assert.equal(kept?.object, '小林', 'kept across a restart');
  assert.ok(keptFactAt(kept.refs) !== undefined);
  // A later forget of the tea turn does not take it (it cites no turn now).
  const tea = (await again.sessions.events(SID)).find((e) => e.text === '我喜欢喝茉莉花茶')!;
  await again.mem.control.forget({ turnIds: [tea.turnId] });
  assert.equal(again.mem.graph.relationsOf('user', 'name').length, 1);
  // The person can still forget the fact itself.
  const plan = await again.mem.control.forgetPreview({ query: '小林' });
  assert.deepEqual(plan.facts.map((f) => f.id), [kept.id]);
  await again.mem.control.forget({ relationIds: [kept.id] });
  assert.equal(again.mem.graph.relationsOf('user', 'name').length, 0);
  await again.close();
});

test('0520: bad keeps are refused before anything goes — an unknown fact, a fact the turns did not give, a fact both forgotten and kept, a keep without turns', async () => {
  const w = await world();
  const name = w.fact('name');
  const tea = w.mem.graph.relationsOf('user', 'likes')[0];
  assert.ok(tea, 'the tea turn gave a fact of its own');
  const untouched = async () => {
    assert.ok(!w.mem.control.isTombstoned(w.said.turnId), 'no tombstone');
    assert.deepEqual(await traces(w.mem, '杭州'), ['context', 'graph', 'recall'], 'nothing forgotten');
    assert.ok(w.mem.graph.relation(name.id)?.sentence, 'the fact as it was');
  };
  await assert.rejects(w.mem.control.forget({ turnIds: [w.said.turnId], keepRelationIds: [987654] }), (e: unknown) => e instanceof NotFoundError && /fact/.test(e.message));
  await untouched();
  await assert.rejects(w.mem.control.forget({ turnIds: [w.said.turnId], keepRelationIds: [tea.id] }), (e: unknown) => e instanceof ValidationError && /not learned from the turns being forgotten/.test(e.message));
  await untouched();
  await assert.rejects(w.mem.control.forget({ turnIds: [w.said.turnId], relationIds: [name.id], keepRelationIds: [name.id] }), (e: unknown) => e instanceof ValidationError && /both to forget and to keep/.test(e.message));
  await assert.rejects(w.mem.control.forget({ relationIds: [tea.id], keepRelationIds: [name.id] }), ValidationError);
  await assert.rejects(w.mem.control.forget({ turnIds: [w.said.turnId], keepRelationIds: [1.5] }), ValidationError);
  await untouched();
  assert.ok(w.mem.graph.relation(tea.id), 'the fact asked for alongside a bad keep is still there');
  await w.close();
});

test('0520: without a keep, the name goes with its turn (what the person could not prevent before)', async () => {
  const w = await world();
  await w.mem.control.forget({ turnIds: [w.said.turnId] });
  assert.equal(w.mem.graph.relationsOf('user', 'name').length, 0);
  await w.close();
});

test('0520: a forget with a keep that a kill cut off after its commit point keeps the fact when it is finished at the next open', async () => {
  const w = await world();
  const name = w.fact('name');
  const place = w.fact('lives_in');
  await w.close();
  // What the commit point records (decision 0410), as a kill right after it leaves it.
  const db = new Database(path.join(w.home, 'memory-control.db'));
  const body = { request: { turnIds: [w.said.turnId], relationIds: [place.id], keepRelationIds: [name.id] }, meta: { actor: 'user', tool: 'webui' }, said: [], other: [], factTexts: [], names: [] };
  db.prepare('INSERT INTO forget_pending(key, body, tries, at) VALUES (?, ?, 0, ?)').run('cut-off', JSON.stringify(body), w.clock.t);
  db.close();
  const again = await openMemoryAt(w.home, w.clock);
  const kept = again.mem.graph.relation(name.id);
  assert.equal(kept?.object, '小林', 'kept');
  assert.ok(keptFactAt(kept.refs) !== undefined);
  assert.equal(kept.sentence, undefined);
  assert.equal(again.mem.graph.relationsOf('user', 'lives_in').length, 0);
  assert.deepEqual(await traces(again.mem, '杭州'), []);
  assert.equal(again.mem.control.history({ limit: 100 }).filter((h) => h.op === 'keep').length, 1);
  await again.close();
});

test('0520: a forget cut off after it kept the fact (before its record was dropped) is finished at the next open, not refused for a fact that cites no turn any more', async () => {
  const w = await world();
  const name = w.fact('name');
  const request = { turnIds: [w.said.turnId], keepRelationIds: [name.id] };
  await w.mem.control.forget(request);
  await w.close();
  // Its record still there, as a kill after the graph step and before the last transaction leaves it.
  const db = new Database(path.join(w.home, 'memory-control.db'));
  db.prepare('INSERT INTO forget_pending(key, body, tries, at) VALUES (?, ?, 0, ?)').run('cut-late', JSON.stringify({ request, meta: {}, said: [], other: [], factTexts: [], names: [] }), w.clock.t);
  db.close();
  const again = await openMemoryAt(w.home, w.clock);
  assert.equal(again.mem.graph.relation(name.id)?.object, '小林');
  await again.close();
  const check = new Database(path.join(w.home, 'memory-control.db'), { readonly: true });
  const left = (check.prepare('SELECT count(*) AS n FROM forget_pending').get() as { n: number }).n;
  check.close();
  assert.equal(left, 0, 'finished, not tried again and again');
});
