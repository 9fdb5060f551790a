/**
 * The OpenAI-compatible chat API end to end: the official `openai` npm client against the
 * real daemon on loopback, with the scripted fake LLM server behind it. Each request is a full
 * HomeAgent turn — the persona and memory in the system prompt, tools, the `agent_llm_chain` the
 * WebUI shows — in the session the request names.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from './fixtures/fake-llm/index.js';

const homes: string[] = [];
function home(): string {
  const h = mkdtempSync(join(tmpdir(), 'ha-openai-'));
  homes.push(h);
  return h;
}
const env = (llm?: FakeLlm) => ({ PATH: process.env.PATH, OLLAMA_HOST: 'http://127.0.0.1:9', ...(llm ? { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1` } : {}) });

type Msg = { role: string; content: string };
const chatRequests = (llm: FakeLlm): RecordedRequest[] => llm.requests.filter((r) => r.format === 'openai-chat');
const messagesOf = (r: RecordedRequest): Msg[] => r.body.messages as Msg[];

/**
 * Connects to the WebUI's event stream (what its live LLM-chain view reads) and resolves, once
 * connected, to a function that waits for the first event matching `pred`.
 */
async function openSse(url: string, token: string): Promise<(pred: (event: string, data: unknown) => boolean, ms?: number) => Promise<unknown>> {
  const ac = new AbortController();
  const res = await fetch(`${url}/api/v1/events`, { headers: { authorization: `Bearer ${token}` }, signal: ac.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  return async (pred, ms = 10_000) => {
    const timer = setTimeout(() => ac.abort(), ms);
    let buf = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error('event stream ended');
        buf += value;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!data) continue;
          const { event, payload } = JSON.parse(data) as { event: string; payload: unknown };
          if (pred(event, payload)) return payload;
        }
      }
    } finally {
      clearTimeout(timer);
      ac.abort();
    }
  };
}

describe('OpenAI-compatible API on the daemon, driven by the openai client', { timeout: 120_000 }, () => {
  let llm: FakeLlm;
  let d: Daemon;
  let client: OpenAI;

  before(async () => {
    llm = await startFakeLlm();
    d = await startTestDaemon({ homeDir: home(), env: env(llm), webuiPort: 0, heartbeats: false });
    client = new OpenAI({ apiKey: d.authToken, baseURL: `${d.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  it('lists the agent as a model', async () => {
    const page = await client.models.list();
    assert.deepEqual(
      page.data.map((m) => [m.id, m.object, m.owned_by]),
      [['homeagent', 'model', 'homeagent']],
    );
    assert.equal((await client.models.retrieve('homeagent')).id, 'homeagent');
    await assert.rejects(client.models.retrieve('gpt-4o'), (e: unknown) => e instanceof OpenAI.NotFoundError);
  });

  it("answers a chat app's own title request (Open WebUI's `### Task:` template) with one plain LLM call: no turn, no session, nothing kept", async () => {
    const before = (await d.sessions.list()).length;
    const n = chatRequests(llm).length;
    llm.enqueue({ text: '{ "title": "🐈 Naming the Cat" }', usage: { inputTokens: 50, outputTokens: 8 } });
    const task = '### Task:\nGenerate a concise, 3-5 word title with an emoji summarizing the chat history.\n### Output:\nJSON format: { "title": "your concise title here" }\n### Chat History:\n<chat_history>\nUSER: my cat is called Mochi\nASSISTANT: Lovely name!\n</chat_history>';
    const { data, response } = await client.chat.completions.create({ model: 'homeagent', user: 'alice', messages: [{ role: 'user', content: task }], stream: false }).withResponse();
    assert.equal(data.choices[0].message.content, '{ "title": "🐈 Naming the Cat" }');
    assert.deepEqual(data.usage, { prompt_tokens: 50, completion_tokens: 8, total_tokens: 58 });
    assert.equal(response.headers.get('x-homeagent-client-task'), '1');
    assert.equal(response.headers.get('x-homeagent-turn'), null);
    const sent = messagesOf(chatRequests(llm)[n]);
    assert.deepEqual(sent.map((m) => m.role), ['user'], 'no system prompt, no memory, no tools');
    assert.equal(sent[0].content, task);
    assert.equal((await d.sessions.list()).length, before, 'no session was created or touched');
    // A person who merely mentions a task heading is still talking to the agent.
    llm.enqueue({ text: 'Sure.' });
    const { response: r2 } = await client.chat.completions.create({ model: 'homeagent', user: 'task-heading', messages: [{ role: 'user', content: '### Task: buy milk' }] }).withResponse();
    assert.ok(r2.headers.get('x-homeagent-turn'), 'a full turn');
  });

  it('answers a chat completion from a full turn in the session named by `user`; the WebUI sees the LLM chain live', async () => {
    llm.enqueue({ text: 'Hello Alice, I am HomeAgent.', usage: { inputTokens: 120, outputTokens: 9 } });
    const next = await openSse(d.url!, d.authToken);
    const seen = next((ev, data) => ev === 'agent_llm_chain' && (data as { sessionId?: string }).sessionId === 'openai:alice');
    const { data: completion, response } = await client.chat.completions
      .create({ model: 'homeagent', user: 'alice', messages: [{ role: 'system', content: 'Answer briefly.' }, { role: 'user', content: 'Hi, who are you?' }] })
      .withResponse();
    assert.equal(completion.object, 'chat.completion');
    assert.equal(completion.model, 'homeagent');
    assert.match(completion.id, /^chatcmpl-/);
    assert.equal(completion.choices[0].message.role, 'assistant');
    assert.equal(completion.choices[0].message.content, 'Hello Alice, I am HomeAgent.');
    assert.equal(completion.choices[0].finish_reason, 'stop');
    assert.deepEqual(completion.usage, { prompt_tokens: 120, completion_tokens: 9, total_tokens: 129 });
    assert.equal(response.headers.get('x-homeagent-session'), 'openai:alice');
    const chain = (await seen) as { turnId: string; text: string; injected: { source: string }[] };
    assert.equal(chain.text, 'Hello Alice, I am HomeAgent.');
    assert.equal(chain.turnId, response.headers.get('x-homeagent-turn'));
    // The turn the LLM saw: HomeAgent's own system prompt (persona, channels), the client's
    // instructions marked as such, and the user's words.
    const msgs = messagesOf(chatRequests(llm).at(-1)!);
    assert.equal(msgs[0].role, 'system');
    assert.match(msgs[0].content, /HomeAgent/);
    assert.match(msgs[0].content, /openai/, 'the output channel rules name the API client');
    assert.ok(msgs.some((m) => m.role === 'user' && m.content === 'Hi, who are you?'));
    // System-first, one system message: strict chat templates (Mistral, Gemma on vLLM or llama.cpp)
    // refuse a system message after the user's; the client's instructions join the leading one.
    assert.deepEqual(
      msgs.map((m) => m.role),
      ['system', 'user'],
    );
    assert.match(msgs[0].content, /Instructions from the chat client[\s\S]*Answer briefly\./);
    // Logged in its session like any turn (the WebUI lists it).
    const events = await d.sessions.events('openai:alice');
    assert.deepEqual(
      events.filter((e) => e.kind === 'user' || e.kind === 'assistant').map((e) => [e.kind, e.text]),
      [
        ['user', 'Hi, who are you?'],
        ['assistant', 'Hello Alice, I am HomeAgent.'],
      ],
    );
  });

  it('only the newest user message is new input: the daemon remembers the session itself', async () => {
    llm.enqueue({ text: 'Noted: your cat is Mochi.' }, { text: 'Your cat is called Mochi.' });
    await client.chat.completions.create({ model: 'homeagent', user: 'bob', messages: [{ role: 'user', content: 'My cat is called Mochi.' }] });
    const before = chatRequests(llm).length;
    const c = await client.chat.completions.create({
      model: 'homeagent',
      user: 'bob',
      messages: [
        { role: 'user', content: 'My cat is called Mochi.' },
        { role: 'assistant', content: 'Noted: your cat is Mochi.' },
        { role: 'user', content: "What is my cat's name?" },
      ],
    });
    assert.equal(c.choices[0].message.content, 'Your cat is called Mochi.');
    assert.equal(chatRequests(llm).length, before + 1);
    const msgs = messagesOf(chatRequests(llm).at(-1)!);
    assert.deepEqual(
      msgs.filter((m) => m.role === 'user').map((m) => m.content),
      ["What is my cat's name?"],
      'the client history is not fed again as new user messages',
    );
    assert.match(msgs[0].content, /My cat is called Mochi/, 'the earlier turn reaches the model from HomeAgent memory (timeline)');
    assert.ok(!msgs.some((m) => /Earlier conversation in the chat client/.test(m.content)), 'no transcript for a session HomeAgent knows');
    assert.equal((await d.sessions.get('openai:bob'))?.turns, 2);
  });

  it('two first requests of one new session at once both get their answer (turns queue, the session is created once)', async () => {
    llm.enqueue({ text: 'first answer' }, { text: 'second answer' });
    const [a, b] = await Promise.all([
      client.chat.completions.create({ model: 'homeagent', user: 'race', messages: [{ role: 'user', content: 'one' }] }),
      client.chat.completions.create({ model: 'homeagent', user: 'race', messages: [{ role: 'user', content: 'two' }] }),
    ]);
    assert.deepEqual([a.choices[0].message.content, b.choices[0].message.content].sort(), ['first answer', 'second answer']);
    assert.equal((await d.sessions.get('openai:race'))?.turns, 2);
  });

  it('a conversation started elsewhere: for a session HomeAgent has not seen, the earlier messages are shown once as a transcript', async () => {
    llm.enqueue({ text: 'Then pack an umbrella.' });
    await client.chat.completions.create(
      {
        model: 'homeagent',
        messages: [
          { role: 'user', content: 'I fly to Hangzhou on Friday.' },
          { role: 'assistant', content: 'Have a good trip!' },
          { role: 'user', content: 'It will rain there.' },
        ],
      },
      { headers: { 'X-HomeAgent-Session': 'trip' } },
    );
    const msgs = messagesOf(chatRequests(llm).at(-1)!);
    assert.deepEqual(
      msgs.map((m) => m.role),
      ['system', 'user'],
      'the transcript is part of the leading system message',
    );
    assert.match(msgs[0].content, /Earlier conversation in the chat client[\s\S]*user: I fly to Hangzhou on Friday\.\nassistant: Have a good trip!/);
    assert.deepEqual(
      msgs.filter((m) => m.role === 'user').map((m) => m.content),
      ['It will rain there.'],
    );
    assert.ok(await d.sessions.get('openai:trip'), 'the header named the session');
  });

  it('a reply a before_output handler rewrites (a redaction plugin) is streamed as rewritten: no chunk carries what it removed', async () => {
    const off = d.agent.stages.registerStage('before_output', (c) => void (c.text = c.text?.replaceAll('hunter2', '[redacted]')), 'redact');
    try {
      llm.enqueue({ text: 'the password is hunter2 ok', chunkDelayMs: 2 });
      const stream = await client.chat.completions.create({ model: 'homeagent', user: 'redact', stream: true, messages: [{ role: 'user', content: 'pw?' }] });
      const parts: string[] = [];
      for await (const ch of stream) parts.push(ch.choices[0]?.delta.content ?? '');
      assert.equal(parts.join(''), 'the password is [redacted] ok');
      assert.ok(!parts.some((p) => /hunter|er2/.test(p)), JSON.stringify(parts));
    } finally {
      off();
    }
  });

  it('streams chat.completion.chunk events: reasoning, the text of every round, a message the model sent to the channel, usage, [DONE]', async () => {
    llm.enqueue(
      { reasoning: 'I should note this first.', text: 'Let me check.', toolCalls: [{ name: 'output_send__openai', arguments: { payload: 'Interim: looking it up.' } }], usage: { inputTokens: 50, outputTokens: 5 } },
      { text: 'The answer is forty-two, as promised.', chunkDelayMs: 5, usage: { inputTokens: 70, outputTokens: 8 } },
    );
    const stream = await client.chat.completions.create({ model: 'homeagent', user: 'carol', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'What is the answer?' }] });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const ch of stream) chunks.push(ch);
    assert.ok(chunks.length > 5, `only ${chunks.length} chunks`);
    for (const ch of chunks) assert.equal(ch.object, 'chat.completion.chunk');
    assert.equal(new Set(chunks.map((c) => c.id)).size, 1, 'one id for the whole stream');
    assert.equal(chunks[0].choices[0].delta.role, 'assistant');
    const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    assert.equal(content, 'Let me check.\n\nInterim: looking it up.\n\nThe answer is forty-two, as promised.');
    const reasoning = chunks.map((c) => (c.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '').join('');
    assert.equal(reasoning, 'I should note this first.');
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
    assert.deepEqual(
      finish.map((c) => c.choices[0].finish_reason),
      ['stop'],
    );
    const usage = chunks.at(-1)!;
    assert.deepEqual(usage.choices, []);
    assert.deepEqual(usage.usage, { prompt_tokens: 120, completion_tokens: 13, total_tokens: 133 });
    // The final reply is what the session log keeps.
    const events = await d.sessions.events('openai:carol');
    assert.equal(events.filter((e) => e.kind === 'assistant').at(-1)?.text, 'The answer is forty-two, as promised.');
  });

  it('on the wire: text/event-stream with `data: {chunk}` lines ending in `data: [DONE]`', async () => {
    llm.enqueue({ text: 'plain stream' });
    const res = await fetch(`${d.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'homeagent', stream: true, messages: [{ role: 'user', content: 'stream please' }] }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const events = (await res.text()).split('\n\n').filter(Boolean);
    assert.ok(events.every((e) => e.startsWith('data: ') || e.startsWith(': ')), events.join('|'));
    assert.equal(events.at(-1), 'data: [DONE]');
    const json = events.filter((e) => e.startsWith('data: {')).map((e) => JSON.parse(e.slice(6)) as { choices: { delta: { content?: string } }[] });
    assert.equal(json.map((j) => j.choices[0]?.delta.content ?? '').join(''), 'plain stream');
    assert.equal(res.headers.get('x-homeagent-session'), 'openai:default');
  });

  it('bad requests get OpenAI-style errors {error:{message,type,code}} with the right status, and start no turn', async () => {
    const turnsBefore = chatRequests(llm).length;
    const cases: { body: unknown; status: number; code: string; param?: string }[] = [
      { body: { model: 'homeagent' }, status: 400, code: 'missing_required_parameter', param: 'messages' },
      { body: { messages: [{ role: 'user', content: 'x' }] }, status: 400, code: 'missing_required_parameter', param: 'model' },
      { body: { model: 'homeagent', messages: 'hello' }, status: 400, code: 'invalid_type', param: 'messages' },
      { body: { model: 'homeagent', messages: [] }, status: 400, code: 'invalid_value', param: 'messages' },
      { body: { model: 'homeagent', messages: [{ role: 'wizard', content: 'x' }] }, status: 400, code: 'invalid_value', param: 'messages[0].role' },
      { body: { model: 'homeagent', messages: [{ role: 'user', content: 42 }] }, status: 400, code: 'invalid_type', param: 'messages[0].content' },
      { body: { model: 'homeagent', stream: 'yes', messages: [{ role: 'user', content: 'x' }] }, status: 400, code: 'invalid_type', param: 'stream' },
      { body: { model: 'homeagent', messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: 'y' }] }, status: 400, code: 'invalid_value', param: 'messages[1].role' },
      { body: { model: 'homeagent', messages: [{ role: 'user', content: '   ' }] }, status: 400, code: 'invalid_value', param: 'messages[0].content' },
      { body: { model: 'homeagent', n: 2, messages: [{ role: 'user', content: 'x' }] }, status: 400, code: 'unsupported_value', param: 'n' },
      { body: { model: 'homeagent', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://192.168.1.1/cam.jpg' } }] }] }, status: 400, code: 'unsupported_value', param: 'messages[0].content[0].image_url' },
      { body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }, status: 404, code: 'model_not_found', param: 'model' },
    ];
    for (const c of cases) {
      await assert.rejects(
        client.chat.completions.create(c.body as never),
        (e: unknown) => {
          assert.ok(e instanceof OpenAI.APIError, String(e));
          assert.equal(e.status, c.status, `${JSON.stringify(c.body)} → ${e.status} ${e.message}`);
          assert.equal(e.code, c.code, JSON.stringify(c.body));
          assert.equal(e.type, 'invalid_request_error');
          if (c.param) assert.equal(e.param, c.param, JSON.stringify(c.body));
          assert.ok(e.message.length > 10);
          return true;
        },
      );
    }
    const raw = await fetch(`${d.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' }, body: '{"model": "homeagent", "messages": [' });
    assert.equal(raw.status, 400);
    const body = (await raw.json()) as { error: { message: string; type: string; code: string } };
    assert.equal(body.error.code, 'invalid_json');
    assert.equal(body.error.type, 'invalid_request_error');
    const big = await fetch(`${d.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'homeagent', messages: [{ role: 'user', content: 'x'.repeat(21 * 1024 * 1024) }] }) });
    assert.equal(big.status, 413);
    assert.equal(((await big.json()) as { error: { type: string } }).error.type, 'invalid_request_error');
    assert.equal(chatRequests(llm).length, turnsBefore, 'no bad request reached the LLM');
  });

  it('a refused input (longer than a turn takes) leaves no empty session behind', async () => {
    const turnsBefore = chatRequests(llm).length;
    await assert.rejects(client.chat.completions.create({ model: 'homeagent', user: 'huge', messages: [{ role: 'user', content: 'x'.repeat(1024 * 1024) }] }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.BadRequestError, String(e));
      assert.equal(e.type, 'invalid_request_error');
      assert.equal(e.code, 'invalid_value');
      assert.match(e.message, /longer than/);
      return true;
    });
    assert.equal(await d.sessions.get('openai:huge'), undefined, 'no session was created');
    assert.ok(!(await d.sessions.list()).some((x) => x.id === 'openai:huge'), 'nothing new in `waiter sessions`');
    assert.equal(chatRequests(llm).length, turnsBefore);
  });

  it('every /v1 error is OpenAI-shaped: unknown routes, wrong methods, the guard, a form body (curl -d)', async () => {
    const shape = async (res: Response, status: number, type: string, code: string) => {
      assert.equal(res.status, status, `${res.url}`);
      const body = (await res.json()) as { ok?: unknown; error: Record<string, unknown> };
      assert.equal(body.ok, undefined, 'not the WebUI API shape');
      assert.deepEqual(Object.keys(body.error).filter((k) => k !== 'homeagent_code').sort(), ['code', 'message', 'param', 'type']);
      assert.equal(body.error.type, type);
      assert.equal(body.error.code, code);
      assert.equal(typeof body.error.message, 'string');
      return body.error;
    };
    const auth = { authorization: `Bearer ${d.authToken}` };
    await assert.rejects(client.embeddings.create({ model: 'homeagent', input: 'x' }), (e: unknown) => e instanceof OpenAI.NotFoundError && e.type === 'invalid_request_error' && e.code === 'unknown_url');
    await shape(await fetch(`${d.url}/v1/responses`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' }), 404, 'invalid_request_error', 'unknown_url');
    await shape(await fetch(`${d.url}/v1/chat/completions`, { headers: auth }), 405, 'invalid_request_error', 'method_not_allowed');
    await shape(await fetch(`${d.url}/v1/models`, { headers: { authorization: 'Bearer wrong' } }), 401, 'authentication_error', 'invalid_api_key');
    // What `curl -d '{…}'` sends: a form type, which a cross-site page can POST without a preflight,
    // so the guard keeps refusing it (docs/security.md) and says which header to send.
    const form = await shape(
      await fetch(`${d.url}/v1/chat/completions`, { method: 'POST', headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, body: JSON.stringify({ model: 'homeagent', messages: [{ role: 'user', content: 'x' }] }) }),
      415,
      'invalid_request_error',
      'unsupported_media_type',
    );
    assert.match(String(form.message), /Content-Type: application\/json/);
    // The WebUI's own API keeps its shape.
    const webui = (await (await fetch(`${d.url}/api/v1/nope`, { headers: auth })).json()) as { ok: boolean; error: { code: string } };
    assert.deepEqual([webui.ok, webui.error.code], [false, 'NOT_FOUND']);
  });

  it('needs the token as the API key, and refuses cross-site requests even with it — before any handler runs', async () => {
    const turnsBefore = chatRequests(llm).length;
    const sessionsBefore = (await d.sessions.list()).length;
    const wrong = new OpenAI({ apiKey: 'sk-not-the-token', baseURL: `${d.url}/v1`, maxRetries: 0 });
    await assert.rejects(wrong.chat.completions.create({ model: 'homeagent', messages: [{ role: 'user', content: 'forged' }] }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.AuthenticationError);
      assert.equal(e.status, 401);
      assert.equal(e.code, 'invalid_api_key');
      assert.equal(e.type, 'authentication_error');
      assert.equal((e.error as { homeagent_code?: string }).homeagent_code, 'UNAUTHORIZED');
      return true;
    });
    await assert.rejects(wrong.models.list(), (e: unknown) => e instanceof OpenAI.AuthenticationError);
    const evil = await fetch(`${d.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.authToken}`, origin: 'http://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'homeagent', messages: [{ role: 'user', content: 'forged' }] }),
    });
    assert.equal(evil.status, 403);
    assert.deepEqual(await evil.json(), {
      error: {
        message:
          'cross-site requests are refused (Origin: http://evil.example); use the WebUI served by this daemon, or a client with the token; if http://evil.example is a chat app of yours, let it use /v1 and /mcp: list its origin in plugin.webui.app_origins (Settings, or: waiter config set plugin.webui.app_origins \'["http://evil.example"]\', with any origins listed already)',
        type: 'permission_error',
        param: null,
        code: 'cross_site_request',
        homeagent_code: 'CROSS_SITE_REQUEST',
      },
    });
    assert.equal(chatRequests(llm).length, turnsBefore);
    assert.equal((await d.sessions.list()).length, sessionsBefore);
  });

  it('a browser or desktop chat app works once the owner lists its origin — on /v1/ and /mcp only, still with the token', async () => {
    const app = 'http://localhost:3210';
    const preflight = () =>
      fetch(`${d.url}/v1/chat/completions`, { method: 'OPTIONS', headers: { origin: app, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } });
    const post = (path: string, origin: string, token?: string) =>
      fetch(`${d.url}${path}`, {
        method: 'POST',
        headers: { origin, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ model: 'homeagent', messages: [{ role: 'user', content: 'from the app' }] }),
      });
    const unlisted = await preflight();
    assert.equal(unlisted.status, 403, 'no preflight is answered by default');
    assert.equal(unlisted.headers.get('access-control-allow-origin'), null);
    assert.equal((await post('/v1/chat/completions', app, d.authToken)).status, 403);
    await d.config.set('plugin.webui.app_origins', [app]);
    try {
      const pre = await preflight();
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-origin'), app);
      assert.match(pre.headers.get('access-control-allow-headers') ?? '', /authorization/);
      llm.enqueue({ text: 'hello app' });
      const ok = await post('/v1/chat/completions', app, d.authToken);
      assert.equal(ok.status, 200);
      assert.equal(ok.headers.get('access-control-allow-origin'), app);
      assert.equal(((await ok.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content, 'hello app');
      assert.equal((await post('/v1/chat/completions', app)).status, 401, 'the token is still needed');
      assert.equal((await post('/v1/chat/completions', 'http://evil.example', d.authToken)).status, 403, 'other origins stay refused');
      const webuiApi = await post('/api/v1/chat', app, d.authToken);
      assert.equal(webuiApi.status, 403, "the WebUI's own API stays same-origin only");
      assert.equal(webuiApi.headers.get('access-control-allow-origin'), null);
    } finally {
      await d.config.set('plugin.webui.app_origins', []);
    }
  });

  it('a failing LLM becomes an OpenAI-style server error; the daemon keeps answering', async () => {
    llm.setDefault(() => ({ status: 500 }));
    try {
      await assert.rejects(client.chat.completions.create({ model: 'homeagent', messages: [{ role: 'user', content: 'will fail' }] }), (e: unknown) => {
        assert.ok(e instanceof OpenAI.APIError);
        assert.equal(e.status, 502);
        assert.equal(e.type, 'server_error');
        return true;
      });
      const s = await client.chat.completions.create({ model: 'homeagent', stream: true, messages: [{ role: 'user', content: 'will fail too' }] });
      await assert.rejects(
        (async () => {
          for await (const _ of s) void _;
        })(),
        (e: unknown) => e instanceof OpenAI.APIError && /fail/i.test(e.message),
      );
    } finally {
      llm.setDefault(() => ({ text: 'ok' }));
    }
    llm.enqueue({ text: 'back again' });
    const ok = await client.chat.completions.create({ model: 'homeagent', messages: [{ role: 'user', content: 'still there?' }] });
    assert.equal(ok.choices[0].message.content, 'back again');
  });
  it("the openai SDK's retry of a request whose connection dropped gets the first answer and starts no second turn", async () => {
    const before = chatRequests(llm).length;
    llm.enqueue({ text: 'said once', delayMs: 600 });
    const attempts: (string | null)[] = [];
    const flaky = new OpenAI({
      apiKey: d.authToken,
      baseURL: `${d.url}/v1`,
      maxRetries: 2,
      fetch: async (url, init) => {
        attempts.push(new Headers(init?.headers).get('x-stainless-retry-count'));
        const pending = fetch(url, init);
        if (attempts.length > 1) return pending;
        // The connection drops while the turn runs (the LLM has the request): the SDK retries.
        void pending.then((r) => r.text()).catch(() => {});
        for (let i = 0; i < 200 && chatRequests(llm).length === before; i++) await new Promise((r) => setTimeout(r, 20));
        throw new TypeError('fetch failed: socket hang up');
      },
    });
    const { data, response } = await flaky.chat.completions.create({ model: 'homeagent', user: 'retry', messages: [{ role: 'user', content: 'say it once' }] }).withResponse();
    assert.deepEqual(attempts, ['0', '1'], 'the SDK retried once');
    assert.equal(data.choices[0].message.content, 'said once');
    assert.equal(response.headers.get('idempotent-replayed'), 'true');
    assert.equal(chatRequests(llm).length, before + 1, 'one LLM call');
    assert.equal((await d.sessions.get('openai:retry'))?.turns, 1, 'one turn in the session, not two');

    // The same words as a new first attempt are a new turn (the owner may say "yes" twice).
    llm.enqueue({ text: 'said twice' });
    const twice = await flaky.chat.completions.create({ model: 'homeagent', user: 'retry', messages: [{ role: 'user', content: 'say it once' }] });
    assert.equal(twice.choices[0].message.content, 'said twice');
    assert.equal((await d.sessions.get('openai:retry'))?.turns, 2);

    // With an Idempotency-Key, sent again after it ended: the same completion (id included), as JSON or as a stream; no turn.
    const post = (key: string, body: Record<string, unknown>) =>
      fetch(`${d.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(body) });
    const body = { model: 'homeagent', user: 'retry', messages: [{ role: 'user', content: 'say it once' }] };
    llm.enqueue({ text: 'answered' });
    const first = (await (await post('k-1', body)).json()) as { id: string; choices: { message: { content: string } }[] };
    const again = await post('k-1', body);
    assert.equal(again.status, 200);
    const second = (await again.json()) as typeof first;
    assert.equal(second.id, first.id);
    assert.equal(second.choices[0].message.content, 'answered');
    const reused = await post('k-1', { ...body, messages: [{ role: 'user', content: 'something else' }] });
    assert.equal(reused.status, 422, 'a key sent again with another body is refused');
    assert.equal(((await reused.json()) as { error: { code: string } }).error.code, 'idempotency_key_reused');
    llm.enqueue({ text: 'streamed' });
    const streamBody = { ...body, stream: true };
    assert.ok((await (await post('k-2', streamBody)).text()).trimEnd().endsWith('data: [DONE]'));
    const streamedAgain = await post('k-2', streamBody);
    assert.equal(streamedAgain.headers.get('idempotent-replayed'), 'true');
    const text = await streamedAgain.text();
    assert.match(text, /"content":"streamed"/, 'a streamed retry gets the answer as a stream');
    assert.ok(text.trimEnd().endsWith('data: [DONE]'));
    const badKey = await post('bad key with spaces', body);
    assert.equal(badKey.status, 400);
    assert.equal(chatRequests(llm).length, before + 4);
    assert.equal((await d.sessions.get('openai:retry'))?.turns, 4);
  });
});

describe('OpenAI-compatible API without any LLM configured', { timeout: 60_000 }, () => {
  it('answers 503 with the message that says how to configure a provider (not a stack trace)', async () => {
    const d = await startTestDaemon({ homeDir: home(), env: env(), webuiPort: 0, heartbeats: false });
    try {
      // The SDK's own retries stay on: the error says not to retry a turn that ran.
      const client = new OpenAI({ apiKey: d.authToken, baseURL: `${d.url}/v1`, maxRetries: 2 });
      await assert.rejects(client.chat.completions.create({ model: 'homeagent', messages: [{ role: 'user', content: 'hello' }] }), (e: unknown) => {
        assert.ok(e instanceof OpenAI.APIError);
        assert.equal(e.status, 503);
        assert.equal(e.code, 'no_provider_configured');
        assert.equal(e.type, 'server_error');
        assert.equal((e.error as { homeagent_code?: string }).homeagent_code, 'NO_PROVIDER_CONFIGURED');
        assert.match(e.message, /OPENAI_API_KEY|DEEPSEEK_API_KEY/);
        assert.doesNotMatch(e.message, /at .*\.ts:\d+/);
        return true;
      });
      assert.equal((await d.sessions.get('openai:default'))?.turns, 1, 'the SDK did not send the words again as new turns');
      const raw = await fetch(`${d.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'homeagent', messages: [{ role: 'user', content: 'again' }] }) });
      assert.equal(raw.status, 503);
      assert.equal(raw.headers.get('x-should-retry'), 'false', 'the error of a turn that ran tells clients not to retry it');
      assert.equal(raw.headers.get('x-homeagent-session'), 'openai:default');
      // Streamed, the same 503 (the daemon knows before the turn that no LLM can answer), not a 200 stream.
      await assert.rejects(client.chat.completions.create({ model: 'homeagent', stream: true, messages: [{ role: 'user', content: 'stream anyway' }] }), (e: unknown) => {
        assert.ok(e instanceof OpenAI.APIError);
        assert.equal(e.status, 503);
        assert.equal(e.code, 'no_provider_configured');
        assert.match(e.message, /OPENAI_API_KEY/);
        return true;
      });
      const streamed = await fetch(`${d.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'homeagent', stream: true, messages: [{ role: 'user', content: 'stream again' }] }) });
      assert.equal(streamed.status, 503);
      assert.match(streamed.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(streamed.headers.get('x-should-retry'), 'false');
      assert.equal(((await streamed.json()) as { error: { code: string } }).error.code, 'no_provider_configured');
    } finally {
      await d.stop();
    }
  });
});
