/**
 * Decision 0550 on the REAL daemon, with the fake LLM server over loopback: regenerate and
 * edit-and-resend through the WebUI's route.
 * - The session summary made from the replaced turn stays in the prompt (the regenerated turn,
 *   which opens the session again, and a new session get it): the turn is not excluded, so the
 *   library's set-aside (decision 0440) does not take it — the reason the first attempt was reverted.
 * - The regenerated turn does not recall the reply it replaces.
 * - Recall (`waiter memory search`) finds the message once, in the new turn — after a restart and a
 *   reindex too; edited, the old wording is found nowhere.
 * - The chat shows what it showed before; the memory history says what happened.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import type { RecallHit } from '../src/spec/index.js';
import { DaemonClient } from '../src/waiter/daemon-client.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';

const SID = 'webui:regen';
const LOCK = 'My bike lock code is 8086, please remember it';

describe('a regenerated turn is remembered once (decision 0550)', { timeout: 120_000 }, () => {
  let llm: FakeLlm;
  let d: Daemon;
  let home: string;
  const env = () => ({ PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' });
  const start = async () => (d = await startTestDaemon({ homeDir: home, env: env(), webuiPort: 0, heartbeats: false }));
  const headers = () => ({ authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' });
  const api = async (path: string, body?: unknown) => {
    const res = await fetch(`${d.url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: headers(), body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const mm = async (op: string, args: Record<string, unknown>) => (await api('/api/memory-manager', { op, sessionId: SID, args })).body.value as Record<string, unknown>;
  const chats = () => llm.requests.filter((r) => r.path.endsWith('/chat/completions'));
  const lastPrompt = () => JSON.stringify(chats().at(-1)!.body);
  const turn = async (text: string, reply: string, sessionId = SID) => {
    llm.enqueue({ text: reply });
    const outcome = await d.agent.injectInput({ sessionId, source: 'webui', text }).done;
    assert.equal(outcome.status, 'ok');
    return outcome.turnId;
  };
  const untilIdle = async () => {
    for (let i = 0; i < 400; i++) {
      const st = (await api('/api/v1/status')).body as { agent?: { busy?: boolean; queued?: number } };
      if (!st.agent?.busy && !st.agent?.queued) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the agent stayed busy');
  };
  const resend = async (turnId: string, body: Record<string, unknown>) => {
    const res = await api(`/api/v1/sessions/${encodeURIComponent(SID)}/turns/${encodeURIComponent(turnId)}/resend`, body);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    await untilIdle();
    return res.body as { turnId: string; deleted: string[]; replaced?: string[] };
  };
  /** `waiter memory search`: the turns of the hits holding `words`, one entry per hit of a message (`user`) or a reply. */
  const recalled = async (words: string) => {
    const c = new DaemonClient(d.socketPath);
    await c.connect();
    try {
      const hits = await c.request<RecallHit[]>('memory.search', { query: words, limit: 50 });
      const holding = hits.filter((h) => h.tier !== 'graph' && h.text.includes(words));
      return { messages: holding.filter((h) => h.kind === 'user').map((h) => h.turnId), turns: [...new Set(holding.map((h) => h.turnId))] };
    } finally {
      c.close();
    }
  };
  const shown = async () => ((await api(`/api/v1/sessions/${encodeURIComponent(SID)}/events?limit=200`)).body.events as { kind: string; text: string }[]).filter((e) => e.kind === 'user' || e.kind === 'assistant').map((e) => e.text);

  before(async () => {
    llm = await startFakeLlm();
    home = mkdtempSync(join(tmpdir(), 'ha-regen-memory-'));
    await start();
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('a regenerate keeps the session summary of the turn in the prompt, and recall finds the message once — the new turn — through a restart and a reindex', async () => {
    const t1 = await turn(LOCK, 'OLD-ANSWER: noted, the code is 8086.');
    const t2 = await turn('And my gym locker is number 12', 'Noted, locker 12.');
    // A summary of both turns (one affair): its source covers the turn that is regenerated next.
    llm.enqueue({ text: JSON.stringify({ groups: [[1, 2]] }) });
    llm.enqueue({ text: JSON.stringify({ user: 'SUMMARY-QUOKKA told the bike lock code and the gym locker', thinking: 'keep them', processing: 'noted', result: 'remembered' }) });
    const sum = (await mm('session.summarize', { lastN: 2, merge: true })) as { count: number; summaries: { id: string }[] };
    assert.equal(sum.count, 1);
    assert.deepEqual((await recalled('bike lock')).messages, [t1], 'before: once, the first turn');

    llm.enqueue({ text: 'NEW-ANSWER: noted again.' });
    const r = await resend(t1, {});
    assert.deepEqual(r.deleted, [t1, t2]);
    assert.deepEqual(r.replaced, [t1]);
    assert.deepEqual(await shown(), [LOCK, 'NEW-ANSWER: noted again.'], 'the chat shows what it showed before this decision');

    // The regenerated turn opens the session again: summaries are auto-injected into it.
    const prompt = lastPrompt();
    assert.match(prompt, /SUMMARY-QUOKKA/, 'the summary made from the replaced turn is still in the prompt');
    assert.doesNotMatch(prompt, /OLD-ANSWER/, 'the reply it replaces is not recalled');
    const mem = ((await mm('memory.list', {})) as { items: { id: string; setAside?: boolean }[] }).items.find((m) => m.id === sum.summaries[0].id);
    assert.ok(mem && !mem.setAside, 'the summary is not set aside');
    assert.deepEqual((await api('/api/v1/memory/exclusions')).body.turnIds, [], 'nothing is excluded: an exclusion would set the summary aside (decision 0440)');
    await turn('What is new today?', 'Nothing much.', 'webui:later');
    assert.match(lastPrompt(), /SUMMARY-QUOKKA/, 'a new session gets it too');

    assert.deepEqual(await recalled('bike lock'), { messages: [r.turnId], turns: [r.turnId] }, 'recall finds the message once, in the new turn');
    assert.deepEqual((await recalled('OLD-ANSWER')).turns, [], 'and nothing of the old reply');
    const history = (await api('/api/v1/memory/history?kind=replacement')).body.history as { target: string; summary: string; actor: string }[];
    assert.deepEqual(
      history.map((h) => [h.target, h.summary, h.actor]),
      [[t1, `replaced turn ${t1} with ${r.turnId}`, 'user']],
    );

    await d.stop();
    await start();
    const c = new DaemonClient(d.socketPath);
    await c.connect();
    await c.request('memory.reindex', {});
    c.close();
    assert.deepEqual(await recalled('bike lock'), { messages: [r.turnId], turns: [r.turnId] }, 'after a restart and a reindex: once');
    assert.deepEqual((await recalled('OLD-ANSWER')).turns, []);
  });

  it('edit-and-resend: the old wording is found nowhere, the new one once', async () => {
    const t = await turn('The parcel locker pin is 4417', 'OLD-PIN-ANSWER: 4417 noted.');
    llm.enqueue({ text: 'NEW-PIN-ANSWER: 5529 noted.' });
    const r = await resend(t, { text: 'The parcel locker pin is 5529' });
    assert.deepEqual(r.replaced, [t]);
    assert.deepEqual((await recalled('4417')).turns, []);
    assert.deepEqual((await recalled('5529')).messages, [r.turnId]);
  });
});
