/**
 * A tool that returns 50 MB does not fail the turn nor get blamed on the LLM source: the result
 * is cut to core.agent.tool_result_chars before it reaches history and the adapter, says how
 * large it was, and is logged as the turn's tool_result.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm } from './fixtures/fake-llm/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { DaemonClient } from '../src/waiter/daemon-client.js';

test('a tool returning 50 MB: the turn answers, the model reads a cut result naming the full size, the tool_result is logged', async () => {
  const h = mkdtempSync(join(tmpdir(), 'ha-huge-'));
  const fake = await startFakeLlm();
  const dir = join(h, 'plugins', 'huge');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.json'), JSON.stringify({ name: 'huge', version: '0.1.0', entry: 'index.js', permissions: [] }));
  writeFileSync(
    join(dir, 'index.js'),
    `export default { name: 'huge', start(sdk) { sdk.registerTool({ name: 'dump_all', description: 'returns everything', parameters: { type: 'object', properties: {} }, handler: () => 'x'.repeat(50 * 1024 * 1024) }); } };`,
  );
  const env = { PATH: process.env.PATH, HOMEAGENT_HOME: h, OLLAMA_HOST: 'http://127.0.0.1:9', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fake.url}/v1` };
  const d = await startTestDaemon({ homeDir: h, env, webuiPort: 0, heartbeats: false });
  const c = new DaemonClient(d.socketPath);
  try {
    await c.connect();
    // The plugins have settled (startTestDaemon): the one with the tool is up, or the test says why not.
    const huge = (await c.request<{ name: string; state: string; lastError?: string }[]>('plugins.list')).find((p) => p.name === 'huge');
    assert.equal(huge?.state, 'running', JSON.stringify(huge));
    fake.enqueue({ toolCalls: [{ id: 'call_huge', name: 'dump_all', arguments: {} }] }, { text: 'that was a lot' });
    const out = await c.request<{ status: string; text: string }>('send', { text: 'dump it', sessionId: 'cli:huge' });
    assert.equal(out.status, 'ok', JSON.stringify(out).slice(0, 500));
    assert.equal(out.text, 'that was a lot');

    const second = fake.requests.filter((r) => r.format === 'openai-chat').at(-1)!;
    const toolMsg = (second.body.messages as { role: string; content: string }[]).find((m) => m.role === 'tool')!;
    assert.ok(toolMsg.content.length < 101_000, `the model read ${toolMsg.content.length} characters`);
    assert.match(toolMsg.content, /the first 100,000 of 52,428,800 characters are shown/);

    const events = readFileSync(join(h, 'sessions', `${encodeURIComponent('cli:huge')}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind?: string; text?: string; data?: { name?: string } });
    const result = events.find((e) => e.kind === 'tool_result');
    assert.ok(result, `kinds logged: ${events.map((e) => e.kind).join(', ')}`);
    assert.equal(result.data?.name, 'dump_all');
    assert.match(result.text ?? '', /of 52,428,800 characters/);
    assert.ok(events.some((e) => e.kind === 'assistant' && e.text === 'that was a lot'), `kinds logged: ${events.map((e) => e.kind).join(', ')}`);
    const openai = d.providers.status().find((s) => s.name === 'openai');
    assert.equal(openai?.consecutiveFailures, 0);
  } finally {
    c.close();
    await d.stop();
    await fake.close();
    rmSync(h, { recursive: true, force: true });
  }
});
