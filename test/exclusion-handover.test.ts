/**
 * The memory manager hands the turns excluded in its plan (`<library>/pinned/excluded.json`, an
 * older install's M-9 record) to memory control at start. A turn no log or tier holds any more (its
 * session deleted) is refused as unknown — and must not keep the others from being excluded
 * (review fix: the whole batch was refused, at every start).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm } from './fixtures/fake-llm/index.js';

test('an excluded turn that no longer exists does not keep the others in the plan from being excluded', { timeout: 60_000 }, async () => {
  const llm = await startFakeLlm();
  const home = mkdtempSync(join(tmpdir(), 'ha-exclusion-handover-'));
  const env = { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' };
  try {
    let d = await startTestDaemon({ homeDir: home, env, webuiPort: 0, heartbeats: false });
    llm.enqueue({ text: 'Noted.' });
    const secret = (await d.agent.injectInput({ sessionId: 'webui:old', source: 'webui', text: 'my locker code is 2046' }).done).turnId;
    await d.stop();
    // The plan names it — and a turn of a session deleted long ago.
    mkdirSync(join(home, 'memory', 'pinned'), { recursive: true });
    writeFileSync(join(home, 'memory', 'pinned', 'excluded.json'), JSON.stringify({ 'webui:gone': ['webui:gone#3'], 'webui:old': [secret] }));
    d = await startTestDaemon({ homeDir: home, env, webuiPort: 0, heartbeats: false });
    try {
      const mc = d.host.services.use('host.memory-control')!;
      // The hand-over runs in the background once the plan is loaded: its exclusion is the event to
      // wait for (with the old bug it never came, and the test's time limit fails it).
      await new Promise<void>((resolve) => {
        if (mc.isExcluded(secret)) return resolve();
        const off = mc.onExclusionChange(({ turnIds, excluded }) => {
          if (!excluded || !turnIds.includes(secret)) return;
          off();
          resolve();
        });
      });
      assert.deepEqual(mc.excluded(), [secret]);
    } finally {
      await d.stop();
    }
  } finally {
    await llm.close();
    rmSync(home, { recursive: true, force: true });
  }
});
