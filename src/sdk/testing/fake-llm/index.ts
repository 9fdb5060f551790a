/**
 * A scripted fake LLM server speaking the real wire formats over loopback HTTP (SSE / NDJSON
 * streaming and plain JSON), for every test that needs LLM behaviour.
 *
 * @example
 * const llm = await startFakeLlm();
 * llm.enqueue({ text: 'hello', toolCalls: [{ name: 'memory_recall', arguments: { q: 'x' } }] });
 * // point an adapter's base_url at llm.url (…/v1 for OpenAI-style APIs)
 * await llm.close();
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FakeAudio, FakeLlm, FakeReply, PlannedReply, RecordedRequest, WireFormat } from './types.js';
import {
  anthropicJson,
  anthropicStream,
  errorBody,
  geminiJson,
  geminiStream,
  ollamaJson,
  ollamaStream,
  openaiChatJson,
  openaiChatStream,
  responsesJson,
  responsesStream,
} from './wire-formats.js';

export type { FakeAudio, FakeLlm, FakeReply, RecordedRequest, WireFormat } from './types.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Deterministic hashed bag-of-words vector of dimension 8 (unit length). */
export function hashEmbedding(text: string, dim = 8): number[] {
  const v = new Array<number>(dim).fill(0);
  const tokens = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const t of tokens.flatMap((w) => (/\p{Script=Han}/u.test(w) ? [...w] : [w]))) {
    let h = 2166136261;
    for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619) >>> 0;
    v[h % dim] += (h >>> 16) & 1 ? 1 : -1;
  }
  const norm = Math.hypot(...v);
  if (norm === 0) return v.map((_, i) => (i === 0 ? 1 : 0));
  return v.map((x) => x / norm);
}

function route(method: string, path: string): { format: WireFormat; model?: string; stream?: boolean } | undefined {
  if (method === 'GET') return undefined;
  if (path === '/v1/chat/completions' || path === '/chat/completions') return { format: 'openai-chat' };
  if (/^\/openai\/deployments\/[^/]+\/chat\/completions$/.test(path)) return { format: 'azure' };
  if (path === '/v1/responses' || path === '/responses') return { format: 'openai-responses' };
  if (path === '/v1/messages' || path === '/messages') return { format: 'anthropic' };
  const g = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
  if (g) return { format: 'gemini', model: decodeURIComponent(g[1]), stream: g[2] === 'streamGenerateContent' };
  if (path === '/api/chat') return { format: 'ollama' };
  if (path === '/v1/embeddings' || path === '/embeddings') return { format: 'embeddings' };
  if (path === '/api/embed') return { format: 'ollama-embed' };
  return undefined;
}

function plan(reply: FakeReply, model: string, counter: { n: number }): PlannedReply {
  const toolCalls = (reply.toolCalls ?? []).map((c) => ({
    id: c.id ?? `call_${++counter.n}`,
    name: c.name,
    args: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
  }));
  const text = reply.text ?? (toolCalls.length || reply.reasoning ? '' : 'ok');
  return {
    text,
    reasoning: reply.reasoning ?? '',
    toolCalls,
    usage: reply.usage ?? { inputTokens: 10, outputTokens: Math.max(1, Math.ceil(text.length / 4)) },
    model: model || 'fake-model',
  };
}

/** Starts the fake server on 127.0.0.1 with an ephemeral port. */
export async function startFakeLlm(): Promise<FakeLlm> {
  const queue: FakeReply[] = [];
  let responder: (req: RecordedRequest) => FakeReply = () => ({ text: 'ok' });
  let embed: (text: string) => number[] = (t) => hashEmbedding(t);
  let models: string[] | undefined;
  let transcribe: (a: FakeAudio) => string | { status: number } = (a) => `transcript of ${a.name} (${a.bytes.length} bytes)`;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const counter = { n: 0 };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://x');
    const bytes = await new Promise<Buffer>((resolve, reject) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => resolve(Buffer.concat(parts)));
      req.on('error', reject);
    });
    const raw = bytes.toString('utf8');
    const sendJson = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'GET' && url.pathname === '/api/tags') {
      requests.push({ path: url.pathname + url.search, method: 'GET', headers: headersOf(req), body: undefined, format: 'models' });
      sendJson(200, { models: (models ?? ['llama3.2']).map((name) => ({ name, model: name })) });
      return;
    }
    if (req.method === 'GET' && (url.pathname === '/v1/models' || url.pathname === '/models' || url.pathname === '/v1beta/models')) {
      requests.push({ path: url.pathname + url.search, method: 'GET', headers: headersOf(req), body: undefined, format: 'models' });
      const ids = models ?? ['fake-model'];
      if (url.pathname === '/v1beta/models') sendJson(200, { models: ids.map((id) => ({ name: `models/${id}`, displayName: id })) });
      else if (req.headers['anthropic-version']) sendJson(200, { data: ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' })), has_more: false, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null });
      else sendJson(200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
      return;
    }
    if (req.method === 'POST' && (url.pathname === '/v1/audio/transcriptions' || url.pathname === '/audio/transcriptions')) {
      const recorded: RecordedRequest = { path: url.pathname + url.search, method: 'POST', headers: headersOf(req), body: {}, format: 'transcription' };
      requests.push(recorded);
      let form: FormData;
      try {
        form = await new Request('http://x/', { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? '' }, body: new Uint8Array(bytes) }).formData();
      } catch {
        sendJson(400, { error: { message: 'expected a multipart/form-data body', type: 'invalid_request_error' } });
        return;
      }
      const file = form.get('file');
      const fields: Record<string, string> = {};
      form.forEach((v, k) => {
        if (typeof v === 'string') fields[k] = v;
      });
      recorded.body = { ...fields, file: file && typeof file !== 'string' ? { name: file.name, type: file.type, size: file.size } : undefined };
      if (!file || typeof file === 'string' || !fields.model) {
        sendJson(400, { error: { message: "'file' and 'model' are required", type: 'invalid_request_error' } });
        return;
      }
      const out = transcribe({ name: file.name, mimeType: file.type, bytes: new Uint8Array(await file.arrayBuffer()), fields });
      if (typeof out !== 'string') {
        sendJson(out.status, { error: { message: `transcription failed with ${out.status}`, type: 'server_error' } });
        return;
      }
      if (fields.response_format === 'text') res.writeHead(200, { 'content-type': 'text/plain' }).end(out);
      else sendJson(200, { text: out });
      return;
    }
    const r = route(req.method ?? 'GET', url.pathname);
    if (!r) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${url.pathname}` } }));
      return;
    }
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      const recorded: RecordedRequest = { path: url.pathname + url.search, method: req.method ?? 'POST', headers: headersOf(req), body: raw, format: r.format };
      requests.push(recorded);
      res.writeHead(400, { 'content-type': 'application/json' }).end(errorBody(r.format, 400));
      return;
    }
    const recorded: RecordedRequest = { path: url.pathname + url.search, method: req.method ?? 'POST', headers: headersOf(req), body, format: r.format };
    requests.push(recorded);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const b = body as any;

    if (r.format === 'embeddings' || r.format === 'ollama-embed') {
      const inputs: string[] = Array.isArray(b.input) ? b.input.map(String) : [String(b.input ?? '')];
      const vectors = inputs.map((t) => embed(t));
      const out =
        r.format === 'embeddings'
          ? { object: 'list', data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })), model: b.model ?? 'fake-embed', usage: { prompt_tokens: inputs.length, total_tokens: inputs.length } }
          : { model: b.model ?? 'fake-embed', embeddings: vectors };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
      return;
    }

    const reply = queue.shift() ?? responder(recorded);
    if (reply.hang) return; // never answer; the socket is destroyed by the client's abort or close()
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed || !res.socket || res.socket.destroyed) return;
    if (reply.status && reply.status >= 400) {
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.errorBody ?? errorBody(r.format, reply.status));
      return;
    }
    const model = r.model ?? (typeof b.model === 'string' ? b.model : '');
    const p = plan(reply, model, counter);
    const stream = r.format === 'gemini' ? !!r.stream : r.format === 'ollama' ? b.stream !== false : b.stream === true;
    if (!stream) {
      const json =
        r.format === 'openai-chat' || r.format === 'azure'
          ? openaiChatJson(p)
          : r.format === 'openai-responses'
            ? responsesJson(p)
            : r.format === 'anthropic'
              ? anthropicJson(p)
              : r.format === 'gemini'
                ? geminiJson(p)
                : ollamaJson(p);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      return;
    }
    res.writeHead(200, {
      'content-type': r.format === 'ollama' ? 'application/x-ndjson' : 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    let first = true;
    const write = async (chunk: string): Promise<boolean> => {
      if (!first && reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
      first = false;
      if (res.destroyed || res.writableEnded || !res.socket || res.socket.destroyed) return false;
      res.write(chunk);
      return true;
    };
    switch (r.format) {
      case 'openai-chat':
      case 'azure':
        await openaiChatStream(p, b.stream_options?.include_usage === true, write);
        break;
      case 'openai-responses':
        await responsesStream(p, write);
        break;
      case 'anthropic':
        await anthropicStream(p, write);
        break;
      case 'gemini':
        await geminiStream(p, write);
        break;
      case 'ollama':
        await ollamaStream(p, write);
        break;
    }
    if (!res.destroyed) res.end();
  };

  const server = http.createServer((req, res) => {
    res.on('error', () => {});
    req.on('error', () => {});
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_e, s) => s.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let closed = false;

  return {
    url: `http://127.0.0.1:${port}`,
    enqueue: (...replies) => void queue.push(...replies),
    setDefault: (fn) => void (responder = fn),
    requests,
    setEmbedding: (fn) => void (embed = fn),
    setModels: (ids) => void (models = [...ids]),
    setTranscription: (fn) => void (transcribe = fn),
    close: async () => {
      if (closed) return;
      closed = true;
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function headersOf(req: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
