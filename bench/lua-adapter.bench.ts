/**
 * Cost of the Lua adapter layer per LLM request: `transform_request` (+ `headers`) and
 * `transform_response` of the OpenAI adapter on a typical agent request (system prompt, 12 turns
 * with a tool call, 6 tools), against a plain JS JSON round trip of the same request and
 * response in the same run (the baseline: what any provider pays to serialise). Also one
 * 40-chunk stream mapped chunk by chunk (every other iteration). Under 10 s.
 *
 * Run alone: `node --import tsx bench/lua-adapter.bench.ts` (or with the others: `npm run bench`).
 * Wall-clock percentiles: on a loaded machine p95 mostly measures scheduling stalls; compare p50s
 * of several runs.
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { AdapterRegistry, BUILTIN_ADAPTERS_DIR, LuaAdapter, type AdapterConfig } from '../src/providers/index.js';
import type { ChatRequest } from '../src/spec/index.js';
import { percentile as pct } from './stats.js';

interface Row {
  name: string;
  unit: string;
  p50: number;
  p95: number;
  n: number;
  baseline?: string;
}

function typicalRequest(): ChatRequest {
  const messages: ChatRequest['messages'] = [{ role: 'system', content: '你是一个乐于助人的个人助理。'.repeat(40) + ' Persona and memory index follow. '.repeat(60) }];
  for (let i = 0; i < 5; i++) {
    messages.push({ role: 'user', content: `Question ${i}: what did I say about the garden last week? `.repeat(4) });
    messages.push({ role: 'assistant', content: `Answer ${i}: you planted tomatoes and basil. `.repeat(6) });
  }
  messages.push({ role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'memory_recall', arguments: '{"query":"garden","depth":2}' }] });
  messages.push({ role: 'tool', toolCallId: 'call_1', name: 'memory_recall', content: 'garden → tomatoes (0.9); garden → basil (0.8); '.repeat(10) });
  const tools = Array.from({ length: 6 }, (_, i) => ({
    name: `tool_${i}`,
    description: `Tool number ${i} does something useful with memory.`,
    parameters: { type: 'object', properties: { query: { type: 'string', description: 'what to look for' }, limit: { type: 'integer', minimum: 1 } }, required: ['query'] },
  }));
  return { model: 'gpt-4o-mini', messages, tools, temperature: 0.7 };
}

function typicalResponse(): unknown {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'You planted tomatoes and basil last week, and mentioned the soil was dry. '.repeat(5), tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'tool_1', arguments: '{"query":"soil"}' } }] },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 1800, completion_tokens: 120, total_tokens: 1920 },
  };
}

export async function run(): Promise<Row[]> {
  const registry = new AdapterRegistry([BUILTIN_ADAPTERS_DIR]);
  const adapter = new LuaAdapter({ name: 'openai', source: registry.source('openai')!, resolveSource: (n) => registry.source(n), timeoutMs: 5000 });
  const cfg: AdapterConfig = { name: 'openai', base_url: 'https://api.openai.com/v1', model: 'gpt-4o-mini', api_key: 'sk-bench', options: {} };
  const req = typicalRequest();
  const resp = typicalResponse();
  const chunks = Array.from({ length: 40 }, (_, i) => ({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: `word${i} ` }, finish_reason: null }] }));
  try {
    await adapter.start();
    const lua: number[] = [];
    const js: number[] = [];
    const stream: number[] = [];
    const deadline = performance.now() + 7000;
    for (let i = 0; i < 300 && performance.now() < deadline; i++) {
      let t0 = performance.now();
      const built = await adapter.buildRequest(req, cfg, false);
      await adapter.parseResponse(resp, cfg);
      const t1 = performance.now();
      if (i >= 10) lua.push(t1 - t0); // warm-up excluded
      t0 = performance.now();
      // Baseline: serialising the request and parsing the response, as a hand-written JS provider would.
      const body = JSON.stringify({ model: req.model, messages: req.messages, tools: req.tools });
      JSON.parse(JSON.stringify(resp));
      if (body.length === 0 || built.body === undefined) throw new Error('unreachable');
      if (i >= 10) js.push(performance.now() - t0);
      if (i % 2 === 0) {
        t0 = performance.now();
        const id = adapter.openStream();
        for (const c of chunks) await adapter.streamChunk(id, c, undefined);
        await adapter.endStream(id);
        if (i >= 10) stream.push((performance.now() - t0) / chunks.length);
      }
    }
    return [
      { name: 'JS JSON round trip (baseline)', unit: 'ms/request', p50: pct(js, 50), p95: pct(js, 95), n: js.length },
      { name: 'Lua transform_request + transform_response', unit: 'ms/request', p50: pct(lua, 50), p95: pct(lua, 95), n: lua.length, baseline: 'JS JSON round trip (baseline)' },
      { name: 'Lua transform_stream_chunk', unit: 'ms/chunk', p50: pct(stream, 50), p95: pct(stream, 95), n: stream.length },
    ];
  } finally {
    adapter.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const rows = await run();
  for (const r of rows) console.log(`${r.name.padEnd(44)} p50 ${r.p50.toFixed(3)} p95 ${r.p95.toFixed(3)} ${r.unit} (n=${r.n})`);
  const base = rows[0].p50;
  console.log(`ratio p50 Lua/JS: ${(rows[1].p50 / base).toFixed(1)}×`);
}
