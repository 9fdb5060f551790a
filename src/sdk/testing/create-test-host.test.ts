import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PluginDefinition, PluginSDK } from '../../spec/index.js';
import { createTestHost, ScriptedLlm } from './index.js';

function echoPlugin(onStart?: (sdk: PluginSDK) => void): PluginDefinition<PluginSDK> {
  return {
    name: 'echo',
    start(sdk) {
      onStart?.(sdk);
      sdk.registerTool({
        name: 'echo_say',
        description: 'echoes its text',
        parameters: { type: 'object', properties: { text: { type: 'string' } } },
        handler: (args) => `echo:${String(args.text)}`,
      });
    },
  };
}

test('P-1: a scripted turn crosses real HTTP in the OpenAI wire format; requests read back normalized', async (t) => {
  const llm = new ScriptedLlm([{ toolCalls: [{ name: 'echo_say', arguments: { text: 'hi' }, id: 'call_x' }] }, { text: 'done' }]);
  const h = await createTestHost({ plugins: [echoPlugin()], llm });
  t.after(() => h.close());
  const outcome = await h.send('say hi');
  assert.equal(outcome.status, 'ok', JSON.stringify(outcome.error));
  assert.equal(outcome.text, 'done');
  assert.equal(llm.recorded.length, 2);
  const wire = llm.recorded[0];
  assert.equal(wire.path, '/v1/chat/completions');
  assert.equal(wire.headers.authorization, 'Bearer test');
  assert.equal(wire.body.stream, true, 'the agent streams');
  assert.ok(llm.requests[0].tools?.some((s) => s.name === 'echo_say'), 'the tool is offered');
  assert.equal(llm.requests[0].messages.at(-1)?.content, 'say hi');
  const msgs = llm.requests[1].messages;
  assert.deepEqual(msgs.find((m) => m.role === 'assistant')?.toolCalls, [{ id: 'call_x', name: 'echo_say', arguments: '{"text":"hi"}' }]);
  const toolMsg = msgs.find((m) => m.role === 'tool');
  assert.equal(toolMsg?.toolCallId, 'call_x');
  assert.match(toolMsg?.content ?? '', /echo:hi/);
  assert.equal(h.providers.status()[0].name, 'openai');
});

test('P-1: sdk.llm() of a plugin goes through the same provider manager and fake server', async (t) => {
  let sdk: PluginSDK | undefined;
  const llm = new ScriptedLlm([{ text: 'hello', reasoning: 'thinking it over' }]);
  const h = await createTestHost({ plugins: [echoPlugin((s) => (sdk = s))], llm });
  t.after(() => h.close());
  assert.equal(sdk!.llm().available(), true);
  const parts: string[] = [];
  const r = await sdk!.llm().chat({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 50 }, { onPart: (p) => void parts.push(p.type) });
  assert.equal(r.text, 'hello');
  assert.equal(r.reasoning, 'thinking it over');
  assert.equal(r.provider, 'openai');
  assert.ok(parts.includes('text-delta') && parts.includes('finish'));
  assert.equal(llm.requests[0].maxTokens, 50);
});

test('P-1: a scripted HTTP error fails the turn with a typed error; the next turn recovers', async (t) => {
  const llm = new ScriptedLlm([{ status: 500 }, { text: 'back' }]);
  const h = await createTestHost({ llm });
  t.after(() => h.close());
  const failed = await h.send('one');
  assert.equal(failed.status, 'error');
  assert.equal(failed.error?.code, 'ALL_PROVIDERS_FAILED');
  assert.match(failed.error?.message ?? '', /openai/);
  const ok = await h.send('two');
  assert.equal(ok.status, 'ok', JSON.stringify(ok.error));
  assert.equal(ok.text, 'back');
});

test('P-1: ScriptedLlm(replies, false) leaves every source unconfigured, even with a key in the environment', async (t) => {
  const before = process.env.DEEPSEEK_API_KEY;
  process.env.DEEPSEEK_API_KEY = 'sk-must-not-be-used';
  t.after(() => {
    if (before === undefined) delete process.env.DEEPSEEK_API_KEY;
    else process.env.DEEPSEEK_API_KEY = before;
  });
  const llm = new ScriptedLlm([], false);
  const h = await createTestHost({ llm });
  t.after(() => h.close());
  assert.equal(h.providers.available(), false);
  const outcome = await h.send('hello');
  assert.equal(outcome.status, 'error');
  assert.equal(outcome.error?.code, 'NO_PROVIDER_CONFIGURED');
  assert.equal(llm.recorded.length, 0);
});

test('P-1: close() stops the fake server, twice is fine, and the recorded requests stay readable', async () => {
  const llm = new ScriptedLlm();
  llm.enqueue({ text: 'queued before start' });
  assert.throws(() => llm.url, /not started/);
  const h = await createTestHost({ llm });
  const url = llm.url;
  assert.equal((await h.send('x')).text, 'queued before start');
  assert.equal((await h.send('y')).text, 'ok', 'the default reply');
  await h.close();
  await h.close();
  await llm.close();
  await assert.rejects(fetch(`${url}/v1/models`));
  assert.equal(llm.requests.length, 2);
});
