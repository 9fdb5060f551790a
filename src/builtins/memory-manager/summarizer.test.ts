import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parseMemoryFile } from './memory-file.js';
import { join } from 'node:path';
import type { FakeLlm } from '../../../test/fixtures/fake-llm/index.js';
import { startProviderLlm, type ProviderLlm } from '../../../test/fixtures/provider-llm.js';
import { setupManager } from './__fixtures__/setup.js';
import { parseGroups, parseSummaryParts, extractJson } from './summarizer.js';

// LLM behaviour comes from the scripted fake server over HTTP, through a real provider manager.
let provider: ProviderLlm;
let llm: FakeLlm;
before(async () => {
  provider = await startProviderLlm();
  llm = provider.fake;
});
after(async () => {
  await provider?.close();
});

const parts = (n: number) => JSON.stringify({ user: `用户诉求${n}`, thinking: `思考${n}`, processing: `处理${n}`, result: `结果${n}` });

async function sessionWithTurns(fake: ReturnType<typeof setupManager>['fake'], n: number) {
  await fake.sessions.create({ channel: 'webui', id: 'webui:sum', title: '周末计划' });
  const ids: string[] = [];
  for (let i = 1; i <= n; i++) ids.push(await fake.sessions.addTurn('webui:sum', `问题${i}`, `回答${i}`));
  return ids;
}

const memoryFiles = (home: string) => {
  const dir = join(home, 'memory', 'memories');
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.md')) : [];
};

test('M-8: merge groups consecutive turns via the LLM; one summary memory per group; excluded turns skipped; progress reported', async (t) => {
  const { fake, m } = setupManager(t, { llm: provider.llm });
  const ids = await sessionWithTurns(fake, 4);
  await fake.op('turn.exclude', { turnId: ids[1] }, 'webui:sum');
  const start = llm.requests.length;
  llm.enqueue({ text: '```json\n{"groups": [[1, 2], [3]]}\n```' }, { text: parts(1) }, { text: `好的：${parts(2)}` });
  const progress: string[] = [];
  const res = await m.summarize({ sessionId: 'webui:sum', merge: true }, (p) => progress.push(p.phase));
  assert.equal(res.count, 2);
  const [a, b] = res.summaries;
  assert.equal(a.title, '会话总结（周末计划 · 轮次 1-3）');
  assert.equal(b.title, '会话总结（周末计划 · 轮次 4-4）');
  assert.deepEqual(a.impressions, ['会话总结', '会话 webui:sum']);
  assert.deepEqual(a.tags, ['会话总结']);
  assert.ok(a.snapshot.includes('用户诉求1') && a.snapshot.includes('结果1'));
  const events = await fake.sessions.events('webui:sum');
  const seqsOf = (turnId: string) => events.filter((e) => e.turnId === turnId && (e.kind === 'user' || e.kind === 'assistant')).map((e) => e.seq);
  assert.deepEqual(a.source, { sessionId: 'webui:sum', seqs: [...seqsOf(ids[0]), ...seqsOf(ids[2])] });
  const reqs = llm.requests.slice(start);
  assert.equal(reqs.length, 3);
  const groupingPrompt = JSON.stringify(reqs[0].body.messages);
  assert.ok(groupingPrompt.includes('问题1') && !groupingPrompt.includes('问题2'), 'the excluded turn is not sent');
  assert.deepEqual([...new Set(progress)], ['turns', 'grouping', 'summarizing', 'saving', 'done']);
  assert.ok(fake.published.some((p) => p.event === 'custom:memory-manager.progress'));
  assert.equal((await fake.op('memory.list', { tag: '会话总结' })).value.total, 2);
});

test('M-8: lastN without merge: one summary per turn; malformed JSON is retried once', async (t) => {
  const { fake, m } = setupManager(t, { llm: provider.llm });
  await sessionWithTurns(fake, 3);
  const marker = JSON.stringify({ user: 'u', thinking: 't', processing: 'p\n<!-- notes -->\nq', result: '结果3' });
  llm.enqueue({ text: '这不是 JSON' }, { text: parts(2) }, { text: marker });
  const res = await m.summarize({ sessionId: 'webui:sum', lastN: 2 });
  assert.deepEqual(res.summaries.map((s) => s.title), ['会话总结（周末计划 · 轮次 2-2）', '会话总结（周末计划 · 轮次 3-3）']);
  assert.ok(res.summaries[0].snapshot.includes('用户诉求2'));
  assert.ok(res.summaries[1].snapshot.includes('结果3'), 'a notes marker echoed by the LLM does not break the file');
  const onDisk = parseMemoryFile(res.summaries[1].id, readFileSync(join(m.library.dir, `${res.summaries[1].id}.md`), 'utf8'));
  assert.equal(onDisk.snapshot, res.summaries[1].snapshot);
});

test('M-8: malformed JSON twice → a clear error and nothing written (even after earlier groups succeeded)', async (t) => {
  const { fake, home } = setupManager(t, { llm: provider.llm });
  await sessionWithTurns(fake, 2);
  llm.enqueue({ text: parts(1) }, { text: '{"user": "缺字段"}' }, { text: 'still not json' });
  const r = await fake.op('session.summarize', {}, 'webui:sum');
  assert.equal(r.ok, false);
  assert.equal(r.value.code, 'MM_LLM_BAD_JSON');
  assert.match(r.value.error, /nothing was saved/);
  assert.deepEqual(memoryFiles(home), []);
});

test('M-8: without an LLM → a clear error, nothing written; unknown session → NOT_FOUND', async (t) => {
  const { fake, home } = setupManager(t);
  await sessionWithTurns(fake, 1);
  const r = await fake.op('session.summarize', { merge: true }, 'webui:sum');
  assert.deepEqual([r.ok, r.value.code], [false, 'NO_PROVIDER_CONFIGURED']);
  assert.match(r.value.error, /LLM/);
  assert.deepEqual(memoryFiles(home), []);
  fake.llmApi = provider.llm;
  assert.equal((await fake.op('session.summarize', {}, 'webui:nope')).value.code, 'NOT_FOUND');
  assert.equal((await fake.op('session.summarize', {})).value.code, 'VALIDATION');
});

test('M-8: JSON parsing helpers', () => {
  assert.deepEqual(extractJson('前言 {"a": [1]} 后记'), { a: [1] });
  assert.deepEqual(parseGroups('[[1],[2,3]]', 3), [[1], [2, 3]]);
  assert.throws(() => parseGroups('{"groups": [[1,3],[2]]}', 3), /consecutively/);
  assert.throws(() => parseGroups('{"groups": [[1]]}', 2), /cover 1 of 2/);
  assert.throws(() => parseSummaryParts('{"user":"u","thinking":"t","processing":"p"}'), /result/);
  assert.equal(parseSummaryParts('{"user":"u","thinking":["a","b"],"processing":"p","result":"r"}').thinking, 'a\nb');
});

test('issue 13 part 5: a summary of one speaker’s turns records the speaker and the place; a group of several speakers only the place', async (t) => {
  const { fake, m } = setupManager(t, { llm: provider.llm });
  const turn = async (sessionId: string, who: { id: string; name: string }, conversation: { kind: string; id: string }, text: string) => {
    const turnId = fake.sessions.nextTurnId(sessionId);
    await fake.sessions.append(sessionId, { turnId, kind: 'user', text, data: { speaker: who, conversation } });
    await fake.sessions.append(sessionId, { turnId, kind: 'assistant', text: 'ok' });
  };
  const ali = { id: 'qq:10001', name: 'Ali' };
  const bob = { id: 'qq:10002', name: 'Bob' };
  await fake.sessions.create({ channel: 'qq', id: 'qq:private:10001', title: 'Ali' });
  await turn('qq:private:10001', ali, { kind: 'private', id: 'qq:private:10001' }, 'my cat is Mochi');
  await fake.sessions.create({ channel: 'qq', id: 'qq:group:5', title: 'Family' });
  await turn('qq:group:5', ali, { kind: 'group', id: 'qq:group:5' }, 'dinner at 7?');
  await turn('qq:group:5', bob, { kind: 'group', id: 'qq:group:5' }, 'yes');
  llm.enqueue({ text: parts(1) });
  const [mine] = (await m.summarize({ sessionId: 'qq:private:10001' })).summaries;
  assert.deepEqual(mine.speaker, ali);
  assert.equal(mine.conversation, 'qq:private:10001');
  const file = readFileSync(join(m.library.dir, `${mine.id}.md`), 'utf8');
  assert.match(file, /^speaker: "qq:10001"$/m);
  llm.enqueue({ text: '{"groups": [[1, 2]]}' }, { text: parts(2) });
  const [group] = (await m.summarize({ sessionId: 'qq:group:5', merge: true })).summaries;
  assert.equal(group.speaker, undefined, 'two people said it');
  assert.equal(group.conversation, 'qq:group:5');
});

test('K-2: a forgotten turn is not summarized — its "[forgotten]" events are no text to send; all forgotten → nothing to summarize', async (t) => {
  const { fake, m } = setupManager(t, { llm: provider.llm });
  await fake.sessions.create({ channel: 'webui', id: 'webui:gone', title: 'gone' });
  // As the session store leaves a forgotten turn: its events in place, text and data redacted.
  const gone = fake.sessions.nextTurnId('webui:gone');
  await fake.sessions.append('webui:gone', { turnId: gone, kind: 'user', text: '[forgotten]', data: { redacted: true } });
  await fake.sessions.append('webui:gone', { turnId: gone, kind: 'assistant', text: '[forgotten]', data: { redacted: true } });
  await assert.rejects(m.summarize({ sessionId: 'webui:gone', lastN: 5 }), /no turns to summarize/);
  const kept = await fake.sessions.addTurn('webui:gone', '周六去爬山', '好的');
  const start = llm.requests.length;
  llm.enqueue({ text: parts(1) });
  const res = await m.summarize({ sessionId: 'webui:gone', lastN: 5 });
  assert.equal(res.count, 1);
  const sent = JSON.stringify(llm.requests.slice(start).map((r) => r.body.messages));
  assert.ok(sent.includes('周六去爬山') && !sent.includes('forgotten'), sent);
  assert.match(res.summaries[0].title, /轮次 2-2/);
  const events = await fake.sessions.events('webui:gone');
  assert.deepEqual(res.summaries[0].source?.seqs, events.filter((e) => e.turnId === kept).map((e) => e.seq), 'made from the kept turn only');
  // The Messages tab lists the forgotten turn as forgotten, with nothing of it.
  const turns = (await fake.op('session.turns', {}, 'webui:gone')).value as { turnId: string; forgotten?: true; user: string }[];
  assert.deepEqual(turns.map((x) => [x.turnId, x.forgotten ?? false, x.user]), [[gone, true, ''], [kept, false, '周六去爬山']]);
});
