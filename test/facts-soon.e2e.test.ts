/**
 * A fact just told is in the graph within seconds on the REAL daemon, with its heartbeats running
 * at their default intervals (the rule distiller's is ten minutes): a message nudges the rule
 * distiller a few seconds after it is said. Before, "About me" showed nothing for up to ten minutes
 * after "I work as a nurse" (found by a new-user walk).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';

describe('a fact just told shows within seconds, not at the next ten-minute tick', { timeout: 120_000 }, () => {
  let llm: FakeLlm;
  let d: Daemon;
  let home: string;
  before(async () => {
    llm = await startFakeLlm();
    home = mkdtempSync(join(tmpdir(), 'ha-facts-soon-e2e-'));
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0 });
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('"I work as a nurse" is a works_as fact without waiting for the interval', async () => {
    assert.equal(d.memory.heartbeats.intervalOf('rules'), 10 * 60_000, 'the default interval is in force');
    assert.equal(d.memory.heartbeats.started, true);
    llm.enqueue({ text: 'Noted.' });
    llm.enqueue({ text: 'Noted too.' });
    const first = d.agent.injectInput({ sessionId: 'webui:soon', source: 'webui', text: 'I work as a nurse.' }).done;
    const second = d.agent.injectInput({ sessionId: 'webui:soon', source: 'webui', text: 'I live in Lisbon.' }).done;
    assert.equal((await first).status, 'ok');
    assert.equal((await second).status, 'ok');
    // Waits for the condition itself; the suite's timeout (two minutes) is far under the interval.
    const facts = () => [...d.memory.graph.relationsOf('user', 'works_as'), ...d.memory.graph.relationsOf('user', 'lives_in')].map((r) => r.object).sort();
    while (facts().length < 2) await sleep(100);
    assert.deepEqual(facts(), ['Lisbon', 'nurse']);
  });

  it('the same job said in Chinese is the job that holds, said again (decision 0730, found by a walk)', async () => {
    llm.enqueue({ text: '好的。' });
    assert.equal((await d.agent.injectInput({ sessionId: 'webui:soon', source: 'webui', text: '我是一名护士。' }).done).status, 'ok');
    const job = () => d.memory.graph.relationsOf('user', 'works_as');
    // Waits for the distiller to have read it: the job gains a source, or (without 0730) 护士 is made.
    while (!(job()[0]?.refs ?? []).includes('webui:soon#3') && !d.memory.graph.getEntity('护士')) await sleep(100);
    assert.deepEqual(job().map((r) => [r.object, r.validTo ?? null]), [['nurse', null]], 'one job, current: 护士 did not end nurse');
  });
});
