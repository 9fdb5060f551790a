import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GraphDB } from '../graph/index.js';
import { Indexer, cleanInput, formatIndex, type EntityEmbedder } from './indexer.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-indexer-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
function graph(): GraphDB {
  const g = new GraphDB({ path: path.join(root, `g${n++}`, 'graph.db') });
  g.open();
  g.commit([
    { subject: 'user', predicate: 'lives_in', object: '北京', subjectType: 'person', objectType: 'place' },
    { subject: 'user', predicate: 'likes', object: 'jazz' },
    { subject: '北京', predicate: 'has', object: '故宫' },
    { subject: 'Alice', predicate: 'works_at', object: 'Acme', subjectType: 'person' },
  ]);
  return g;
}
const words = { keywords: (t: string) => t.split(/[\s,?.!]+/).filter((w) => w.length > 2) };

test('build: keywords → graph recall (BFS) → 【记忆索引】 text', async () => {
  const g = graph();
  const ix = new Indexer({ graph: g, keywords: words, depth: () => 1 });
  const block = await ix.build('Where does Alice work?');
  // No heading: the system prompt prints the slot's title once (it used to appear twice).
  assert.equal(block, '- Alice —works_at→ Acme (0.80)\n实体: Alice(person)');
  assert.equal(await ix.build('nothing relevant here'), undefined);
  assert.equal(await ix.build('   '), undefined);
  g.close();
});

test('default keywords use jieba for Chinese input', async () => {
  const g = graph();
  const ix = new Indexer({ graph: g });
  const s = await ix.search('我下周想去北京旅游');
  assert.ok(s.keywords.includes('北京'), String(s.keywords));
  const block = (await ix.build('我下周想去北京旅游')) ?? '';
  assert.match(block, /user —lives_in→ 北京/);
  assert.match(block, /北京 —has→ 故宫/);
  g.close();
});

test('a person jieba\'s dictionary does not know is recalled by name (王五 stays whole)', async () => {
  const g = graph();
  g.commit([{ subject: '王五', predicate: '住在', object: '杭州', subjectType: 'person', objectType: 'place' }]);
  const ix = new Indexer({ graph: g });
  const s = await ix.search('王五住在哪里？');
  assert.ok(s.keywords.includes('王五'), String(s.keywords));
  assert.match((await ix.build('王五住在哪里？')) ?? '', /王五 —住在→ 杭州/);
  g.close();
});

test('markRecalled keeps entities a tool returned out of that turn only', async () => {
  const g = graph();
  const ix = new Indexer({ graph: g, keywords: words });
  ix.markRecalled(['ALICE'], 's#1');
  assert.equal(await ix.build('Where does Alice work?', 's#1'), undefined);
  assert.match((await ix.build('Where does Alice work?', 's#2')) ?? '', /Alice —works_at→ Acme/);
  const slot = ix.slot();
  assert.equal(await slot({ sessionId: 's', turnId: 's#1', input: 'Alice', consolidation: false }), undefined);
  assert.equal(await slot({ sessionId: 's', turnId: 's#3', input: 'Alice', consolidation: true }), undefined);
  const filled = await slot({ sessionId: 's', turnId: 's#3', input: 'Alice', consolidation: false });
  assert.match(filled?.text ?? '', /Acme/);
  assert.ok(filled?.sources?.some((x) => x.tier === 'graph' && /^relation:\d+$/.test(x.id) && x.text === 'Alice —works_at→ Acme'), 'each fact shown names its relation');
  ix.endTurn('s#1');
  assert.equal(ix.recalledIn('s#1').size, 0);
  g.close();
});

test('dense embedder: entity vector search finds names the keywords miss', async () => {
  const g = graph();
  // "capital" is close to 北京 in this toy space; the keyword path finds nothing.
  const space: Record<string, number[]> = { 北京: [1, 0, 0], jazz: [0, 1, 0], capital: [0.95, 0.05, 0] };
  let calls = 0;
  const emb: EntityEmbedder = {
    dense: true,
    modelId: () => 'toy',
    embed: async (texts) => {
      calls++;
      return texts.map((t) => (space[t] ? Float32Array.from(space[t]) : t.includes('capital') ? Float32Array.from(space.capital) : null));
    },
  };
  const ix = new Indexer({ graph: g, keywords: { keywords: () => [] }, embedder: emb, depth: () => 1 });
  const s = await ix.search('tell me about the capital');
  assert.deepEqual(s.vectorHits, ['北京']);
  assert.ok(s.result.relations.some((r) => r.object === '故宫'));
  // entity vectors are cached per model: the next query embeds only the query
  const before = calls;
  await ix.search('the capital again');
  assert.equal(calls, before + 1);
  g.close();
});

test('cleanInput and formatIndex bounds', () => {
  assert.equal(cleanInput('【系统】 hi  see https://x.y/z [打断消息] there'), 'hi see there');
  const rels = Array.from({ length: 100 }, (_, i) => ({ id: i, subject: 'a', predicate: 'p', object: `o${i}`, confidence: 0.5 }));
  const text = formatIndex([], rels, 300) ?? '';
  assert.ok(text.length <= 300);
  assert.ok(text.startsWith('- a —p→ o0') && !text.includes('【记忆索引】'));
});

test('a question about oneself brings the asker’s current facts of what it asks, a scoped one only those said there', async () => {
  const g = new GraphDB({ path: path.join(root, `g${n++}`, 'graph.db') });
  g.open();
  g.commit([{ subject: 'user', predicate: 'lives_in', object: 'Paris', validFrom: Date.UTC(2026, 10, 1), refs: ['webui:a#1'] }]);
  g.commit([
    { subject: 'user', predicate: 'lives_in', object: '上海', validFrom: Date.UTC(2026, 11, 1), refs: ['webui:a#2'] },
    { subject: 'user', predicate: 'has_sister', object: 'Ann', refs: ['webui:a#3'] },
    { subject: 'user', predicate: 'likes', object: 'jazz', refs: ['webui:a#4'] },
    { subject: 'Bo', predicate: 'lives_in', object: 'Oslo', refs: ['qq:group:1#1'] },
  ]);
  const ix = new Indexer({ graph: g, keywords: words, timeZone: () => 'UTC', factInScope: (r, scope) => (r.refs ?? []).every((x) => scope.some((s) => x.startsWith(`${s}#`))) });
  assert.equal(await ix.build('where do I live?', 't#1', undefined, 'user'), '- user —lives_in→ 上海 (0.80; 2026-12-01)', 'the current place alone, dated by when it began');
  assert.equal(await ix.build('where do I live?'), undefined, 'without knowing who asks, "I" names nobody');
  assert.equal(await ix.build('what should my sister read?', 't#1', undefined, 'user'), '- user —has_sister→ Ann (0.80; ' + new Date(g.relationsOf('user', 'has_sister')[0].validFrom!).toISOString().slice(0, 10) + ')');
  assert.equal(await ix.build('what is a good recipe for dumplings?', 't#1', undefined, 'user'), undefined, 'other text brings none of them');
  // "What do you know about me?" names no predicate and no entity: every fact that holds now.
  const all = (await ix.build('What do you know about me?', 't#1', undefined, 'user')) ?? '';
  for (const f of ['user —lives_in→ 上海', 'user —has_sister→ Ann', 'user —likes→ jazz']) assert.ok(all.includes(f), `${f} in ${all}`);
  assert.ok(!all.includes('Paris'), 'not a home that ended');
  assert.match((await ix.build('你都知道我什么？', 't#1', undefined, 'user')) ?? '', /user —likes→ jazz/);
  // Bo asks in the group: his own place; the owner's facts were not said there.
  assert.match((await ix.build('where do I live?', 't#1', ['qq:group:1'], 'Bo')) ?? '', /^- Bo —lives_in→ Oslo/);
  assert.equal(await ix.build('where do I live?', 't#1', ['qq:group:1'], 'user'), undefined);
  // "I don't live in Shanghai anymore": the home ends, and the answer is that, not 上海.
  g.commit([{ subject: 'user', predicate: 'no_longer_lives_in', object: '上海', validFrom: Date.UTC(2026, 11, 5), refs: ['webui:a#5'] }]);
  assert.equal(await ix.build('where do I live?', 't#1', undefined, 'user'), '- user —no_longer_lives_in→ 上海 (0.80; 2026-12-05)');
  g.close();
});
