import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ToolDef } from '../../spec/index.js';
import { ConflictError, NotFoundError, ValidationError } from '../../spec/index.js';
import { GraphDB } from '../graph/index.js';
import { Indexer } from '../indexer/index.js';
import { SocialService } from '../social/index.js';
import { docTools, graphTools } from './memory-tools.js';
import { testConfig } from '../embedder/__fixtures__/test-config.js';
import { EmbedderService } from '../embedder/index.js';
import { DocStore } from '../documents/index.js';
import { ColdArchive } from '../archive/index.js';
import { RelevanceContext } from '../context/index.js';
import { MemoryRecall } from '../recall/index.js';
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

test('memory_recall and person_query say which facts no longer hold: the current one first, each with its days on the person’s calendar', async () => {
  const g = new GraphDB({ path: path.join(root, `g${n++}`, 'graph.db') });
  g.open();
  const zone = () => 'Asia/Shanghai';
  const ix = new Indexer({ graph: g, keywords: words, timeZone: zone });
  const tools = Object.fromEntries([...graphTools({ graph: g, indexer: ix, timeZone: zone }), ...socialTools(new SocialService(g), zone)].map((t) => [t.name, t]));
  // Said at 20:00 UTC: the next day in Shanghai.
  g.commit([{ subject: 'user', predicate: 'lives_in', object: 'Paris', validFrom: Date.UTC(2026, 10, 1, 20) }]);
  g.commit([{ subject: 'user', predicate: 'lives_in', object: 'Berlin', validFrom: Date.UTC(2026, 10, 19, 20) }]);
  g.commit([{ subject: 'user', predicate: 'lives_in', object: '上海', validFrom: Date.UTC(2026, 10, 30, 20) }]);
  const expected = [
    { fact: 'user —lives_in→ 上海', since: '2026-12-01' },
    { fact: 'user —lives_in→ Berlin', since: '2026-11-20', until: '2026-12-01', current: false },
    { fact: 'user —lives_in→ Paris', since: '2026-11-02', until: '2026-11-20', current: false },
  ];
  const strip = (rs: Record<string, unknown>[]) => rs.map(({ id: _id, confidence: _c, source: _s, ...rest }) => rest);
  const recalled = (await run(tools.memory_recall, { keywords: ['user'] })) as { relations: Record<string, unknown>[] };
  assert.deepEqual(strip(recalled.relations), expected);
  const person = (await run(tools.person_query, { name: 'user' })) as { relations: Record<string, unknown>[] };
  assert.deepEqual(strip(person.relations), expected);
  // What `waiter memory why` prints of the 【记忆索引】 block: the replaced facts say until when.
  const fill = await ix.buildFill('Paris Berlin 上海');
  assert.deepEqual(fill?.sources?.map((x) => x.text).sort(), ['user —lives_in→ Berlin (until 2026-12-01)', 'user —lives_in→ Paris (until 2026-11-20)', 'user —lives_in→ 上海'].sort());
  g.close();
});

test('doc_query recalls from every tier: a warm document moves back into the context (same id, original time), an archived turn is copied back and stays archived; doc_commit saves', async () => {
  const home = path.join(root, `docs${n++}`);
  const embedder = new EmbedderService({ config: testConfig() });
  const docs = new DocStore({ home, embedder });
  await docs.open();
  const archive = new ColdArchive({ home, tokenize: (t) => embedder.tokenize(t) });
  archive.open();
  const context = new RelevanceContext({ home, embedder, topK: 40 });
  await context.start();
  docs.add({ id: 'warm1', input: 'plan the Kyoto trip', response: 'ok, Kyoto in May', createdAt: 1_000, sessionId: 's0', channel: 'webui', refs: ['s0#3'] });
  archive.putMany([{ id: 'old1', content: 'we booked a ryokan in Kyoto near Gion', input: 'we booked a ryokan in Kyoto near Gion', response: '', kind: 'archive', source: 'webui', channel: 'webui', sessionId: 's0', createdAt: 500, addedAt: 500, accessCount: 0, refs: ['s0#1'], eventKind: 'user', speaker: { id: 'user' } }]);
  docs.add({ content: 'unrelated note about taxes', createdAt: 600 });
  const recall = new MemoryRecall({ embedder, context: () => context, docs: () => docs, archive: () => archive });
  const tools = Object.fromEntries(docTools({ docs, context, recall }).map((t) => [t.name, t]));
  const r = (await run(tools.doc_query, { query: 'Kyoto trip ryokan' })) as { restored: number; documents: { tier: string; time: string; text: string; turn?: string }[] };
  assert.equal(r.restored, 2);
  assert.deepEqual(r.documents.map((d) => d.tier).sort(), ['archive', 'document']);
  assert.equal(r.documents.find((d) => d.tier === 'archive')?.turn, 's0#1', 'provenance: the turn');
  assert.equal(docs.get('warm1'), undefined, 'the warm document left the document tier');
  assert.ok(archive.has('old1'), 'the archive is the permanent record');
  const ev = context.events().map((e) => ({ id: e.id, kind: e.kind, source: e.source, timestamp: e.timestamp, refs: e.refs }));
  assert.deepEqual(ev, [
    { id: 'old1', kind: 'cold_storage', source: 'cold_storage', timestamp: 500, refs: ['s0#1'] },
    { id: 'warm1', kind: 'cold_storage', source: 'cold_storage', timestamp: 1000, refs: ['s0#3'] },
  ]);
  assert.ok(fs.readFileSync(path.join(home, 'context.json'), 'utf8').includes('warm1'), 'the window was written before the document was removed');
  const again = (await run(tools.doc_query, { query: 'Kyoto trip ryokan' })) as { restored: number; documents: { tier: string }[] };
  assert.equal(again.restored, 0, 'what the window holds is not appended twice');
  assert.ok(again.documents.every((d) => d.tier === 'context'));
  const saved = (await run(tools.doc_commit, { content: 'note about the tea house', title: 't' })) as { saved: string };
  assert.equal(docs.get(saved.saved)?.kind, 'commit');
  assert.deepEqual(docs.get(saved.saved)?.refs, ['s#1']);
  await assert.rejects(run(tools.doc_query, { query: '' }), ValidationError);
  await context.stop();
  archive.close();
  await docs.close();
});
