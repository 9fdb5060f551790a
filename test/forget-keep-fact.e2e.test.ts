/**
 * Keeping a fact while forgetting its turn (decision 0520) on the REAL daemon, over loopback HTTP,
 * with the fake LLM server: the person said "我叫小林，住在杭州", forgets the turn and keeps their
 * name. The forget route takes `keepRelationIds` behind the same guard as the rest; bad keeps are
 * coded errors that forget nothing; the kept name reaches the next prompt and "About me" as kept,
 * 杭州 reaches nothing; it survives a reindex and an export imported into a fresh daemon. And a
 * library memory the model saved inside a turn is listed with that turn when it is forgotten.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import type { ForgetPlan, ForgetResult } from '../src/spec/index.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';

const SID = 'webui:keep';

describe('keeping a fact while forgetting its turn, on the daemon', { timeout: 180_000 }, () => {
  let llm: FakeLlm;
  let d: Daemon;
  const homes: string[] = [];
  const env = () => ({ PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' });
  const start = async () => {
    const home = mkdtempSync(join(tmpdir(), 'ha-keep-fact-e2e-'));
    homes.push(home);
    return startTestDaemon({ homeDir: home, env: env(), webuiPort: 0, heartbeats: false, transfer: { scryptLogN: 10 } });
  };
  const api = async (path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) => {
    const res = await fetch(`${d.url}${path}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json', ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: { code: string; message: string } } };
  };
  const turn = async (text: string, reply: string) => {
    llm.enqueue({ text: reply });
    const outcome = await d.agent.injectInput({ sessionId: SID, source: 'webui', text }).done;
    assert.equal(outcome.status, 'ok');
    return outcome.turnId;
  };
  const chats = () => llm.requests.filter((r) => r.path.endsWith('/chat/completions'));
  const fact = (predicate: string) => d.memory.graph.relationsOf('user', predicate)[0];

  let said = '';
  let nameId = 0;
  let placeId = 0;
  let teaId = 0;

  before(async () => {
    llm = await startFakeLlm();
    d = await start();
    said = await turn('我叫小林，住在杭州', '好的，小林。');
    await turn('我喜欢喝茉莉花茶', '记住了。');
    await d.memory.heartbeats.runOnce('rules');
    nameId = fact('name').id;
    placeId = fact('lives_in').id;
    teaId = fact('likes').id;
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  it('the preview by words lists the turn and both facts, each marked as going with it', async () => {
    const res = await api('/api/v1/memory/forget/preview', { body: { query: '杭州' } });
    assert.equal(res.status, 200);
    const plan = res.body.plan as ForgetPlan;
    assert.deepEqual(plan.turns.map((t) => t.turnId), [said]);
    assert.deepEqual(plan.facts.map((f) => [f.id, f.withTurns]).sort(), [[nameId, true], [placeId, true]].sort());
  });

  it('bad keeps get coded errors and forget nothing: an unknown fact, a fact of another turn, a fact both forgotten and kept, a malformed id, a cross-site request', async () => {
    const untouched = () => {
      assert.equal(d.host.services.use('host.memory-control')!.isTombstoned(said), false, 'nothing was forgotten');
      assert.ok(fact('lives_in'), 'the place is still known');
      assert.ok(d.memory.graph.relation(nameId)?.sentence, 'the name as it was');
    };
    const unknown = await api('/api/v1/memory/forget', { body: { turnIds: [said], relationIds: [placeId], keepRelationIds: [987654] } });
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.equal(unknown.body.error?.code, 'NOT_FOUND');
    untouched();
    const other = await api('/api/v1/memory/forget', { body: { turnIds: [said], relationIds: [placeId], keepRelationIds: [teaId] } });
    assert.equal(other.status, 400, JSON.stringify(other.body));
    assert.equal(other.body.error?.code, 'VALIDATION');
    assert.match(other.body.error?.message ?? '', /not learned from the turns being forgotten/);
    untouched();
    const both = await api('/api/v1/memory/forget', { body: { turnIds: [said], relationIds: [placeId, nameId], keepRelationIds: [nameId] } });
    assert.equal(both.status, 400);
    assert.match(both.body.error?.message ?? '', /both to forget and to keep/);
    assert.equal((await api('/api/v1/memory/forget', { body: { turnIds: [said], keepRelationIds: ['../1'] } })).status, 400);
    assert.equal((await api('/api/v1/memory/forget', { body: { turnIds: [said], keepRelationIds: [-1] } })).status, 400);
    const crossSite = await api('/api/v1/memory/forget', { body: { turnIds: [said], keepRelationIds: [nameId] }, headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' } });
    assert.equal(crossSite.status, 403);
    untouched();
  });

  it('forgetting the turn with the name kept: the name stays, shown as kept; 杭州 reaches no prompt, no page and no history', async () => {
    const res = await api('/api/v1/memory/forget', { body: { turnIds: [said], relationIds: [placeId], keepRelationIds: [nameId] } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const result = res.body.result as ForgetResult;
    assert.equal(result.turns, 1);
    assert.equal(result.keptFacts, 1);
    assert.equal(fact('lives_in'), undefined);
    const kept = d.memory.graph.relation(nameId)!;
    assert.equal(kept.object, '小林');
    assert.equal(kept.sentence, undefined);

    // "About me" shows it as kept, with no source turn.
    const about = await api('/api/v1/memory/about');
    const facts = (about.body.about as { facts: { id: number; kept?: number; sources: unknown[] }[] }).facts;
    const shown = facts.find((f) => f.id === nameId);
    assert.ok(shown && typeof shown.kept === 'number', JSON.stringify(facts));
    assert.deepEqual(shown.sources, []);
    assert.doesNotMatch(JSON.stringify(about.body), /杭州/);

    // The next turn's prompt knows the name, and nothing of the place.
    await turn('我叫什么名字？', '你叫小林。');
    const body = chats().at(-1)!.body as { messages: { content?: unknown }[] };
    assert.match(String(body.messages[0]?.content ?? ''), /【记忆索引】[^【]*小林/, 'the kept name is in the memory index of the system prompt');
    assert.doesNotMatch(JSON.stringify(body), /杭州/);

    // The history says so; undo of it is refused (the turn is gone for good).
    const history = (await api('/api/v1/memory/history?limit=1000')).body.history as { id: string; op: string; target: string }[];
    const keep = history.find((h) => h.op === 'keep');
    assert.equal(keep?.target, `relation:${nameId}`);
    assert.doesNotMatch(JSON.stringify(history), /杭州/);
    assert.equal((await api(`/api/v1/memory/history/${keep!.id}/undo`, { body: {} })).status, 409);

    // The session log keeps the turn's place, not its words.
    assert.doesNotMatch(JSON.stringify((await api(`/api/v1/sessions/${encodeURIComponent(SID)}/events?limit=2000`)).body), /杭州/);
  });

  it('a reindex brings back neither the turn nor the place; the name stays kept', async () => {
    await d.memory.reindex();
    await d.memory.heartbeats.runOnce('rules');
    assert.equal(fact('lives_in'), undefined);
    assert.equal(fact('name')?.id, nameId);
    assert.ok((d.memory.graph.relation(nameId)?.refs ?? []).every((r) => r.startsWith('kept:')));
    assert.doesNotMatch(JSON.stringify(await d.memory.recall.search('杭州', { k: 50 })), /杭州/);
  });

  it('a library memory the model saved inside a turn is linked to that turn: forgetting the turn lists it (ticked) and takes it', async () => {
    llm.enqueue({ toolCalls: [{ name: 'library_save', arguments: { title: 'Locker', snapshot: 'The gym locker is number 4417' } }] }, { text: 'Saved.' });
    const out = await d.agent.injectInput({ sessionId: SID, source: 'webui', text: 'save this: my gym locker is number 4417' }).done;
    assert.equal(out.status, 'ok');
    const mm = async (op: string, args: Record<string, unknown>) => (await api('/api/memory-manager', { body: { op, args } })).body.value as Record<string, unknown>;
    const saved = ((await mm('memory.list', {})).items as { id: string; title: string }[]).find((m) => m.title === 'Locker')!;
    const message = (await d.sessions.events(SID)).find((e) => e.turnId === out.turnId && e.kind === 'user')!;
    assert.deepEqual((await mm('memory.get', { id: saved.id })).source, { sessionId: SID, seqs: [message.seq] });
    const plan = (await api('/api/v1/memory/forget/preview', { body: { turnIds: [out.turnId] } })).body.plan as ForgetPlan;
    assert.deepEqual(plan.memories.map((m) => [m.id, m.madeFrom]), [[saved.id, true]], 'listed with its turn, as made from it');
    const res = await api('/api/v1/memory/forget', { body: { turnIds: [out.turnId], memoryIds: [saved.id] } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((res.body.result as ForgetResult).memories, 1);
    assert.equal((await mm('memory.get', { id: saved.id })).code, 'NOT_FOUND');
  });

  it('an export imported into a fresh daemon keeps the name as kept, and brings nothing of the place', async () => {
    const work = mkdtempSync(join(tmpdir(), 'ha-keep-fact-export-'));
    homes.push(work);
    const file = join(work, 'a.zip');
    assert.equal((await d.host.services.use('host.transfer')!.exportTo({ file })).state, 'done');
    await d.stop();
    d = await start();
    const t = d.host.services.use('host.transfer')!;
    const job = await t.stageImport({ file });
    assert.equal((await t.applyImport(job.id, { mode: 'skip' })).state, 'done');
    await t.discard(job.id);
    const name = fact('name');
    assert.equal(name?.object, '小林');
    assert.ok((name.refs ?? []).every((r) => r.startsWith('kept:')), JSON.stringify(name));
    assert.equal(name.sentence, undefined);
    assert.equal(fact('lives_in'), undefined);
    assert.doesNotMatch(JSON.stringify(d.memory.graph.exportFacts()), /杭州|我叫小林/);
    const facts = ((await api('/api/v1/memory/about')).body.about as { facts: { object: string; kept?: number }[] }).facts;
    assert.ok(typeof facts.find((f) => f.object === '小林')?.kept === 'number');
  });
});
