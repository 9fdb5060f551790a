import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startFakeLlm, type FakeLlm, type WireFormat } from '../../test/fixtures/fake-llm/index.js';
import type { ChatRequest, StreamPart } from '../spec/index.js';
import { AdapterRegistry } from './adapter-registry.js';
import { LuaAdapter } from './lua-adapter.js';
import { LuaAdaptedProvider } from './lua-adapted-provider.js';

const BUILTIN = fileURLToPath(new URL('./adapters/', import.meta.url));
const registry = new AdapterRegistry([BUILTIN]);
let llm: FakeLlm;
const adapters: LuaAdapter[] = [];
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  adapters.forEach((a) => a.close());
  await llm.close();
});

const KEY = 'sk-test-secret-123456';

interface Case {
  adapter: string;
  base: () => string;
  model: string;
  format: WireFormat;
  authHeader: [string, string];
  options?: Record<string, unknown>;
}
const cases: Case[] = [
  { adapter: 'openai', base: () => `${llm.url}/v1`, model: 'gpt-4o', format: 'openai-chat', authHeader: ['authorization', `Bearer ${KEY}`] },
  { adapter: 'openai-compatible', base: () => `${llm.url}/v1`, model: 'qwen-plus', format: 'openai-chat', authHeader: ['authorization', `Bearer ${KEY}`] },
  { adapter: 'deepseek', base: () => llm.url, model: 'deepseek-reasoner', format: 'openai-chat', authHeader: ['authorization', `Bearer ${KEY}`] },
  { adapter: 'azure-openai', base: () => llm.url, model: 'my-deploy', format: 'azure', authHeader: ['api-key', KEY] },
  { adapter: 'openai-responses', base: () => `${llm.url}/v1`, model: 'gpt-5', format: 'openai-responses', authHeader: ['authorization', `Bearer ${KEY}`] },
  { adapter: 'anthropic', base: () => llm.url, model: 'claude-x', format: 'anthropic', authHeader: ['x-api-key', KEY] },
  { adapter: 'gemini', base: () => llm.url, model: 'gemini-2.5-flash', format: 'gemini', authHeader: ['x-goog-api-key', KEY] },
  { adapter: 'ollama', base: () => llm.url, model: 'llama3.2', format: 'ollama', authHeader: ['authorization', `Bearer ${KEY}`] },
];

function provider(c: Case): LuaAdaptedProvider {
  const adapter = new LuaAdapter({ name: c.adapter, source: registry.source(c.adapter)!, resolveSource: (n) => registry.source(n) });
  adapters.push(adapter);
  return new LuaAdaptedProvider({ source: { name: `src-${c.adapter}`, adapter: c.adapter, baseUrl: c.base(), model: c.model, apiKey: KEY, options: c.options }, adapter, timeoutMs: 5000 });
}

const tools = [{ name: 'memory_recall', description: 'recall', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } }];
const request: Omit<ChatRequest, 'model'> & { model: string } = {
  model: '',
  tools,
  messages: [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: 'Look at this', attachments: [{ mimeType: 'image/png', data: 'iVBORw0KGgo=' }] },
    { role: 'assistant', content: '', toolCalls: [{ id: 'call_a', name: 'memory_recall', arguments: '{"query":"cats"}' }] },
    { role: 'tool', content: 'cats are great', toolCallId: 'call_a', name: 'memory_recall' },
    { role: 'user', content: 'And now?' },
  ],
};
const args = { query: 'a fairly long query string to split', limit: 3 };

async function collect(it: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const p of it) out.push(p);
  return out;
}

for (const c of cases) {
  describe(`adapter ${c.adapter}`, () => {
    test('non-streaming: text, reasoning, tool call, usage; request mapped', async () => {
      const p = provider(c);
      llm.enqueue({ text: 'Hello there', reasoning: 'let me think', toolCalls: [{ id: 'call_1', name: 'memory_recall', arguments: args }], usage: { inputTokens: 11, outputTokens: 7 } });
      const n = llm.requests.length;
      const r = await p.chat(request);
      assert.equal(r.text, 'Hello there');
      assert.equal(r.reasoning, 'let me think');
      assert.equal(r.toolCalls.length, 1);
      assert.equal(r.toolCalls[0].name, 'memory_recall');
      assert.deepEqual(JSON.parse(r.toolCalls[0].arguments), args);
      assert.ok(r.toolCalls[0].id.length > 0);
      assert.equal(r.finishReason, 'tool-calls');
      assert.deepEqual(r.usage, { inputTokens: 11, outputTokens: 7 });
      const sent = llm.requests[n];
      assert.equal(sent.format, c.format);
      assert.equal(sent.headers[c.authHeader[0]], c.authHeader[1]);
      const body = JSON.stringify(sent.body);
      assert.ok(body.includes('You are helpful.'), 'system prompt sent');
      assert.ok(body.includes('cats are great'), 'tool result sent');
      assert.ok(body.includes('iVBORw0KGgo='), 'image sent');
      assert.ok(body.includes('"required":["query"]'), 'tool schema arrays survive');
      if (c.format === 'azure') assert.match(sent.path, /^\/openai\/deployments\/my-deploy\/chat\/completions\?api-version=/);
    });

    test('streaming: deltas in order, tool call assembled from split arguments, one finish', async () => {
      const p = provider(c);
      llm.enqueue({ text: 'Streaming words here', reasoning: 'thinking hard', toolCalls: [{ name: 'memory_recall', arguments: args }], usage: { inputTokens: 5, outputTokens: 9 } });
      const parts = await collect(p.chatStream(request));
      const text = parts.flatMap((x) => (x.type === 'text-delta' ? [x.text] : [])).join('');
      const reasoning = parts.flatMap((x) => (x.type === 'reasoning-delta' ? [x.text] : [])).join('');
      assert.equal(text, 'Streaming words here');
      assert.equal(reasoning, 'thinking hard');
      assert.ok(parts.filter((x) => x.type === 'text-delta').length > 1, 'several text deltas');
      const calls = parts.flatMap((x) => (x.type === 'tool-call' ? [x.toolCall] : []));
      assert.equal(calls.length, 1);
      assert.deepEqual(JSON.parse(calls[0].arguments), args);
      const finishes = parts.filter((x) => x.type === 'finish');
      assert.equal(finishes.length, 1);
      assert.equal(parts.at(-1)?.type, 'finish');
      const fin = finishes[0] as Extract<StreamPart, { type: 'finish' }>;
      assert.equal(fin.finishReason, 'tool-calls');
      assert.deepEqual(fin.usage, { inputTokens: 5, outputTokens: 9 });
    });

    test('streaming plain text ends with stop', async () => {
      const p = provider(c);
      llm.enqueue({ text: 'just text' });
      const parts = await collect(p.chatStream({ ...request, tools: undefined }));
      assert.equal(parts.flatMap((x) => (x.type === 'text-delta' ? [x.text] : [])).join(''), 'just text');
      const fin = parts.at(-1) as Extract<StreamPart, { type: 'finish' }>;
      assert.equal(fin.finishReason, 'stop');
    });
  });
}

test('every shipped adapter is covered', () => {
  assert.deepEqual(registry.names(), cases.map((c) => c.adapter).sort());
});
