import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createTestHost, type ScriptedLlm } from '../../sdk/testing/index.js';
import { BUILTIN_ADAPTERS_DIR, ProviderManager, providerConfigDefaults } from '../../providers/index.js';
import { startFakeLlm } from '../../../test/fixtures/fake-llm/index.js';
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
  const fake = await startFakeLlm();
  t.after(() => fake.close());
  // The agent talks to the real ProviderManager (Lua openai adapter) → the fake LLM server.
  const ref: { pm?: ProviderManager } = {};
  const llm = {
    available: () => ref.pm?.available() ?? false,
    run: (req: never, opts: never) => ref.pm!.run(req, opts),
  } as unknown as ScriptedLlm;
  const host = await createTestHost({ plugins: [plugin], llm });
  t.after(() => host.close());
  host.config.register(providerConfigDefaults());
  await host.config.set('core.llm.sources.openai.api_key', 'sk-test-mcp');
  await host.config.set('core.llm.sources.openai.base_url', `${fake.url}/v1`);
  const providers = (ref.pm = new ProviderManager({ config: host.config, adapterDirs: [BUILTIN_ADAPTERS_DIR], env: {}, probeOllama: false }));
  await providers.start();
  t.after(() => providers.stop());
  await host.config.set('plugin.mcp.reconnect_base_ms', 50);
  await host.config.set('plugin.mcp.servers', [{ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] }]);
  const hasEcho = () => host.agent.tools.build().some((d) => d.name === 'mcp__everything__echo');
  await until(hasEcho, 'MCP tools in the agent');
  assert.ok(host.plugin('mcp')?.tools.includes('mcp__everything__echo'));

  fake.enqueue({ toolCalls: [{ name: 'mcp__everything__echo', arguments: { message: 'hi' } }] }, { text: 'done' });
  const outcome = await host.send('please echo hi');
  assert.equal(outcome.status, 'ok', JSON.stringify(outcome.error));
  assert.equal(outcome.text, 'done');
  const first = JSON.stringify(fake.requests[0].body);
  assert.match(first, /mcp__everything__echo/, 'the tool is offered to the model');
  const second = JSON.stringify(fake.requests[1].body);
  assert.match(second, /Echo: hi/, 'the second LLM call carries the tool result');

  // crash the server: the tools leave the agent's tool set, then come back after the reconnect
  const pid = plugin.connections()[0].pid!;
  process.kill(pid, 'SIGKILL');
  await until(() => !hasEcho(), 'tools removed while the server is down');
  await until(hasEcho, 'tools back after the reconnect');
  assert.equal(await host.callTool('mcp__everything__echo', { message: 'again' }), 'Echo: again');
});
