/**
 * The memory manager inside a real daemon (M-6, M-9, M-12): injection on the first user turn of a
 * fresh daemon (the lazy-load race), visible to the model and in agent_llm_chain; exclude/restore
 * through whole turn cycles; library tools used in a turn driven by the fake LLM over HTTP.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import type { LlmChainEvent } from '../src/spec/index.js';

/** The secret as a number of its own — not four digits inside a timestamp (`"at":1796274547112`). */
const CODE_4711 = /(?<!\d)4711(?!\d)/;

let fake: FakeLlm;
let home: string;
const env = () => ({ HOME: process.env.HOME, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fake.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' });

async function op(d: Daemon, body: Record<string, unknown>): Promise<{ ok: boolean; value: unknown }> {
  const res = await fetch(`${d.url}/api/memory-manager`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${d.authToken}` }, body: JSON.stringify(body) });
  return (await res.json()) as { ok: boolean; value: unknown };
}

function lastSystemPrompt(): string {
  const req = fake.requests.filter((r) => r.format === 'openai-chat').at(-1)!;
  return JSON.stringify(req.body.messages);
}

before(async () => {
  fake = await startFakeLlm();
  home = mkdtempSync(join(tmpdir(), 'ha-mm-'));
});
after(async () => {
  await fake.close();
  rmSync(home, { recursive: true, force: true });
});

test('a planned memory is injected on the very first user turn of a freshly started daemon', async () => {
  const d1 = await startTestDaemon({ homeDir: home, env: env(), webuiPort: 0, heartbeats: false });
  let id: string;
  try {
    assert.ok(d1.url, 'webui is up');
    const saved = await op(d1, { op: 'memory.save', args: { title: '猫的名字', snapshot: '用户的猫叫 Mochi，是一只橘猫。', impressions: ['猫', 'Mochi'] } });
    assert.equal(saved.ok, true, JSON.stringify(saved));
    id = (saved.value as { id: string }).id;
    assert.equal((await op(d1, { op: 'plan.addMemory', args: { id } })).ok, true);
    assert.equal((await op(d1, { op: 'state.setMode', args: { mode: 'on' } })).ok, true);
  } finally {
    await d1.stop();
  }
  // A new daemon: library scan and plan load are lazy; the first turn must still carry the block.
  // Unsettled: the turn is sent the moment homed says it is ready, as a person's first one can be;
  // turns wait for the built-ins' first start (decision 0710), so the memory manager is up for it.
  const d2 = await startTestDaemon({ homeDir: home, env: env(), webuiPort: 0, heartbeats: false, unsettled: true });
  try {
    const chains: LlmChainEvent[] = [];
    d2.agent.bus.on('agent_llm_chain', (e) => chains.push(e));
    fake.enqueue({ text: '你的猫叫 Mochi。' });
    const out = await d2.agent.injectInput({ sessionId: 'cli:mm1', source: 'cli', text: '我的猫叫什么？' }).done;
    assert.equal(out.status, 'ok');
    const sent = lastSystemPrompt();
    assert.match(sent, /=== 记忆库上下文（用户指定，供参考；非当前对话的实时内容） ===/);
    assert.match(sent, /Mochi/);
    assert.ok(chains[0].injected.some((i) => i.source === 'memory-manager' && i.text.includes('Mochi')), 'visible in agent_llm_chain');
    const log = await d2.sessions.events('cli:mm1');
    const injection = log.find((e) => e.kind === 'injection' && e.text.includes('Mochi'));
    assert.ok(injection, 'persisted in the session log');
    assert.deepEqual(
      (injection.data?.sources as { tier: string; id: string; text: string }[]).map((x) => [x.tier, x.id, x.text]),
      [['library', id, '猫的名字']],
      'the block names the memory it carries (why was this recalled)',
    );
  } finally {
    await d2.stop();
  }
});

test('exclude and restore a turn through whole turn cycles; library tools work in a turn', async () => {
  const d = await startTestDaemon({ homeDir: home, env: env(), webuiPort: 0, heartbeats: false });
  try {
    await op(d, { op: 'state.setMode', args: { mode: 'off' } });
    const s = 'cli:mm2';
    fake.enqueue({ text: 'noted' });
    const a = await d.agent.injectInput({ sessionId: s, source: 'cli', text: 'the door code is 4711' }).done;
    fake.enqueue({ text: 'ok' });
    await d.agent.injectInput({ sessionId: s, source: 'cli', text: 'what is the weather' }).done;
    assert.match(lastSystemPrompt(), CODE_4711, 'turn A is in the timeline before exclusion');

    const ex = await op(d, { op: 'turn.exclude', sessionId: s, args: { turnId: a.turnId } });
    assert.equal(ex.ok, true, JSON.stringify(ex));
    fake.enqueue({ text: 'ok' });
    await d.agent.injectInput({ sessionId: s, source: 'cli', text: 'anything else?' }).done;
    assert.doesNotMatch(lastSystemPrompt(), CODE_4711, 'an excluded turn leaves the model context');
    const turns = await op(d, { op: 'session.turns', sessionId: s });
    assert.equal((turns.value as { turnId: string; excluded: boolean }[]).find((t) => t.turnId === a.turnId)?.excluded, true);
    const log = await d.sessions.events(s);
    assert.ok(log.some((e) => e.kind === 'user' && e.text.includes('4711')), 'the log keeps the turn');

    assert.equal((await op(d, { op: 'turn.restore', sessionId: s, args: { turnId: a.turnId } })).ok, true);
    fake.enqueue({ text: 'ok' });
    await d.agent.injectInput({ sessionId: s, source: 'cli', text: 'and now?' }).done;
    assert.match(lastSystemPrompt(), CODE_4711, 'restore brings it back');

    // library_save through a turn driven by the fake model.
    fake.enqueue({ toolCalls: [{ name: 'library_save', arguments: { title: 'Door code', snapshot: 'The door code is 4711.', impressions: ['door'] } }] }, { text: 'saved' });
    const t = await d.agent.injectInput({ sessionId: s, source: 'cli', text: 'remember the door code in the library' }).done;
    assert.equal(t.text, 'saved');
    const found = await op(d, { op: 'memory.search', args: { query: 'door code' } });
    assert.ok(JSON.stringify(found.value).includes('Door code'), JSON.stringify(found.value));
    assert.ok(readdirSync(join(home, 'memory', 'memories')).length >= 2, 'memory files on disk');
  } finally {
    await d.stop();
  }
});

test('library search ranks in the agent embedding space once a dense model is loaded: "kitten" finds the memory about the cat', async () => {
  const h = mkdtempSync(join(tmpdir(), 'ha-mm-dense-'));
  const vec = join(h, 'tiny.vec');
  writeFileSync(vec, ['8 4', 'cat 1 0 0 0', 'kitten 0.95 0.05 0 0', 'mochi 0.9 0 0.1 0', 'car 0 1 0 0', 'truck 0 0.95 0.05 0', 'repair 0 0.8 0.2 0', 'user 0 0 0 1', 'the 0 0 0 1'].join('\n') + '\n');
  const d = await startTestDaemon({ homeDir: h, env: env(), webuiPort: 0, heartbeats: false });
  try {
    const cat = await op(d, { op: 'memory.save', args: { title: 'My cat', snapshot: 'The user has a cat named Mochi.', impressions: ['cat', 'Mochi'] } });
    const car = await op(d, { op: 'memory.save', args: { title: 'Car repair', snapshot: 'The truck needs a repair on Friday.', impressions: ['car', 'repair'] } });
    assert.ok(cat.ok && car.ok);
    const search = async (query: string) => (await op(d, { op: 'memory.search', args: { query } })).value as { items?: { id: string }[] } | { id: string }[];
    const ids = (v: Awaited<ReturnType<typeof search>>) => (Array.isArray(v) ? v : v.items ?? []).map((x) => x.id);
    assert.deepEqual(ids(await search('kitten')), [], 'lexical only: no memory has the word');
    const res = await fetch(`${d.url}/api/v1/settings/${encodeURIComponent('core.memory.embedding_model_path')}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${d.authToken}` }, body: JSON.stringify({ value: vec }) });
    assert.equal(res.status, 200, await res.text());
    let found: string[] = [];
    for (let i = 0; i < 100 && found.length === 0; i++) {
      found = ids(await search('kitten'));
      if (found.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(found, [(cat.value as { id: string }).id], 'the cat memory, and not the one about the car');
    // The lexical half still counts: a word of the car memory ranks it first.
    assert.equal(ids(await search('repair'))[0], (car.value as { id: string }).id);
  } finally {
    await d.stop();
    rmSync(h, { recursive: true, force: true });
  }
});
