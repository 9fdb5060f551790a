import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ContextEvent, Triple } from '../../spec/index.js';
import { GraphDB } from '../graph/index.js';
import { RuleDistillPipeline } from './rule-distill-pipeline.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-distill-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const DAY = 86_400_000;

function ev(id: string, timestamp: number, input: string, kind: ContextEvent['kind'] = 'user'): ContextEvent {
  return { id, timestamp, kind, source: 'webui', channel: 'webui', sessionId: 's', input, response: kind === 'agent' ? 'I live in Mars' : '' };
}

test('tick distills new user events once, commits to the graph, and remembers markers for 7 days', async () => {
  let now = 100 * DAY;
  const graph = new GraphDB({ path: path.join(root, 'a', 'graph.db') });
  graph.open();
  const events: ContextEvent[] = [ev('e1', now - 1000, '我叫张三。我住在北京'), ev('e2', now - 500, 'x', 'agent'), ev('old', now - 8 * DAY, 'I live in Rome')];
  const statePath = path.join(root, 'a', 'distill-state.json');
  const p = new RuleDistillPipeline({ commit: (t) => graph.commit(t), events: () => events, statePath, now: () => now });
  assert.deepEqual(await p.tick(), { events: 1, triples: 2 });
  assert.deepEqual(graph.relations().items.map((r) => `${r.subject} ${r.predicate} ${r.object}`).sort(), ['user lives_in 北京', 'user name 张三']);
  assert.deepEqual(graph.relations().items[0].refs, ['e1']);
  // second tick: nothing new
  assert.deepEqual(await p.tick(), { events: 0, triples: 0 });
  events.push(ev('e3', now, 'I like jazz'));
  assert.deepEqual(await p.tick(), { events: 1, triples: 1 });
  // markers survive a restart
  const p2 = new RuleDistillPipeline({ commit: (t) => graph.commit(t), events: () => events, statePath, now: () => now });
  assert.deepEqual(await p2.tick(), { events: 0, triples: 0 });
  assert.equal(p2.isDistilled('e1'), true);
  // after the retention window the markers are dropped (and the events are too old to re-read)
  now += 8 * DAY;
  await p2.tick();
  assert.equal(p2.isDistilled('e1'), false);
  assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(statePath, 'utf8')).distilled), []);
  graph.close();
});

test('an unreadable marker file is logged and the pipeline starts over', async () => {
  const statePath = path.join(root, 'b.json');
  fs.writeFileSync(statePath, '{not json');
  const warnings: string[] = [];
  const got: Triple[] = [];
  const p = new RuleDistillPipeline({
    commit: (t) => (got.push(...t), t.length),
    events: () => [ev('x', Date.now(), 'I am 30 years old')],
    statePath,
    log: { debug() {}, info() {}, error() {}, warn: (m) => warnings.push(m) },
  });
  assert.deepEqual(await p.tick(), { events: 1, triples: 1 });
  assert.equal(got[0].object, '30');
  assert.match(warnings[0], /unreadable/);
});

test('facts hold from when they were said, not from the tick that distilled them: a move said two days later ends the old place then', async () => {
  const said = 200 * DAY;
  const graph = new GraphDB({ path: path.join(root, 'dated', 'graph.db') });
  graph.open();
  const events = [ev('p', said, 'I live in Paris'), ev('b', said + 2 * DAY, 'I moved to Berlin')];
  const p = new RuleDistillPipeline({ commit: (t) => graph.commit(t), events: () => events, statePath: path.join(root, 'dated', 'state.json'), now: () => said + 3 * DAY });
  await p.tick();
  const lives = graph.relations().items.filter((r) => r.predicate === 'lives_in').sort((a, b) => (a.validFrom ?? 0) - (b.validFrom ?? 0));
  assert.deepEqual(lives.map((r) => [r.object, r.validFrom, r.validTo ?? null]), [['Paris', said, said + 2 * DAY], ['Berlin', said + 2 * DAY, null]]);
  graph.close();
});

test('decision 0560: "I don\'t live in Paris anymore", said two days later, ends Paris then; no home is current', async () => {
  const said = 300 * DAY;
  const graph = new GraphDB({ path: path.join(root, 'ended', 'graph.db') });
  graph.open();
  const events = [ev('p', said, 'I live in Paris'), ev('n', said + 2 * DAY, "I don't live in Paris anymore.")];
  const p = new RuleDistillPipeline({ commit: (t) => graph.commit(t), events: () => events, statePath: path.join(root, 'ended', 'state.json'), now: () => said + 3 * DAY });
  await p.tick();
  const rows = graph.relations().items.sort((a, b) => (a.validFrom ?? 0) - (b.validFrom ?? 0));
  assert.deepEqual(rows.map((r) => [r.predicate, r.object, r.validFrom, r.validTo ?? null]), [
    ['lives_in', 'Paris', said, said + 2 * DAY],
    ['no_longer_lives_in', 'Paris', said + 2 * DAY, null],
  ]);
  graph.close();
});
