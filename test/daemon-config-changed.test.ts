/**
 * A setting set on a running daemon — by the WebUI, `waiter config set` or a plugin — is published
 * as `config_changed` on the bus (and so on the WebUI's event stream, which shows settings live),
 * by its key alone: every plugin may subscribe, and a value that is not marked secret can still
 * carry credentials (an MCP server's headers).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import { startTestDaemon } from './fixtures/daemon.js';

let fake: FakeLlm;
const h = mkdtempSync(join(tmpdir(), 'ha-cc-'));
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
  rmSync(h, { recursive: true, force: true });
});

test('config.set publishes config_changed with the key alone — no value, secret or not', async () => {
  const env = { PATH: process.env.PATH, HOMEAGENT_HOME: h, OLLAMA_HOST: 'http://127.0.0.1:9', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fake.url}/v1` };
  const d = await startTestDaemon({ homeDir: h, env, webuiPort: 0, heartbeats: false });
  try {
    const seen: { key: string; value?: unknown }[] = [];
    const off = d.agent.bus.on('config_changed', (p) => void seen.push(p));
    await d.config.set('core.agent.name', 'Jeeves');
    await d.config.set('core.llm.sources.deepseek.api_key', 'sk-very-secret-key-123456');
    await d.config.set('plugin.mcp.servers', [{ name: 'gh', url: 'https://mcp.example/x', headers: { Authorization: 'Bearer ghp_SUPERSECRET' } }]);
    off();
    assert.deepEqual(seen, [{ key: 'core.agent.name' }, { key: 'core.llm.sources.deepseek.api_key' }, { key: 'plugin.mcp.servers' }]);
    assert.doesNotMatch(JSON.stringify(seen), /very-secret|SUPERSECRET|Jeeves/);
  } finally {
    await d.stop();
  }
});
