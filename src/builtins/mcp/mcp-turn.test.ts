import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createTestHost, ScriptedLlm } from '../../sdk/testing/index.js';
import { createMcpPlugin } from './index.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('a whole agent turn (fake LLM server over HTTP, real providers) calls an MCP tool of the real server-everything and gets its result', async (t) => {
  const plugin = createMcpPlugin();
  // The test host's agent talks to the real ProviderManager (Lua openai adapter) → the fake LLM server.
  const llm = new ScriptedLlm();
  const host = await createTestHost({ plugins: [plugin], llm });
  t.after(() => host.close());
  await host.config.set('plugin.mcp.reconnect_base_ms', 50);
  await host.config.set('plugin.mcp.servers', [{ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] }]);
  const hasEcho = () => host.agent.tools.build().some((d) => d.name === 'mcp__everything__echo');
  await until(hasEcho, 'MCP tools in the agent');
  assert.ok(host.plugin('mcp')?.tools.includes('mcp__everything__echo'));

  llm.enqueue({ toolCalls: [{ name: 'mcp__everything__echo', arguments: { message: 'hi' } }] }, { text: 'done' });
  const outcome = await host.send('please echo hi');
  assert.equal(outcome.status, 'ok', JSON.stringify(outcome.error));
  assert.equal(outcome.text, 'done');
  const first = JSON.stringify(llm.recorded[0].body);
  assert.match(first, /mcp__everything__echo/, 'the tool is offered to the model');
  const second = JSON.stringify(llm.recorded[1].body);
  assert.match(second, /Echo: hi/, 'the second LLM call carries the tool result');

  // crash the server: the tools leave the agent's tool set, then come back after the reconnect
  const pid = plugin.connections()[0].pid!;
  process.kill(pid, 'SIGKILL');
  await until(() => !hasEcho(), 'tools removed while the server is down');
  await until(hasEcho, 'tools back after the reconnect');
  assert.equal(await host.callTool('mcp__everything__echo', { message: 'again' }), 'Echo: again');
});
