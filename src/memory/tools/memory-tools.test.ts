import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ContextEvent, ContextWindow, NewContextEvent, ToolDef } from '../../spec/index.js';
import { ConflictError, NotFoundError, ValidationError } from '../../spec/index.js';
import { GraphDB } from '../graph/index.js';
import { Indexer } from '../indexer/index.js';
import { SocialService } from '../social/index.js';
import { docTools, graphTools, type ConsumedDoc } from './memory-tools.js';
import { socialTools } from './social-tools.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-memtools-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const call = (turnId = 's#1') => ({ sessionId: 's', turnId, callId: 'c', signal: new AbortController().signal });
const words = { keywords: (t: string) => t.split(/\s+/).filter((w) => w.length > 2) };
let n = 0;
function setup(): { g: GraphDB; ix: Indexer; tools: Record<string, ToolDef> } {
  const g = new GraphDB({ path: path.join(root, `g${n++}`, 'graph.db') });
  g.open();
  const ix = new Indexer({ graph: g, keywords: words });
  const tools = Object.fromEntries([...graphTools({ graph: g, indexer: ix }), ...socialTools(new SocialService(g))].map((t) => [t.name, t]));
  return { g, ix, tools };
}
const run = (t: ToolDef, args: Record<string, unknown>, turn?: string) => Promise.resolve().then(() => t.handler(args, call(turn)));

test('commit → recall → markRecalled keeps the recalled entities out of that turn’s 【记忆索引】', async () => {
  const { g, ix, tools } = setup();
  assert.deepEqual(await run(tools.memory_commit, { triples: [{ subject: 'Alice', predicate: 'works at', object: 'Acme', subject_type: 'person', sentence: 'Alice works at Acme' }] }), { committed: 1 });
  assert.deepEqual(g.relations().items[0].refs, ['s#1']);
  const r = (await run(tools.memory_recall, { keywords: ['alice'] }, 's#7')) as { entities: { name: string }[]; relations: { fact: string }[] };
  assert.deepEqual(r.entities.map((e) => e.name), ['Alice', 'Acme']);
  assert.deepEqual(r.relations.map((x) => x.fact), ['Alice —works_at→ Acme']);
  assert.equal(await ix.build('tell me about Alice', 's#7'), undefined);
  assert.match((await ix.build('tell me about Alice', 's#8')) ?? '', /Alice —works_at→ Acme/);
  // query form
  const q = (await run(tools.memory_recall, { query: 'where does Alice work' })) as { relations: unknown[] };
  assert.equal(q.relations.length, 1);
  await assert.rejects(run(tools.memory_recall, {}), ValidationError);
  // SQL-significant characters are just text
  for (const kw of ['%', '_', "'", '"', ';--', "'; DROP TABLE relations;--"]) {
    const x = (await run(tools.memory_recall, { keywords: [kw] })) as { entities: unknown[] };
    assert.deepEqual(x.entities, [], kw);
  }
  assert.equal(g.stats().relations, 1);
  g.close();
});

test('merge, edit, purge, delete, introspect tools and their typed errors', async () => {
  const { g, tools } = setup();
  await run(tools.memory_commit, {
    triples: [
      { subject: 'Bob', predicate: 'likes', object: 'tea' },
      { subject: 'Bobby', predicate: 'lives_in', object: 'Rome' },
      { subject: 'Carl', predicate: 'knows', object: 'Dan', confidence: 0.1 },
    ],
  });
  assert.deepEqual(await run(tools.memory_merge, { keep: 'Bob', merge: 'Bobby' }), { kept: 'Bob', removed: 'Bobby', moved: 1, combined: 0 });
  await assert.rejects(run(tools.memory_merge, { keep: 'Bob', merge: 'Nobody' }), NotFoundError);
  const e = (await run(tools.memory_edit, { entity: 'Bob', type: 'person', attributes: { age: 40 } })) as { entity: { type: string } };
  assert.equal(e.entity.type, 'person');
  await assert.rejects(run(tools.memory_edit, { entity: 'Bob', new_name: 'tea' }), ConflictError);
  await assert.rejects(run(tools.memory_edit, {}), ValidationError);
  await assert.rejects(run(tools.memory_edit, { entity: 'Bob', relation_id: 1 }), ValidationError);
  const relId = g.relations({ entity: 'Rome' }).items[0].id;
  const r = (await run(tools.memory_edit, { relation_id: relId, object: 'Milan' })) as { relation: { fact: string } };
  assert.equal(r.relation.fact, 'Bob —lives_in→ Milan');
  assert.deepEqual(await run(tools.memory_purge, { below_confidence: 0.5, orphans: true }), { deleted: { entities: 3, relations: 1 } }); // Carl, Dan, Rome
  await assert.rejects(run(tools.memory_purge, {}), ValidationError);
  assert.deepEqual(await run(tools.memory_delete_entity, { name: 'bob' }), { deleted: { entity: 'Bob', relations: 2 } });
  await assert.rejects(run(tools.memory_delete_entity, { name: '' }), ValidationError);
  await assert.rejects(run(tools.memory_commit, { triples: [{ subject: 'x'.repeat(300), predicate: 'p', object: 'y' }] }), ValidationError);
  const stats = (await run(tools.memory_introspect, {})) as { graph: { entities: number } };
  assert.equal(stats.graph.entities, 2); // tea, Milan
  g.close();
});

test('social tools', async () => {
  const { g, tools } = setup();
  await run(tools.person_set_trait, { name: '王芳', trait: 'birthday', value: '3月5日' });
  await run(tools.person_relate, { a: '王芳', relation: 'mother_of', b: '小明' });
  const q = (await run(tools.person_query, { name: '王芳' })) as { found: boolean; person: { traits: Record<string, string> }; relations: { fact: string }[]; network: string[] };
  assert.equal(q.found, true);
  assert.deepEqual(q.person.traits, { birthday: '3月5日' });
  assert.deepEqual(q.relations.map((r) => r.fact), ['王芳 —mother_of→ 小明']);
  assert.deepEqual(q.network, ['王芳', '小明']);
  assert.equal(((await run(tools.person_query, { name: 'nobody' })) as { found: boolean }).found, false);
  await assert.rejects(run(tools.person_set_trait, { name: 'x', trait: '', value: 'y' }), ValidationError);
  g.close();
});

test('doc_query consumes documents and re-appends them as cold_storage at their original time; doc_commit saves', async () => {
  const store: ConsumedDoc[] = [{ id: 'd1', content: 'we planned the trip to Kyoto', input: 'plan Kyoto trip', response: 'ok, Kyoto in May', channel: 'webui', sessionId: 's0', createdAt: 1_000, refs: ['s0#3'] }];
  const committed: { content: string; extra?: unknown }[] = [];
  const events: ContextEvent[] = [];
  const context: ContextWindow = {
    append: (e: NewContextEvent) => {
      const ev = { ...e, id: `e${events.length}`, timestamp: e.timestamp ?? 0 } as ContextEvent;
      events.push(ev);
      return ev;
    },
    prune: async () => {},
    events: () => events,
    flush: async () => {},
  };
  const docs = {
    consume: async (q: string) => (q.includes('Kyoto') ? store.splice(0) : []),
    commit: (content: string, extra?: unknown) => (committed.push({ content, extra }), { id: 'new1' }),
  };
  const tools = Object.fromEntries(docTools({ docs, context }).map((t) => [t.name, t]));
  const r = (await run(tools.doc_query, { query: 'Kyoto' })) as { restored: number; documents: { time: string; text: string }[] };
  assert.equal(r.restored, 1);
  assert.equal(r.documents[0].time, new Date(1000).toISOString());
  assert.equal(store.length, 0, 'consumed');
  assert.deepEqual(
    { kind: events[0].kind, source: events[0].source, timestamp: events[0].timestamp, input: events[0].input, refs: events[0].refs },
    { kind: 'cold_storage', source: 'cold_storage', timestamp: 1000, input: 'plan Kyoto trip', refs: ['s0#3'] },
  );
  assert.deepEqual(await run(tools.doc_query, { query: 'Kyoto' }), { restored: 0, documents: [] });
  assert.deepEqual(await run(tools.doc_commit, { content: 'note', title: 't' }), { saved: 'new1' });
  assert.deepEqual(committed[0], { content: 'note', extra: { title: 't', kind: 'commit', sessionId: 's', refs: ['s#1'] } });
  await assert.rejects(run(tools.doc_query, { query: '' }), ValidationError);
});
