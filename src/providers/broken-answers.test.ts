import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeLlm, type FakeLlm } from '../../test/fixtures/fake-llm/index.js';
import { ProviderError } from '../spec/index.js';
import type { ChatRequest, ConfigValue, StreamPart } from '../spec/index.js';
import { AdapterRegistry, BUILTIN_ADAPTERS_DIR, LuaAdaptedProvider, LuaAdapter, ProviderManager, providerConfigDefaults, sourceKey } from './index.js';

// A 200 whose body is not the wire format (a gateway's login page, garbage SSE, nothing, a JSON
// document of another API) is a provider error quoting the body, for every built-in adapter,
// streamed and not; a valid answer that says it is empty stays an empty answer.

interface Broken {
  label: string;
  contentType: string;
  body: string;
  /** What the error must quote. */
  quote: RegExp;
}
const BROKEN: Broken[] = [
  { label: 'an HTML page', contentType: 'text/html', body: '<html><body>Gateway login</body></html>', quote: /<html><body>Gateway login/ },
  { label: 'garbage SSE', contentType: 'text/event-stream', body: 'data: {not json\n\n', quote: /\{not json/ },
  { label: 'an empty body', contentType: 'text/event-stream', body: '', quote: /\(empty body\)/ },
  { label: 'JSON of another API', contentType: 'application/json', body: '{"foo":1}', quote: /\{"foo":1\}/ },
];

const ADAPTERS: { name: string; base: (url: string) => string }[] = [
  { name: 'openai', base: (u) => `${u}/v1` },
  { name: 'openai-compatible', base: (u) => `${u}/v1` },
  { name: 'openai-responses', base: (u) => `${u}/v1` },
  { name: 'anthropic', base: (u) => u },
  { name: 'gemini', base: (u) => u },
  { name: 'ollama', base: (u) => u },
];

const registry = new AdapterRegistry([BUILTIN_ADAPTERS_DIR]);
const adapters = new Map<string, LuaAdapter>();
let llm: FakeLlm;
let server: http.Server;
let brokenUrl = '';
let current: Broken = BROKEN[0];

before(async () => {
  llm = await startFakeLlm();
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': current.contentType }).end(current.body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  brokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  for (const a of adapters.values()) a.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await llm.close();
});

function provider(name: string, baseUrl: string): LuaAdaptedProvider {
  let a = adapters.get(name);
  if (!a) {
    a = new LuaAdapter({ name, source: registry.source(name)!, resolveSource: (n) => registry.source(n) });
    adapters.set(name, a);
  }
  return new LuaAdaptedProvider({ source: { name: 'src', adapter: name, baseUrl, model: 'm', apiKey: 'k' }, adapter: a, timeoutMs: 5000 });
}
const ask: ChatRequest = { model: '', messages: [{ role: 'user', content: 'hi' }] };

async function collect(p: LuaAdaptedProvider): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of p.chatStream(ask)) parts.push(part);
  return parts;
}

for (const a of ADAPTERS) {
  for (const b of BROKEN) {
    test(`${a.name}: ${b.label} answered with 200 is an error quoting the body (streamed and not)`, async () => {
      current = b;
      const p = provider(a.name, a.base(brokenUrl));
      const check = (e: unknown): boolean => {
        assert.ok(e instanceof ProviderError, String(e));
        assert.ok(e.kind === 'bad-response' || e.kind === 'adapter', e.kind);
        assert.match(e.message, b.quote);
        return true;
      };
      await assert.rejects(collect(p), check);
      await assert.rejects(p.chat(ask), check);
    });
  }

  test(`${a.name}: a valid empty completion is an empty answer, not an error`, async () => {
    llm.enqueue({ text: '' }, { text: '' });
    const p = provider(a.name, a.base(llm.url));
    const parts = await collect(p);
    assert.deepEqual(parts.map((x) => x.type), ['finish']);
    const r = await p.chat(ask);
    assert.equal(r.text, '');
    assert.equal(r.toolCalls.length, 0);
  });
}

/** Streams real servers send for an answer that is empty, which must stay answers (not bad-response). */
const EMPTY_BUT_VALID: { adapter: string; base: (u: string) => string; label: string; body: string; finish: string }[] = [
  {
    adapter: 'openai-compatible',
    base: (u) => `${u}/v1`,
    label: 'an empty reply with no finish_reason, ended by [DONE]',
    body: 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\ndata: [DONE]\n\n',
    finish: 'stop',
  },
  {
    adapter: 'gemini',
    base: (u) => u,
    label: 'a prompt blocked for safety (promptFeedback, no candidates)',
    body: 'data: {"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":5,"totalTokenCount":5}}\n\n',
    finish: 'content-filter',
  },
];
for (const v of EMPTY_BUT_VALID) {
  test(`${v.adapter}: ${v.label} is an empty answer with its finish, not an error`, async () => {
    current = { label: v.label, contentType: 'text/event-stream', body: v.body, quote: /./ };
    const parts = await collect(provider(v.adapter, v.base(brokenUrl)));
    assert.deepEqual(parts.map((x) => x.type), ['finish']);
    assert.equal((parts[0] as { finish_reason?: string; finishReason?: string }).finishReason ?? (parts[0] as { finish_reason?: string }).finish_reason, v.finish);
  });
}

test('a source answering a login page falls back to the next source, whose answer is the reply', async () => {
  current = BROKEN[0];
  const defaults = providerConfigDefaults();
  const values = new Map<string, ConfigValue>();
  for (const n of ['deepseek', 'openai', 'anthropic', 'gemini', 'qwen', 'zhipu', 'moonshot', 'ollama']) values.set(sourceKey(n, 'enabled'), false);
  values.set(sourceKey('deepseek', 'enabled'), true);
  values.set(sourceKey('deepseek', 'base_url'), brokenUrl);
  values.set(sourceKey('deepseek', 'api_key'), 'sk-a');
  values.set(sourceKey('openai', 'enabled'), true);
  values.set(sourceKey('openai', 'base_url'), `${llm.url}/v1`);
  values.set(sourceKey('openai', 'api_key'), 'sk-b');
  values.set('core.llm.order', ['deepseek', 'openai']);
  const config = {
    get: <T extends ConfigValue>(k: string): T => (values.has(k) ? values.get(k) : defaults[k].default) as T,
    onChange: () => () => {},
  };
  const manager = new ProviderManager({ config, adapterDirs: [BUILTIN_ADAPTERS_DIR], env: {}, probeOllama: false });
  await manager.start();
  try {
    llm.enqueue({ text: 'from openai' });
    const r = await manager.run({ messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.provider, 'openai');
    assert.equal(r.text, 'from openai');
    assert.match(manager.status().find((s) => s.name === 'deepseek')!.lastError ?? '', /Gateway login/);
  } finally {
    await manager.stop();
  }
});
