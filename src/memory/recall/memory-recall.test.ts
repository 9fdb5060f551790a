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
import { MemoryRecall, relatedDocumentsSlot, relatedLine, saidDays } from './index.js';

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
  assert.ok(lines.every((l) => /^- \[2023-0\d-08 12:0\d · (document|archive) · user (Caroline|Melanie)\] /.test(l)), text);
  assert.ok(!text.includes('how did it feel'), 'context events are not repeated');
  assert.equal(t.docs.get('e2')?.accessCount, 1);
  assert.equal(await slot({ sessionId: 's', turnId: 't', input: 'adoption', consolidation: true }), undefined);
  assert.equal(await slot({ sessionId: 's', turnId: 't', input: 'zebra quantum', consolidation: false }), undefined);
  await t.close();
});

test('【相关记忆文档】 says who said each line: the owner (user), someone on a channel (user <name>), the assistant', () => {
  const hit = (kind: string, speaker?: { id: string; name?: string }) => ({ tier: 'archive' as const, id: 'x', text: 'the boat is at pier seven', score: 1, createdAt: Date.UTC(2026, 0, 2, 9, 30), sessionId: 's', channel: 'webui', source: 'webui', kind, refs: [], ...(speaker ? { speaker } : {}) });
  assert.equal(relatedLine(hit('user')), '- [2026-01-02 09:30 · archive · user] the boat is at pier seven');
  assert.equal(relatedLine(hit('user', { id: 'telegram:42', name: 'Bo' })), '- [2026-01-02 09:30 · archive · user Bo] the boat is at pier seven');
  assert.equal(relatedLine(hit('agent')), '- [2026-01-02 09:30 · archive · assistant] the boat is at pier seven');
  assert.equal(relatedLine(hit('commit')), '- [2026-01-02 09:30 · archive] the boat is at pier seven', 'a note with no speaker');
  // A name cannot close the bracket or forge a line.
  assert.equal(relatedLine(hit('user', { id: 'qq:1', name: 'Eve] \n- [x' })), '- [2026-01-02 09:30 · archive · user Eve   - [x] the boat is at pier seven');
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

test('decision 0360 (review fix): a fact is in a scope only when every one of its sources is held and was said there — not its oldest twenty, not past a source no tier holds', async () => {
  const home = path.join(root, `h${n++}`);
  const archive = new ColdArchive({ home, tokenize: (t) => embedder.tokenize(t) });
  archive.open();
  const group = { kind: 'group' as const, id: 'qq:group:7' };
  const said = (i: number, conversation?: typeof group): ContextEvent => ({ id: `g${i}`, timestamp: Date.UTC(2024, 0, 1, 0, i), kind: 'user', source: 'qq', channel: 'qq', sessionId: conversation?.id ?? 'webui:1', input: `the boat is blue ${i}`, response: '', refs: [`${conversation?.id ?? 'webui:1'}#${i}`], ...(conversation ? { conversation } : {}) });
  const inGroup = Array.from({ length: 25 }, (_, i) => said(i + 1, group));
  archive.putMany([...inGroup, said(40)].map((e) => eventDocument(e, 0)));
  const recall = new MemoryRecall({ embedder, archive: () => archive });
  const refs = inGroup.map((e) => e.refs![0]);
  assert.equal(recall.factInScope({ refs }, [group.id]), true, 'every source said in the group');
  assert.equal(recall.factInScope({ refs: [...refs, 'webui:1#40'] }, [group.id]), false, 'a 26th source said in private keeps it out');
  assert.equal(recall.factInScope({ refs: [refs[0], 'webui:gone#9'] }, [group.id]), false, 'a source no tier holds cannot be shown to be the group’s');
  assert.equal(recall.factInScope({ refs: [] }, [group.id]), false, 'no source: not shown');
  archive.close();
});

/** A recall over an archive and a warm tier holding these events (half each, alternating). */
async function recallOver(evs: ContextEvent[]) {
  const home = path.join(root, `h${n++}`);
  const docs = new DocStore({ home, embedder });
  await docs.open();
  const archive = new ColdArchive({ home, tokenize: (t) => embedder.tokenize(t) });
  archive.open();
  archive.putMany(evs.filter((_, i) => i % 2 === 0).map((e) => eventDocument(e, 0)));
  docs.restore(evs.filter((_, i) => i % 2 === 1).map((e) => eventDocument(e, 0)));
  const recall = new MemoryRecall({ embedder, docs: () => docs, archive: () => archive, ownerIds: () => ['tg:1'] });
  return {
    recall,
    top: async (q: string, o: Parameters<MemoryRecall['search']>[1] = {}) => (await recall.search(q, { k: 3, tiers: ['document', 'archive'], ...o })).map((h) => h.id),
    close: async () => {
      archive.close();
      await docs.close();
    },
  };
}

const ev = (id: string, text: string, at: number, speaker?: { id: string; name?: string }, sessionId = 's1'): ContextEvent => ({ id, timestamp: at, kind: 'user', source: 'tg', channel: 'tg', sessionId, input: text, response: '', refs: [`${sessionId}#${id}`], ...(speaker ? { speaker } : {}) });
const NATE = { id: 'tg:7', name: 'Nate' };
const JOANNA = { id: 'tg:8', name: 'Joanna' };

test('speaker prior: a query naming a participant ranks their statements first, whichever tier holds them; "I" is the owner', async () => {
  const t0 = Date.UTC(2024, 2, 1, 10);
  const r = await recallOver([
    ev('j1', 'Wow Nate, pets! Nate and pets, pets everywhere', t0, JOANNA),
    ev('n1', 'My pets are two turtles who love the sun lamp', t0 + 60_000, NATE),
    ev('o1', 'the garden roses finally bloomed', t0 + 120_000),
    ev('s1', 'the garden at the garden centre is lovely, garden garden', t0 + 180_000, { id: 'tg:9', name: 'Sam' }),
  ]);
  assert.deepEqual(r.recall.participants().sort((a, b) => a.id.localeCompare(b.id)), [NATE, JOANNA, { id: 'tg:9', name: 'Sam' }]);
  assert.equal((await r.top('What pets does Nate have?', { rank: { speakerBoost: 0 } }))[0], 'j1', 'by words alone the other speaker’s small talk wins');
  assert.equal((await r.top('What pets does Nate have?'))[0], 'n1', 'Nate’s own statement, with the prior');
  assert.equal((await r.top('what pets does nate have'))[0], 'n1');
  assert.equal((await r.top('What did I say about the garden?', { rank: { speakerBoost: 0 } }))[0], 's1');
  assert.equal((await r.top('What did I say about the garden?'))[0], 'o1', 'I = the owner (no speaker recorded)');
  assert.equal((await r.top('What did I say about the garden?', { asker: { id: 'tg:9', name: 'Sam' } }))[0], 's1', 'I = Sam when Sam asks');
  await r.close();
});

test('dialogue evidence: an answer two turns after the matching question is found through it', async () => {
  const t0 = Date.UTC(2024, 2, 2, 15);
  const r = await recallOver([
    ev('a1', 'Which team do you support in the league?', t0, JOANNA, 'S1'),
    ev('a2', 'Hmm, let me think about it', t0 + 60_000, NATE, 'S1'),
    ev('a3', 'The Wolves, always', t0 + 120_000, NATE, 'S1'),
    ev('b1', 'The weather was fine', t0 + 180_000, JOANNA, 'S1'),
  ]);
  const score = async (rank: Record<string, number>) => new Map((await r.recall.search('Which team is supported in the league?', { k: 4, tiers: ['document', 'archive'], rank })).map((h) => [h.id, h.score]));
  const on = await score({});
  const off = await score({ neighbour2Weight: 0 });
  assert.ok(on.get('a3')! > on.get('b1')!, 'the answer two turns after its question ranks above the small talk of the same session');
  assert.ok(on.get('a3')! > off.get('a3')!, 'evidence from two turns away raises it');
  await r.close();
});

test('a search a person reads (matchesOnly) shows what matches the query, not the small talk around it', async () => {
  const t0 = Date.UTC(2024, 2, 2, 15);
  const r = await recallOver([
    ev('a1', 'hi there', t0, JOANNA, 'S1'),
    ev('a2', 'My name is Alice and I live in Paris', t0 + 60_000, JOANNA, 'S1'),
    ev('a3', 'I bought a new bike yesterday', t0 + 120_000, JOANNA, 'S1'),
    ev('b1', 'The weather was fine', t0 + 180_000, NATE, 'S2'),
  ]);
  const ids = async (matchesOnly: boolean) => (await r.recall.search('Paris', { k: 10, matchesOnly })).map((h) => h.id);
  const recall = await ids(false);
  assert.equal(recall[0], 'a2');
  assert.ok(recall.includes('a1') && recall.includes('a3'), `the model's recall lends the neighbours the match's evidence: ${recall}`);
  assert.deepEqual(await ids(true), ['a2']);
  assert.deepEqual(await r.recall.search('Lisbon', { k: 10, matchesOnly: true }), []);
  await r.close();
});

test('day-level dates in the product path: "last Saturday" and 上周六 resolve against the query’s own time; explicit days scope too', async () => {
  const sat = (d: number, m: number) => new Date(2024, m - 1, d, 15).getTime();
  const r = await recallOver([
    ev('feb', 'We watched the league game at the pub', sat(10, 2), JOANNA, 'S0'),
    ev('x1', 'nothing much today', sat(10, 2) + 60_000, NATE, 'S0'),
    ev('mar', 'We watched the league game at the stadium', sat(2, 3), JOANNA, 'S1'),
    ev('x2', 'nothing much either', sat(2, 3) + 60_000, NATE, 'S1'),
  ]);
  const wed = (d: number, m: number) => new Date(2024, m - 1, d, 12).getTime();
  assert.equal((await r.top('Where did Joanna watch the league game last Saturday?', { now: wed(6, 3) }))[0], 'mar');
  assert.equal((await r.top('Where did Joanna watch the league game last Saturday?', { now: wed(14, 2) }))[0], 'feb');
  assert.equal((await r.top('Joanna 上周六 league game', { now: wed(14, 2) }))[0], 'feb');
  assert.equal((await r.top('Joanna 上周六 league game', { now: wed(6, 3) }))[0], 'mar');
  assert.equal((await r.top('Where did Joanna watch the league game on 10 February 2024?', { now: wed(6, 3) }))[0], 'feb');
  assert.equal((await r.top('Where did Joanna watch the league game on 10 February 2024?', { now: wed(6, 3), rank: { dayBoost: 0, dateBoost: 0 } }))[0], 'mar', 'without dates the later turn wins the tie');
  await r.close();
});

test('people linked across channels (decision 0090): the registry name names every linked id, and all of them are the focus', async () => {
  const { ConfigRegistry, coreConfigDefaults } = await import('../../config/index.js');
  const home = path.join(root, `h${n++}`);
  fs.mkdirSync(home, { recursive: true });
  const reg = new ConfigRegistry({ dbPath: path.join(home, 'config.db'), env: {}, logger: { info() {}, warn() {}, error() {} } as never });
  reg.open();
  reg.register(coreConfigDefaults());
  reg.people.link(['telegram:42', 'qq:10001'], { name: 'Alice' });
  const archive = new ColdArchive({ home, tokenize: (t) => embedder.tokenize(t) });
  archive.open();
  const t0 = Date.UTC(2024, 3, 1, 9);
  archive.putMany(
    [
      ev('t1', 'I adore the roses in my garden', t0, { id: 'telegram:42', name: 'Al' }),
      ev('q1', 'garden roses again, pruning them today', t0 + 60_000, { id: 'qq:10001', name: 'A' }),
      ev('b1', 'Alice loves roses! Alice and her garden roses, roses, roses', t0 + 120_000, { id: 'qq:20002', name: 'Bob' }),
    ].map((e) => eventDocument(e, 0)),
  );
  const top = async (people?: () => typeof reg.people) =>
    (await new MemoryRecall({ embedder, archive: () => archive, ...(people ? { people } : {}) }).search('What does Alice say about the garden roses?', { k: 3, tiers: ['archive'] })).map((h) => h.id);
  assert.equal((await top())[0], 'b1', 'without the registry nobody is called Alice: Bob’s words win');
  assert.deepEqual((await top(() => reg.people)).slice(0, 2).sort(), ['q1', 't1'], 'both of Alice’s identities first');
  archive.close();
  reg.close();
});

test('decision 0160: a turn that says a day ("on 7 May", 下周六) is found by a query about that day, though its session is on another — in every tier', async () => {
  const noon = (y: number, m: number, d: number) => new Date(y, m - 1, d, 12).getTime();
  const CAROLINE = { id: 'tg:3', name: 'Caroline' };
  const evs = [
    ev('group', 'I went to the support group on 7 May, it was powerful', noon(2023, 5, 25), CAROLINE, 'S2'),
    ev('paint', 'I painted a sunset by the lake', noon(2023, 5, 6), CAROLINE, 'S1'),
    ev('read', 'I read a book about birds', noon(2023, 5, 20), CAROLINE, 'S3'),
    // Said on Wednesday 3 January 2024 about the Saturday of the next week, 13 January.
    ev('hike', '下周六去爬山', noon(2024, 1, 3), undefined, 'S4'),
    // A shorter turn with the same word, said about no day in particular: without the days said it ranks first.
    ev('home', '周六在家', noon(2024, 1, 5), undefined, 'S5'),
  ];
  for (const place of ['context', 'document', 'archive'] as const) {
    const home = path.join(root, `h${n++}`);
    const docs = new DocStore({ home, embedder, saidDays });
    await docs.open();
    const archive = new ColdArchive({ home, tokenize: (t) => embedder.tokenize(t), saidDays });
    archive.open();
    if (place === 'document') docs.restore(evs.map((e) => eventDocument(e, 0)));
    if (place === 'archive') archive.putMany(evs.map((e) => eventDocument(e, 0)));
    const ctx = place === 'context' ? evs : [];
    const recall = new MemoryRecall({ embedder, context: () => ({ events: () => ctx }), docs: () => docs, archive: () => archive });
    const top = async (q: string, o: Parameters<MemoryRecall['search']>[1] = {}) => (await recall.search(q, { k: 3, ...o })).map((h) => h.id)[0];
    const later = noon(2024, 2, 1);
    assert.equal(await top('What did Caroline do on 7 May 2023?', { now: later }), 'group', place);
    assert.equal(await top('What did Caroline do on 7 May?', { now: later }), 'group', `${place}: a day without its year is read in the years the days span`);
    assert.equal(await top('我上周六做了什么', { now: noon(2024, 1, 17) }), 'hike', place);
    // Without the days said, the session dates alone do not find them.
    assert.notEqual(await top('What did Caroline do on 7 May 2023?', { now: later, rank: { saidDayBoost: 0 } }), 'group', place);
    assert.notEqual(await top('我上周六做了什么', { now: noon(2024, 1, 17), rank: { saidDayBoost: 0 } }), 'hike', place);
    archive.close();
    await docs.close();
  }
});
