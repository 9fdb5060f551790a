/**
 * A question about oneself on the REAL daemon, with the fake LLM over loopback: "I live in Paris"
 * → "I moved to Berlin" → 我搬到上海了, each distilled by the rule distiller into a `lives_in`
 * timeline; in a new session "where do I live?" and 我现在住在哪里？ name no place, yet the
 * system prompt the model got carries the current place in 【记忆索引】, and the old places only
 * as past (with "until"), if at all.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';

describe('questions about oneself bring one’s current facts', { timeout: 120_000 }, () => {
  let llm: FakeLlm;
  let d: Daemon;
  let home: string;
  const turn = async (sessionId: string, text: string) => {
    llm.enqueue({ text: 'Noted.' });
    const outcome = await d.agent.injectInput({ sessionId, source: 'webui', text }).done;
    assert.equal(outcome.status, 'ok');
  };
  /** The 【记忆索引】 block of the system prompt the model got last ('' when there is none). */
  const lastIndex = () => {
    const chats = llm.requests.filter((r) => r.path.endsWith('/chat/completions'));
    const system = String((chats.at(-1)?.body as { messages?: { content?: unknown }[] })?.messages?.[0]?.content ?? '');
    return /【记忆索引】\n([\s\S]*?)(?:\n\n|$)/.exec(system)?.[1] ?? '';
  };

  before(async () => {
    llm = await startFakeLlm();
    home = mkdtempSync(join(tmpdir(), 'ha-own-facts-e2e-'));
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
    for (const said of ['I live in Paris.', 'I moved to Berlin', '我搬到上海了']) {
      await turn('webui:moves', said);
      await d.memory.heartbeats.runOnce('rules');
    }
    const timeline = d.memory.graph.relationsOf('user', 'lives_in');
    assert.deepEqual(
      timeline.map((r) => [r.object, typeof r.validTo === 'number']),
      [['上海', false], ['Berlin', true], ['Paris', true]],
      'the walk left one current place',
    );
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    rmSync(home, { recursive: true, force: true });
  });

  for (const [sessionId, question] of [
    ['webui:ask-en', 'where do I live?'],
    ['webui:ask-zh', '我现在住在哪里？'],
  ]) {
    it(`"${question}" in a new session: the current place, the old ones only as past`, async () => {
      await turn(sessionId, question);
      const index = lastIndex();
      assert.match(index, /^- user —lives_in→ 上海 \(/, index);
      for (const line of index.split('\n').filter((l) => /Paris|Berlin/.test(l))) assert.match(line, /until \d{4}-\d\d-\d\d/, `an old place shown as current: ${line}`);
    });
  }

  it('text that asks nothing about oneself does not bring them', async () => {
    await turn('webui:ask-other', 'what is a good recipe for dumplings?');
    assert.doesNotMatch(lastIndex(), /lives_in/);
  });
});
