import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeLlm, type FakeLlm } from '../../test/fixtures/fake-llm/index.js';
import { ProviderError } from '../spec/index.js';
import type { ChatRequest, StreamPart } from '../spec/index.js';
import { AdapterRegistry, BUILTIN_ADAPTERS_DIR, LuaAdaptedProvider, LuaAdapter, errorMessageOf } from './index.js';

const registry = new AdapterRegistry([BUILTIN_ADAPTERS_DIR]);
let llm: FakeLlm;
const adapters = new Map<string, LuaAdapter>();
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  for (const a of adapters.values()) a.close();
  await llm.close();
});

function adapter(name: string): LuaAdapter {
  let a = adapters.get(name);
  if (!a) {
    a = new LuaAdapter({ name, source: registry.source(name)!, resolveSource: (n) => registry.source(n) });
    adapters.set(name, a);
  }
  return a;
}
function provider(name: string, baseUrl: string, extra: { timeoutMs?: number } = {}): LuaAdaptedProvider {
  return new LuaAdaptedProvider({ source: { name: 'src', adapter: name, baseUrl, model: 'm', apiKey: 'sk-provider-test-key' }, adapter: adapter(name), ...extra });
}
const ask: ChatRequest = { model: '', messages: [{ role: 'user', content: 'hi' }] };

test('HTTP errors carry status, kind and the vendor message', async () => {
  llm.enqueue({ status: 429 });
  await assert.rejects(provider('openai', `${llm.url}/v1`).chat(ask), (e: unknown) => {
    assert.ok(e instanceof ProviderError);
    assert.equal(e.kind, 'http');
    assert.equal(e.status, 429);
    assert.equal(e.retryable, true);
    assert.match(e.message, /HTTP 429: Rate limit reached/);
    return true;
  });
  llm.enqueue({ status: 401 });
  await assert.rejects(provider('anthropic', llm.url).chatStream(ask)[Symbol.asyncIterator]().next(), (e: unknown) => e instanceof ProviderError && e.kind === 'auth' && e.code === 'PROVIDER_AUTH');
});

test('a 200 that is not JSON is a bad-response; a refused connection is a network error', async () => {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy login</html>'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await assert.rejects(provider('openai', url).chat(ask), (e: unknown) => e instanceof ProviderError && e.kind === 'bad-response' && /not JSON: <html>/.test(e.message));
  await new Promise<void>((r) => server.close(() => r()));
  await assert.rejects(provider('openai', url).chat(ask), (e: unknown) => e instanceof ProviderError && e.kind === 'network');
});

test('a vendor body the adapter cannot map is an adapter error naming the script', async () => {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"unexpected":true}'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await assert.rejects(provider('openai', url).chat(ask), (e: unknown) => e instanceof ProviderError && e.kind === 'adapter' && /openai-compatible\.lua:\d+: response has no choices/.test(e.message));
  await new Promise<void>((r) => server.close(() => r()));
});

test('chat honours an abort while waiting for headers', async () => {
  llm.enqueue({ hang: true });
  const ac = new AbortController();
  const p = provider('ollama', llm.url).chat(ask, ac.signal);
  setTimeout(() => ac.abort(), 30);
  await assert.rejects(p, (e: unknown) => e instanceof ProviderError && e.kind === 'aborted');
});

test('a consumer that stops early releases the request; the adapter keeps working', async () => {
  llm.enqueue({ text: 'many words in this streamed reply', chunkDelayMs: 10 }, { text: 'second' });
  const p = provider('anthropic', llm.url);
  for await (const part of p.chatStream(ask)) if (part.type === 'text-delta') break;
  const parts: StreamPart[] = [];
  for await (const part of p.chatStream(ask)) parts.push(part);
  assert.equal(parts.flatMap((x) => (x.type === 'text-delta' ? [x.text] : [])).join(''), 'second');
});

test('anthropic: system lifted out, roles alternate, consecutive tool results merged', async () => {
  llm.enqueue({ text: 'ok' });
  await provider('anthropic', llm.url).chat({
    model: '',
    messages: [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'calling', toolCalls: [{ id: 't1', name: 'a', arguments: '{}' }, { id: 't2', name: 'b', arguments: '{"x":1}' }] },
      { role: 'tool', toolCallId: 't1', content: 'r1' },
      { role: 'tool', toolCallId: 't2', content: 'r2' },
    ],
  });
  const body = llm.requests.at(-1)!.body;
  assert.equal(body.system, 'sys');
  assert.deepEqual(body.messages.map((m: { role: string }) => m.role), ['user', 'assistant', 'user']);
  assert.deepEqual(body.messages[1].content[1], { type: 'tool_use', id: 't1', name: 'a', input: {} });
  assert.deepEqual(body.messages[2].content.map((b: { tool_use_id: string }) => b.tool_use_id), ['t1', 't2']);
  assert.equal(body.max_tokens, 4096);
});

test('gemini: tool results are functionResponses named after their call; schemas cleaned', async () => {
  llm.enqueue({ text: 'ok' });
  await provider('gemini', llm.url).chat({
    model: 'gemini-x',
    tools: [{ name: 'f', description: 'd', parameters: { $schema: 'x', type: 'object', additionalProperties: false, properties: {} } }],
    messages: [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c9', name: 'lookup', arguments: '{"k":"v"}' }] },
      { role: 'tool', toolCallId: 'c9', content: 'found' },
    ],
  });
  const last = llm.requests.at(-1)!;
  assert.equal(last.path, '/v1beta/models/gemini-x:generateContent');
  assert.deepEqual(last.body.contents[2], { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { content: 'found' } } }] });
  assert.deepEqual(last.body.tools[0].functionDeclarations[0].parameters, { type: 'object', properties: {} });
});

test('errorMessageOf understands the vendor error shapes', () => {
  assert.equal(errorMessageOf('{"error":{"message":"m1"}}'), 'm1');
  assert.equal(errorMessageOf('{"type":"error","error":{"type":"x","message":"m2"}}'), 'm2');
  assert.equal(errorMessageOf('{"error":"m3"}'), 'm3');
  assert.equal(errorMessageOf('plain text'), 'plain text');
});

/**
 * A loopback server that closes a kept-alive socket the moment a second request arrives on it —
 * what Node's http server, uvicorn or llama.cpp do when their idle keep-alive timer fires as the
 * client reuses the socket. `partial`: answer the first request of each socket with headers and
 * half a stream, then drop the connection.
 */
async function closingServer(mode: 'close-idle' | 'partial' | 'late-reset'): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const served = new WeakMap<object, number>();
  const server = http.createServer((req, res) => {
    requests++;
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    req.resume();
    req.on('end', () => {
      if (mode === 'close-idle' && n > 1) return void req.socket.destroy();
      // The server took the request, worked on it for a while, then the connection broke.
      if (mode === 'late-reset') return void setTimeout(() => req.socket.destroy(), 1300);
      if (mode === 'partial') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"choices":[{"index":0,"delta":{"content":"half"}}]}\n\n');
        setTimeout(() => req.socket.destroy(), 20);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: `answer ${requests}` }, finish_reason: 'stop' }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

test('a kept-alive socket the server closed as it was reused: the call is sent again on a fresh connection', async () => {
  const s = await closingServer('close-idle');
  try {
    const p = provider('openai-compatible', s.url);
    assert.equal((await p.chat(ask)).text, 'answer 1');
    await new Promise((r) => setTimeout(r, 100)); // a tool runs between the two calls of a turn
    assert.equal((await p.chat(ask)).text, 'answer 3');
    assert.equal(s.requests(), 3);
  } finally {
    await s.close();
  }
});

test('a connection that breaks after the answer began is not sent again', async () => {
  const s = await closingServer('partial');
  try {
    const parts: StreamPart[] = [];
    for await (const part of provider('openai-compatible', s.url).chatStream(ask)) parts.push(part);
    assert.deepEqual(parts.map((x) => x.type), ['text-delta', 'error']);
    assert.equal(s.requests(), 1);
  } finally {
    await s.close();
  }
});

test('a connection that breaks while the server works on the request (later than the keep-alive race) is not sent again: no second generation', async () => {
  const s = await closingServer('late-reset');
  try {
    await assert.rejects(provider('openai-compatible', s.url).chat(ask), (e: unknown) => e instanceof ProviderError && e.kind === 'network');
    assert.equal(s.requests(), 1);
  } finally {
    await s.close();
  }
});
