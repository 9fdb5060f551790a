/**
 * The webui on the REAL daemon (`startDaemon`) with the fake LLM server over loopback: a chat
 * POST whose turn calls a tool, read back by a real SSE client (fetch streaming).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, type Daemon } from '../../daemon/index.js';
import { startFakeLlm, type FakeLlm } from '../../../test/fixtures/fake-llm/index.js';
import type { PluginDefinition } from '../../spec/index.js';
import { readSse } from './__fixtures__/read-sse.js';

describe('webui on the real daemon', { timeout: 60_000 }, () => {
  let llm: FakeLlm;
  let d: Daemon;
  let home: string;
  const calls: unknown[] = [];
  const tools: PluginDefinition = {
    name: 'webui-test-tools',
    start(sdk) {
      sdk.registerTool({
        name: 'weather_lookup',
        description: 'Current weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        handler: (args) => {
          calls.push(args);
          return '{"temp": 21}';
        },
      });
    },
  };

  before(async () => {
    llm = await startFakeLlm();
    home = mkdtempSync(join(tmpdir(), 'ha-webui-daemon-'));
    d = await startDaemon({ homeDir: home, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false, plugins: [tools] });
    assert.ok(d.url, `webui did not start: ${JSON.stringify(d.registry.list().find((p) => p.name === 'webui'))}`);
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('streams a tool-using turn started by POST /api/v1/chat over SSE', async () => {
    llm.enqueue({ toolCalls: [{ name: 'weather_lookup', arguments: { city: '上海' } }] }, { text: '上海 21°C' });
    const ac = new AbortController();
    const sse = await fetch(`${d.url}/api/v1/events`, { signal: ac.signal });
    assert.equal(sse.headers.get('content-type')?.split(';')[0], 'text/event-stream');
    const res = await fetch(`${d.url}/api/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: '上海天气？' }) });
    assert.equal(res.status, 202);
    const { turnId, sessionId } = (await res.json()) as { turnId: string; sessionId: string };
    assert.match(sessionId, /^webui:/);
    const evs = await readSse(sse, (e) => e.some((x) => x.event === 'turn_end' && x.payload.turnId === turnId));
    ac.abort();
    const mine = evs.filter((e) => e.payload.turnId === turnId).map((e) => e.event);
    for (const name of ['turn_start', 'agent_llm_chain', 'tool_start', 'tool_end', 'turn_end']) assert.ok(mine.includes(name), `${name} missing from ${mine.join(',')}`);
    assert.ok(mine.indexOf('tool_start') < mine.indexOf('tool_end') && mine.indexOf('tool_end') < mine.lastIndexOf('turn_end'));
    const toolEnd = evs.find((e) => e.event === 'tool_end' && e.payload.turnId === turnId)!;
    assert.match(JSON.stringify(toolEnd.payload), /21/);
    const end = evs.find((e) => e.event === 'turn_end' && e.payload.turnId === turnId)!;
    assert.equal(end.payload.status, 'ok');
    assert.match(String(end.payload.text), /21°C/);
    assert.deepEqual(calls, [{ city: '上海' }]);
    // The fake LLM saw the tool result in the second request (the LLM really went over HTTP).
    const chats = llm.requests.filter((r) => r.path.endsWith('/chat/completions'));
    assert.ok(chats.length >= 2);
    assert.match(JSON.stringify(chats.at(-1)!.body), /"temp": 21|\\"temp\\": 21/);
  });
});
