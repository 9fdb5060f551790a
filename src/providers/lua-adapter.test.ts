import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { LuaAdapter, type AdapterConfig } from './index.js';
import { LuaScriptError } from '../spec/index.js';

const adapters: LuaAdapter[] = [];
function make(source: string): LuaAdapter {
  const a = new LuaAdapter({ name: 'probe', source });
  adapters.push(a);
  return a;
}
after(() => adapters.forEach((a) => a.close()));

const cfg: AdapterConfig = { name: 'probe', base_url: 'https://llm.example/v1', model: 'm', api_key: 'k', options: {} };
const REQ = { model: 'gpt-x', messages: [{ role: 'user' as const, content: '你好' }], tools: [{ name: 't', description: 'd', parameters: { type: 'object', properties: {}, required: [] } }] };

test('buildRequest: headers(cfg, req) sees the request; schemas keep empty {} and [] through the body', async () => {
  const a = make(`
    function transform_request(req, cfg)
      return { url = cfg.base_url .. "/chat", body = { model = req.model, messages = req.messages, tools = req.tools, stream = req.stream } }
    end
    function headers(cfg, req) return { ["x-model"] = req.model .. ":" .. #req.messages, authorization = "Bearer " .. cfg.api_key } end
    function transform_response(b) return { text = b.t } end`);
  const r = await a.buildRequest(REQ, cfg, true);
  assert.equal(r.url, 'https://llm.example/v1/chat');
  assert.equal(r.method, 'POST');
  assert.deepEqual(r.headers, { 'x-model': 'gpt-x:1', authorization: 'Bearer k' });
  assert.deepEqual(JSON.parse(r.body ?? ''), {
    model: 'gpt-x',
    stream: true,
    messages: [{ role: 'user', content: '你好' }],
    tools: [{ name: 't', description: 'd', parameters: { type: 'object', properties: {}, required: [] } }],
  });
});

test('buildRequest without headers(); transform_request returning nil is a bad-return error', async () => {
  const ok = make(`function transform_request() return { url = "https://x.example/a", body = "raw" } end function transform_response() return {} end`);
  const r = await ok.buildRequest(REQ, cfg, false);
  assert.deepEqual(r.headers, {});
  assert.equal(r.body, 'raw');
  const bad = make(`function transform_request() return nil end function transform_response() return {} end`);
  await assert.rejects(bad.buildRequest(REQ, cfg, false), (e: unknown) => e instanceof LuaScriptError && /transform_request returned null/.test(e.message));
});

test('streamChunk: text/reasoning deltas, an empty table, other parts and an invalid part', async () => {
  const a = make(`
    function transform_request() return { url = "https://x.example/a" } end
    function transform_response() return {} end
    function transform_stream_chunk(c, state)
      state.n = (state.n or 0) + 1
      if c == "empty" then return {} end
      if c == "bad" then return { { type = "text-delta", text = 5 } } end
      if c == "call" then return { { type = "tool-call", id = "c1", name = "f", arguments = { a = 1 } } } end
      return { { type = "reasoning-delta", text = "r" .. state.n }, { type = "text-delta", text = c } }
    end`);
  await a.start();
  const id = a.openStream();
  assert.deepEqual(await a.streamChunk(id, 'hi', undefined), [
    { type: 'reasoning-delta', text: 'r1' },
    { type: 'text-delta', text: 'hi' },
  ]);
  assert.deepEqual(await a.streamChunk(id, 'empty', undefined), []);
  assert.deepEqual(await a.streamChunk(id, 'call', undefined), [{ type: 'tool-call', toolCall: { id: 'c1', name: 'f', arguments: '{"a":1}' } }]);
  await assert.rejects(a.streamChunk(id, 'bad', undefined), (e: unknown) => e instanceof LuaScriptError && e.code === 'LUA_BAD_RETURN');
  assert.deepEqual(await a.endStream(id), []);
});
