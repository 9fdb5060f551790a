import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeLlm, type FakeLlm } from '../../test/fixtures/fake-llm/index.js';
import { NoProviderError, ProviderError, ValidationError } from '../spec/index.js';
import type { ConfigValue, StreamPart } from '../spec/index.js';
import { BUILTIN_ADAPTERS_DIR, ProviderManager, providerConfigDefaults, sourceKey } from './index.js';

/** A tiny in-memory ConfigReader with the registry's semantics (get → value or default). */
class MemConfig {
  private readonly defaults = providerConfigDefaults();
  readonly values = new Map<string, ConfigValue>();
  private listeners: { fn: (k: string, v: ConfigValue) => void; prefix?: string }[] = [];
  get<T extends ConfigValue = ConfigValue>(key: string): T {
    if (this.values.has(key)) return this.values.get(key) as T;
    if (!(key in this.defaults)) throw new Error(`unknown key ${key}`);
    return this.defaults[key].default as T;
  }
  onChange(fn: (k: string, v: ConfigValue) => void, prefix?: string): () => void {
    const entry = { fn, prefix };
    this.listeners.push(entry);
    return () => (this.listeners = this.listeners.filter((l) => l !== entry));
  }
  async set(key: string, v: ConfigValue): Promise<void> {
    this.values.set(key, v);
    for (const l of this.listeners) if (!l.prefix || key.startsWith(l.prefix)) l.fn(key, v);
  }
}

const KEY_A = 'sk-deepseek-secret-AAAA1111';
const KEY_B = 'sk-openai-secret-BBBB2222';

interface Rig {
  llm: FakeLlm;
  config: MemConfig;
  manager: ProviderManager;
  clock: { t: number };
  logs: string[];
  userDir: string;
}

/** Two sources pointing at one fake server: deepseek (first) and openai (second). */
async function rig(t: TestContext, extra: { order?: string[]; probeOllama?: boolean } = {}): Promise<Rig> {
  const llm = await startFakeLlm();
  const config = new MemConfig();
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-adapters-'));
  const clock = { t: 1_000_000 };
  const logs: string[] = [];
  const log = { info: (m: string) => logs.push(`info ${m}`), warn: (m: string) => logs.push(`warn ${m}`), error: (m: string) => logs.push(`error ${m}`) };
  for (const n of ['deepseek', 'openai', 'anthropic', 'gemini', 'qwen', 'zhipu', 'moonshot', 'ollama']) config.values.set(sourceKey(n, 'enabled'), false);
  config.values.set(sourceKey('deepseek', 'enabled'), true);
  config.values.set(sourceKey('deepseek', 'base_url'), llm.url);
  config.values.set(sourceKey('deepseek', 'api_key'), KEY_A);
  config.values.set(sourceKey('openai', 'enabled'), true);
  config.values.set(sourceKey('openai', 'base_url'), `${llm.url}/v1`);
  config.values.set(sourceKey('openai', 'api_key'), KEY_B);
  config.values.set('core.llm.order', extra.order ?? ['deepseek', 'openai']);
  config.values.set('core.llm.timeout_ms', 5000);
  const manager = new ProviderManager({ config, adapterDirs: [BUILTIN_ADAPTERS_DIR, userDir], log, now: () => clock.t, env: {}, probeOllama: extra.probeOllama ?? false, adapterTimeoutMs: 1000 });
  await manager.start();
  t.after(async () => {
    await manager.stop();
    await llm.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  });
  return { llm, config, manager, clock, logs, userDir };
}

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };
const statusOf = (m: ProviderManager, name: string) => m.status().find((s) => s.name === name)!;

test('no source configured → NO_PROVIDER_CONFIGURED with set-up instructions', async () => {
  const config = new MemConfig();
  const m = new ProviderManager({ config, adapterDirs: [BUILTIN_ADAPTERS_DIR], env: {}, probeOllama: false });
  await m.start();
  assert.equal(m.available(), false);
  await assert.rejects(m.run(ask), (e: unknown) => {
    assert.ok(e instanceof NoProviderError);
    assert.equal(e.code, 'NO_PROVIDER_CONFIGURED');
    for (const s of ['DEEPSEEK_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'Ollama', 'waiter config set core.llm.sources.', 'WebUI']) assert.ok(e.message.includes(s), s);
    return true;
  });
  assert.ok(m.status().every((s) => s.state === 'unconfigured'));
  assert.equal(m.status().length, 8);
  await m.stop();
  await m.stop();
});

test('API keys come from env when config has none', async () => {
  const m = new ProviderManager({ config: new MemConfig(), adapterDirs: [BUILTIN_ADAPTERS_DIR], env: { ANTHROPIC_API_KEY: 'x-key-123456' }, probeOllama: false });
  assert.equal(m.available(), true);
  assert.equal(statusOf(m, 'anthropic').state, 'ready');
  assert.equal(statusOf(m, 'openai').state, 'unconfigured');
});

for (const status of [401, 403]) {
  test(`${status} disables a source until its config changes; the next source answers`, async (t) => {
    const { llm, manager, config } = await rig(t);
    llm.enqueue({ status }, { text: 'from openai' });
    const r = await manager.run(ask);
    assert.equal(r.provider, 'openai');
    assert.equal(r.text, 'from openai');
    assert.equal(statusOf(manager, 'deepseek').state, 'disabled-auth');
    const n = llm.requests.length;
    llm.enqueue({ text: 'again openai' });
    assert.equal((await manager.run(ask)).provider, 'openai');
    assert.equal(llm.requests.length, n + 1, 'deepseek was skipped');
    assert.equal(llm.requests[n].path, '/v1/chat/completions');
    await config.set(sourceKey('deepseek', 'api_key'), 'sk-a-new-key-999999');
    assert.equal(statusOf(manager, 'deepseek').state, 'ready');
    llm.enqueue({ text: 'deepseek back' });
    assert.equal((await manager.run(ask)).provider, 'deepseek');
  });
}

test('500s count; after the threshold the source cools down until the clock passes', async (t) => {
  const { llm, manager, clock, config } = await rig(t);
  config.values.set('core.llm.failure_threshold', 2);
  config.values.set('core.llm.cooldown_ms', 10_000);
  llm.enqueue({ status: 500 }, { text: 'o1' }, { status: 502 }, { text: 'o2' });
  assert.equal((await manager.run(ask)).provider, 'openai');
  assert.equal(statusOf(manager, 'deepseek').consecutiveFailures, 1);
  assert.equal(statusOf(manager, 'deepseek').state, 'ready');
  assert.equal((await manager.run(ask)).provider, 'openai');
  assert.equal(statusOf(manager, 'deepseek').state, 'cooling-down');
  llm.enqueue({ text: 'o3' });
  const n = llm.requests.length;
  assert.equal((await manager.run(ask)).provider, 'openai');
  assert.equal(llm.requests.length, n + 1, 'cooling source skipped');
  clock.t += 10_001;
  llm.enqueue({ text: 'deepseek again' });
  const r = await manager.run(ask);
  assert.equal(r.provider, 'deepseek');
  assert.equal(statusOf(manager, 'deepseek').consecutiveFailures, 0);
});

test('a refusal of one request (400, 413, 422) falls back but does not count towards the cooldown', async (t) => {
  const { llm, manager, config } = await rig(t);
  config.values.set('core.llm.failure_threshold', 2);
  for (const status of [400, 422, 413, 400]) {
    llm.enqueue({ status }, { text: 'from openai' });
    assert.equal((await manager.run(ask)).provider, 'openai', `after a ${status}`);
    assert.equal(statusOf(manager, 'deepseek').state, 'ready', `a ${status} is the request's, not the source's`);
    assert.equal(statusOf(manager, 'deepseek').consecutiveFailures, 0);
  }
  llm.enqueue({ text: 'deepseek answers' });
  assert.equal((await manager.run(ask)).provider, 'deepseek');
});

test('a hanging source times out and falls back', async (t) => {
  const { llm, manager, config } = await rig(t);
  // The limit covers each source, so the fallback must answer within it too: 2 s keeps this
  // deterministic on a loaded machine (the hanging source never answers at all).
  config.values.set('core.llm.timeout_ms', 2_000);
  llm.enqueue({ hang: true }, { text: 'rescued' });
  const r = await manager.run(ask);
  assert.equal(r.provider, 'openai');
  assert.match(statusOf(manager, 'deepseek').lastError ?? '', /no complete answer within 2000 ms/);
});

test('a stream that stalls between chunks hits the idle timeout', async (t) => {
  const { llm, manager, config } = await rig(t);
  config.values.set('core.llm.idle_timeout_ms', 150);
  // Gemini's first SSE chunk already carries text, so a part is out before the stall.
  await config.set(sourceKey('deepseek', 'adapter'), 'gemini');
  llm.enqueue({ text: 'slow slow slow', chunkDelayMs: 400 });
  const parts: StreamPart[] = [];
  await assert.rejects(manager.run(ask, { onPart: (p) => parts.push(p) }), (e: unknown) => e instanceof ProviderError && e.kind === 'timeout' && /stalled/.test(e.message));
  assert.ok(parts.some((p) => p.type === 'text-delta'), 'part of the stream arrived');
  assert.equal(parts.at(-1)?.type, 'error', 'the failure reached onPart as an error part');
});

test('all sources failing → ALL_PROVIDERS_FAILED listing each attempt', async (t) => {
  const { llm, manager } = await rig(t);
  llm.enqueue({ status: 500 }, { status: 503 });
  await assert.rejects(manager.run(ask), (e: unknown) => {
    assert.ok(e instanceof NoProviderError);
    assert.equal(e.code, 'ALL_PROVIDERS_FAILED');
    const attempts = e.details.attempts as { provider: string; error: string }[];
    assert.deepEqual(attempts.map((a) => a.provider), ['deepseek', 'openai']);
    assert.match(attempts[1].error, /HTTP 503/);
    return true;
  });
});

test('abort mid-stream cuts it short with kind aborted and no fallback', async (t) => {
  const { llm, manager } = await rig(t);
  llm.enqueue({ text: 'a long streamed answer that goes on and on', chunkDelayMs: 30 });
  const ac = new AbortController();
  const parts: StreamPart[] = [];
  await assert.rejects(
    manager.run(ask, {
      signal: ac.signal,
      onPart: (p) => {
        parts.push(p);
        if (parts.length === 2) ac.abort();
      },
    }),
    (e: unknown) => e instanceof ProviderError && e.kind === 'aborted' && e.code === 'PROVIDER_ABORTED',
  );
  assert.ok(parts.length >= 2 && parts.length < 8, `got ${parts.length} parts`);
  assert.ok(!parts.some((p) => p.type === 'finish'));
  assert.equal(llm.requests.length, 1, 'no fallback after abort');
  assert.equal(statusOf(manager, 'deepseek').consecutiveFailures, 0, 'an abort is not a failure');
});

test('an already-aborted signal fails at once', async (t) => {
  const { manager } = await rig(t);
  await assert.rejects(manager.run(ask, { signal: AbortSignal.abort() }), (e: unknown) => e instanceof ProviderError && e.kind === 'aborted');
});

test('broken Lua adapters (error, endless loop, garbage) give clear errors; the manager keeps working', async (t) => {
  const { llm, manager, config, userDir } = await rig(t);
  fs.writeFileSync(path.join(userDir, 'broken.lua'), 'function transform_request(req, cfg)\n  error("cannot build")\nend\nfunction transform_response(b) return {} end\n');
  fs.writeFileSync(path.join(userDir, 'loop.lua'), 'function transform_request(req, cfg) while true do end end\nfunction transform_response(b) return {} end\n');
  fs.writeFileSync(path.join(userDir, 'garbage.lua'), 'function transform_request(req, cfg) return 42 end\nfunction transform_response(b) return {} end\n');
  fs.writeFileSync(path.join(userDir, 'nofn.lua'), 'x = 1\n');
  fs.writeFileSync(path.join(userDir, 'syntax.lua'), 'function (\n');
  const cases: [string, RegExp][] = [
    ['broken', /adapter broken\.lua failed.*broken\.lua:2: cannot build/],
    ['loop', /adapter loop\.lua failed \(LUA_TIMEOUT\)/],
    ['garbage', /transform_request returned 42; expected a table/],
    ['nofn', /does not define transform_request/],
    ['syntax', /adapter syntax\.lua failed \(LUA_LOAD\)/],
    ['missing-adapter', /no Lua adapter named "missing-adapter"/],
  ];
  for (const [adapter, re] of cases) {
    await config.set(sourceKey('deepseek', 'adapter'), adapter);
    llm.enqueue({ text: `rescued from ${adapter}` });
    const r = await manager.run(ask);
    assert.equal(r.provider, 'openai');
    assert.equal(r.text, `rescued from ${adapter}`);
    assert.match(statusOf(manager, 'deepseek').lastError ?? '', re);
  }
  await config.set(sourceKey('deepseek', 'adapter'), 'deepseek');
  llm.enqueue({ text: 'healthy again' });
  assert.equal((await manager.run(ask)).provider, 'deepseek');
});

test('a user-dropped adapter file is picked up without a restart', async (t) => {
  const { llm, manager, config, userDir } = await rig(t);
  assert.ok(!manager.adapters().includes('my-api'));
  fs.writeFileSync(
    path.join(userDir, 'my-api.lua'),
    `local base = import_adapter("openai-compatible")
     function transform_request(req, cfg)
       local r = base.transform_request(req, cfg)
       r.body.user = "custom"
       log("info", "my-api built a request")
       return r
     end
     headers = base.headers
     transform_response = function(b) local r = base.transform_response(b) r.text = "[my-api] " .. r.text return r end`,
  );
  assert.ok(manager.adapters().includes('my-api'));
  await config.set(sourceKey('deepseek', 'adapter'), 'my-api');
  llm.enqueue({ text: 'hello' });
  const parts: StreamPart[] = [];
  const r = await manager.run(ask, { onPart: (p) => parts.push(p) });
  assert.equal(r.provider, 'deepseek');
  assert.equal(r.text, '[my-api] hello', 'no stream function: falls back to one complete answer');
  assert.equal(llm.requests.at(-1)!.body.user, 'custom');
  assert.equal(parts.at(-1)?.type, 'finish');
});

test('secrets never appear in error messages or logs', async (t) => {
  const { llm, manager, config, userDir, logs } = await rig(t);
  fs.writeFileSync(
    path.join(userDir, 'leaky.lua'),
    `function transform_request(req, cfg) log("warn", "my key is " .. cfg.api_key) error("failed with key " .. cfg.api_key) end
     function transform_response(b) return {} end`,
  );
  await config.set(sourceKey('deepseek', 'adapter'), 'leaky');
  llm.enqueue({ status: 401, errorBody: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY_B}` } }) });
  let err: unknown;
  try {
    await manager.run(ask);
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof NoProviderError);
  const everything = [JSON.stringify((err as NoProviderError).toJSON()), (err as Error).message, ...logs, ...manager.status().map((s) => JSON.stringify(s))].join('\n');
  assert.ok(everything.includes('failed with key ***'), 'the adapter error is reported, redacted');
  assert.ok(everything.includes('Incorrect API key provided: ***'));
  assert.ok(!everything.includes(KEY_A) && !everything.includes(KEY_B), 'no secret leaked');
  llm.enqueue({ status: 401, errorBody: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY_B}` } }) });
  const test = await manager.testSource('openai');
  assert.equal(test.ok, false);
  assert.ok(!(test.error ?? '').includes(KEY_B));
});

test('non-streaming run reports parts and the aggregate; reasoning and tool calls carried', async (t) => {
  const { llm, manager } = await rig(t);
  llm.enqueue({ text: 'answer', reasoning: 'why', toolCalls: [{ name: 'memory_recall', arguments: { q: 1 } }] });
  const parts: [StreamPart, string][] = [];
  const r = await manager.run(ask, { stream: false, onPart: (p, prov) => parts.push([p, prov]) });
  assert.equal(r.text, 'answer');
  assert.equal(r.reasoning, 'why');
  assert.equal(r.toolCalls[0].name, 'memory_recall');
  assert.equal(r.model, 'deepseek-chat');
  assert.ok(r.latencyMs >= 0);
  assert.deepEqual(parts.map(([p]) => p.type), ['reasoning-delta', 'text-delta', 'tool-call', 'finish']);
  assert.ok(parts.every(([, prov]) => prov === 'deepseek'));
});

test('order: setOrder persists, unknown names are rejected, omitted sources follow', async (t) => {
  const { llm, manager, config } = await rig(t);
  await manager.setOrder(['openai', 'deepseek']);
  assert.deepEqual(config.values.get('core.llm.order'), ['openai', 'deepseek']);
  assert.deepEqual(manager.order().slice(0, 3), ['openai', 'deepseek', 'anthropic']);
  assert.equal(manager.order().length, 8);
  llm.enqueue({ text: 'x' });
  assert.equal((await manager.run(ask)).provider, 'openai');
  await assert.rejects(manager.setOrder(['openai', 'nope']), ValidationError);
});

test('a local Ollama is detected by probing /api/tags and used', async (t) => {
  const { llm, manager, config } = await rig(t, { order: ['ollama', 'deepseek'] });
  await config.set(sourceKey('ollama', 'base_url'), llm.url.replace('http://', ''));
  await config.set(sourceKey('ollama', 'enabled'), true);
  const m2 = new ProviderManager({ config, adapterDirs: [BUILTIN_ADAPTERS_DIR], env: {}, probeOllama: true });
  await m2.start();
  t.after(() => m2.stop());
  assert.equal(statusOf(m2, 'ollama').configured, true);
  llm.enqueue({ text: 'local answer' });
  const r = await m2.run(ask);
  assert.equal(r.provider, 'ollama');
  assert.equal(llm.requests.at(-1)!.format, 'ollama');
  assert.equal(statusOf(manager, 'ollama').configured, false, 'the other manager did not probe');
});

test('testSource reports success and latency', async (t) => {
  const { manager } = await rig(t);
  const r = await manager.testSource('openai');
  assert.equal(r.ok, true);
  await assert.rejects(manager.testSource('nope'), /LLM source not found: nope/);
});

test('a hosted source without a key: test and model list say so (PROVIDER_NO_KEY) without a request; Ollama is still asked', async (t) => {
  const { llm, config } = await rig(t);
  // openai at its own address (here the env's OPENAI_BASE_URL, pointing at the fake server to see requests).
  await config.set(sourceKey('openai', 'base_url'), '');
  await config.set(sourceKey('openai', 'api_key'), '');
  const manager = new ProviderManager({ config, adapterDirs: [BUILTIN_ADAPTERS_DIR], env: { OPENAI_BASE_URL: `${llm.url}/v1` }, probeOllama: false, adapterTimeoutMs: 1000 });
  await manager.start();
  t.after(() => manager.stop());
  const before = llm.requests.length;
  const r = await manager.testSource('openai');
  assert.equal(r.ok, false);
  assert.equal(r.code, 'PROVIDER_NO_KEY');
  assert.equal(r.error, 'openai has no API key: add one in the WebUI (Settings → LLM providers) or with `waiter providers update openai --key-stdin`');
  await assert.rejects(manager.listModels('openai'), (e: unknown) => (e as { code?: string }).code === 'PROVIDER_NO_KEY' && /^openai has no API key: add one in the WebUI \(Settings → LLM providers\) or with `waiter providers update openai --key-stdin`/.test((e as Error).message));
  assert.equal(llm.requests.length, before, 'the fake server behind openai received no request');

  // Ollama needs no key: its model list is asked for as before.
  await config.set(sourceKey('ollama', 'base_url'), llm.url);
  llm.setModels(['llama3.2']);
  assert.deepEqual((await manager.listModels('ollama')).models, ['llama3.2']);
  // With a key the source is asked again.
  await config.set(sourceKey('openai', 'api_key'), KEY_B);
  assert.equal((await manager.testSource('openai')).ok, true);
  // A base URL the person set may be a keyless server of their own (LM Studio, vLLM): asked without a key.
  await config.set(sourceKey('openai', 'api_key'), '');
  await config.set(sourceKey('openai', 'base_url'), `${llm.url}/v1`);
  const own = new ProviderManager({ config, adapterDirs: [BUILTIN_ADAPTERS_DIR], env: {}, probeOllama: false, adapterTimeoutMs: 1000 });
  await own.start();
  t.after(() => own.stop());
  const asked = llm.requests.length;
  await own.testSource('openai');
  assert.ok(llm.requests.length > asked, 'asked');
});

test('a request too large for the adapter VM (LUA_MEMORY) fails without cooling the source down', async (t) => {
  const { manager, llm } = await rig(t, { order: ['deepseek'] });
  const huge = 'x'.repeat(40 * 1024 * 1024);
  for (let i = 0; i < 3; i++) {
    await assert.rejects(manager.run({ messages: [{ role: 'user', content: huge }] }), (e: unknown) => e instanceof NoProviderError && /LUA_MEMORY.*too large/s.test(e.message));
  }
  const st = manager.status().find((s) => s.name === 'deepseek')!;
  assert.equal(st.state, 'ready');
  assert.equal(st.consecutiveFailures, 0);
  llm.enqueue({ text: 'small is fine' });
  assert.equal((await manager.run({ messages: [{ role: 'user', content: 'hi' }] })).text, 'small is fine');
});
