import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { ContextEvent } from '../../spec/index.js';
import { testConfig } from '../embedder/__fixtures__/test-config.js';
import { EmbedderService } from '../embedder/index.js';
import { DocStore, eventDocument, type MemoryDocument } from '../documents/index.js';
import { ColdArchive } from '../archive/index.js';
import { GraphDB } from '../graph/index.js';
import { MemoryRecall, relatedDocumentsSlot } from './index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-test-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const embedder = new EmbedderService({ config: testConfig() });
let n = 0;

/** A small conversation: two sessions, turns by two speakers. */
const TURNS: [string, string, string][] = [
  ['S1', 'Caroline', 'Caroline: I went to a support group for adoption yesterday'],
  ['S1', 'Melanie', 'Melanie: that sounds meaningful, how did it feel?'],
  ['S1', 'Caroline', 'Caroline: it felt like family, I want to adopt a child'],
  ['S1', 'Melanie', 'Melanie: my kids and I went camping at the lake last weekend'],
  ['S2', 'Caroline', 'Caroline: which agencies did you look at?'],
  ['S2', 'Melanie', 'Melanie: the Sunrise adoption agency helps single parents'],
  ['S2', 'Caroline', 'Caroline: I started painting sunsets again'],
  ['S2', 'Melanie', 'Melanie: pottery class was great, I made a bowl'],
];

function events(): ContextEvent[] {
  return TURNS.map(([s, who, text], i) => ({ id: `e${i}`, timestamp: Date.UTC(2023, s === 'S1' ? 4 : 6, 8, 12, i), kind: 'user', source: 'chat', channel: 'chat', sessionId: s, input: text, response: '', refs: [`${s}#${i}`], speaker: { id: who, name: who } }));
}

async function tiers(place: (i: number) => 'context' | 'document' | 'archive') {
  const home = path.join(root, `h${n++}`);
  const docs = new DocStore({ home, embedder });
  await docs.open();
  const archive = new ColdArchive({ home, tokenize: (t) => embedder.tokenize(t) });
  archive.open();
  const ctx: ContextEvent[] = [];
  const toDocs: MemoryDocument[] = [];
  const toArchive: MemoryDocument[] = [];
  events().forEach((e, i) => {
    const where = place(i);
    if (where === 'context') ctx.push(e);
    else (where === 'document' ? toDocs : toArchive).push(eventDocument(e, 0));
  });
  docs.restore(toDocs);
  archive.putMany(toArchive);
  const graph = new GraphDB({ path: path.join(home, 'graph.db') });
  graph.open();
  const recall = new MemoryRecall({ embedder, context: () => ({ events: () => ctx }), docs: () => docs, archive: () => archive, graph: () => graph });
  return {
    docs,
    archive,
    graph,
    recall,
    close: async () => {
      graph.close();
      archive.close();
      await docs.close();
    },
  };
}

const QUESTIONS = ['Which adoption agency did Melanie mention?', 'What did Melanie do with her kids?', 'What does Caroline paint?', 'How did the support group feel?'];

test('a turn ranks the same in every tier: all warm, all archived, or spread over context, documents and archive', async () => {
  const layouts = [() => 'document' as const, () => 'archive' as const, (i: number) => (['context', 'document', 'archive'] as const)[i % 3]];
  const results: string[][] = [];
  for (const place of layouts) {
    const t = await tiers(place);
    const out: string[] = [];
    for (const q of QUESTIONS) for (const h of await t.recall.search(q, { k: 5, tiers: ['context', 'document', 'archive'] })) out.push(`${q}|${h.id}|${h.score.toFixed(9)}`);
    results.push(out);
    await t.close();
  }
  assert.ok(results[0].length > 8);
  assert.deepEqual(results[1], results[0], 'all archived = all warm');
  assert.deepEqual(results[2], results[0], 'spread over the tiers = all warm');
});

test('hits carry provenance: tier, date, session, channel, speaker and turn; a neighbour in another tier lends its evidence', async () => {
  const t = await tiers((i) => (i === 5 ? 'context' : 'archive'));
  const hits = await t.recall.search('Which adoption agency did Melanie look at?', { k: 3 });
  const agency = hits.find((h) => h.id === 'e5')!;
  assert.deepEqual(
    { tier: agency.tier, session: agency.sessionId, channel: agency.channel, speaker: agency.speaker, turn: agency.turnId, kind: agency.kind, at: agency.createdAt },
    { tier: 'context', session: 'S2', channel: 'chat', speaker: { id: 'Melanie', name: 'Melanie' }, turn: 'S2#5', kind: 'user', at: Date.UTC(2023, 6, 8, 12, 5) },
  );
  assert.ok(hits.some((h) => h.id === 'e4' && h.tier === 'archive'), 'the archived question before it is found with it');
  await t.close();
});

test('graph facts are ranked with the turns and bring back the turn they were distilled from', async () => {
  const t = await tiers(() => 'archive');
  t.graph.commit([{ subject: 'Melanie', predicate: 'likes', object: 'pottery', refs: ['e7', 'S2#7'], speaker: 'Melanie' }]);
  const hits = await t.recall.search('Does Melanie like pottery?', { k: 10 });
  const fact = hits.find((h) => h.tier === 'graph');
  assert.ok(fact, JSON.stringify(hits.map((h) => [h.tier, h.text])));
  assert.equal(fact.text, 'Melanie likes pottery');
  assert.deepEqual({ session: fact.sessionId, turn: fact.turnId, speaker: fact.speaker?.id, at: fact.createdAt }, { session: 'S2', turn: 'S2#7', speaker: 'Melanie', at: Date.UTC(2023, 6, 8, 12, 7) }, 'provenance of its source turn');
  const src = t.recall.sources(['e7']);
  assert.deepEqual(
    src.map((s) => [s.tier, s.text]),
    [['archive', TURNS[7][2]]],
  );
  assert.deepEqual(t.graph.sourcesOf(Number(fact.id.split(':')[1])), [{ ref: 'S2#7', speaker: 'Melanie' }, { ref: 'e7', speaker: 'Melanie' }]);
  await t.close();
});

test('【相关记忆文档】 comes from documents and the archive (the timeline holds the context), with date and tier; warm hits count an access', async () => {
  const t = await tiers((i) => (i < 2 ? 'context' : i < 5 ? 'document' : 'archive'));
  const slot = relatedDocumentsSlot(t.recall, { config: testConfig({ 'core.docs.auto_inject_top': 3 }) });
  const filled = await slot({ sessionId: 's', turnId: 't', input: 'adoption support group agency', consolidation: false });
  const text = filled?.text ?? '';
  assert.equal(filled?.sources?.length, 3, 'every line names its source');
  assert.ok(filled?.sources?.every((x) => (x.tier === 'document' || x.tier === 'archive') && x.at && x.sessionId), JSON.stringify(filled?.sources));
  const lines = text.split('\n');
  assert.equal(lines.length, 3);
  assert.ok(!text.includes('【相关记忆文档】'), 'the kernel prints the heading, once');
  assert.ok(lines.every((l) => /^- \[2023-0\d-08 12:0\d · (document|archive) · (Caroline|Melanie)\] /.test(l)), text);
  assert.ok(!text.includes('how did it feel'), 'context events are not repeated');
  assert.equal(t.docs.get('e2')?.accessCount, 1);
  assert.equal(await slot({ sessionId: 's', turnId: 't', input: 'adoption', consolidation: true }), undefined);
  assert.equal(await slot({ sessionId: 's', turnId: 't', input: 'zebra quantum', consolidation: false }), undefined);
  await t.close();
});

test('hostile queries are plain text: SQL, FTS5 syntax and a huge paste', async () => {
  const t = await tiers(() => 'archive');
  for (const q of [`"); DROP TABLE turns; --`, 'adoption NEAR(kids)', '* OR 1=1', 'agency'.repeat(50_000)]) await t.recall.search(q, { k: 5 });
  assert.equal(t.archive.size, TURNS.length);
  await t.close();
});

test('R-5: a group (or someone else’s private chat) gets only turns said there in 【相关记忆文档】; the owner gets everything', async () => {
  const home = path.join(root, `h${n++}`);
  const docs = new DocStore({ home, embedder });
  await docs.open();
  const archive = new ColdArchive({ home, tokenize: (t) => embedder.tokenize(t) });
  archive.open();
  const group = { kind: 'group' as const, id: 'qq:group:5' };
  const mk = (id: string, text: string, conversation?: { kind: 'private' | 'group'; id: string }): ContextEvent => ({ id, timestamp: Date.UTC(2024, 0, 1, 0, Number(id.slice(1))), kind: 'user', source: 'qq', channel: 'qq', sessionId: conversation?.id ?? 'webui:1', input: text, response: '', refs: [`${conversation?.id ?? 'webui:1'}#1`], ...(conversation ? { conversation } : {}) });
  archive.putMany([eventDocument(mk('e1', 'my salary is 12345 a month, between us'), 0), eventDocument(mk('e2', 'salary talk in the group: nobody shares it', group), 0)]);
  docs.restore([eventDocument(mk('e3', 'salary negotiations at work went well'), 0)]);
  const recall = new MemoryRecall({ embedder, docs: () => docs, archive: () => archive });
  const slot = relatedDocumentsSlot(recall, { config: testConfig({ 'core.docs.auto_inject_top': 3, 'core.identity.owner_ids': ['qq:1'] }) });
  const ask = async (speaker?: { id: string }, conversation?: { kind: 'private' | 'group'; id: string }) => (await slot({ sessionId: 's', turnId: 't', input: 'salary', consolidation: false, speaker, conversation }))?.text;
  assert.deepEqual((await ask({ id: 'qq:2' }, group))?.split('\n').map((l) => l.replace(/^- \[[^\]]*\] /, '')), ['salary talk in the group: nobody shares it']);
  assert.equal(await ask({ id: 'qq:2' }, { kind: 'private', id: 'qq:private:2' }), undefined, 'a stranger’s private chat sees nothing said elsewhere');
  assert.equal((await ask())?.split('\n').length, 3, 'the owner in their own place sees every tier');
  assert.equal((await ask({ id: 'qq:1' }, { kind: 'private', id: 'qq:private:1' }))?.split('\n').length, 3, 'the owner on a channel, in private, too');
  archive.close();
  await docs.close();
});
