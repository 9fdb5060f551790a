/** core.textlog.* are hot: changing them through config applies to the running text log (C-12). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { DaemonClient } from '../src/waiter/daemon-client.js';

let fake: FakeLlm;
const h = mkdtempSync(join(tmpdir(), 'ha-tl-'));
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
  rmSync(h, { recursive: true, force: true });
});

test('setting core.textlog.rotate_bytes / keep_files on a running daemon rotates and prunes logs/text.jsonl', async () => {
  const env = { PATH: process.env.PATH, HOMEAGENT_HOME: h, OLLAMA_HOST: 'http://127.0.0.1:9', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fake.url}/v1` };
  const d = await startTestDaemon({ homeDir: h, env, webuiPort: 0, heartbeats: false });
  try {
    await d.config.set('core.textlog.rotate_bytes', 4096);
    await d.config.set('core.textlog.keep_files', 1);
    const c = new DaemonClient(d.socketPath);
    await c.connect();
    for (let i = 0; i < 4; i++) {
      fake.enqueue({ text: `reply ${i} ${'r'.repeat(3000)}` });
      const out = await c.request<{ status: string }>('send', { text: `turn ${i} ${'u'.repeat(3000)}`, sessionId: 'cli:tl' });
      assert.equal(out.status, 'ok');
    }
    c.close();
    // ~24 KB written with a 4 KiB limit: rotated several times, only one rotated file kept.
    assert.deepEqual(readdirSync(join(h, 'logs')).filter((f) => f.startsWith('text')).sort(), ['text.1.jsonl', 'text.jsonl']);
  } finally {
    await d.stop();
  }
});
