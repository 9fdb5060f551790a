/**
 * The webui on the REAL daemon (`startDaemon`) with the fake LLM server over loopback: a chat
 * POST whose turn calls a tool, read back by a real SSE client (fetch streaming); and
 * `host.confirm` answered through the webui for `cmd_run` outside the allowlist.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, type Daemon } from '../../daemon/index.js';
import { startFakeLlm, type FakeLlm } from '../../../test/fixtures/fake-llm/index.js';
import type { PluginDefinition } from '../../spec/index.js';
import { readSse } from './__fixtures__/read-sse.js';
import { authedFetch } from './__fixtures__/mini-host.js';

describe('webui on the real daemon', { timeout: 60_000 }, () => {
  let llm: FakeLlm;
  let d: Daemon;
  let home: string;
  const calls: unknown[] = [];
  const tools: PluginDefinition = {
    name: 'webui-test-tools',
    start(sdk) {
      sdk.registerTool({
        name: 'weather_lookup',
        description: 'Current weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        handler: (args) => {
          calls.push(args);
          return '{"temp": 21}';
        },
      });
    },
  };

  before(async () => {
    llm = await startFakeLlm();
    home = mkdtempSync(join(tmpdir(), 'ha-webui-daemon-'));
    d = await startDaemon({ homeDir: home, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false, plugins: [tools] });
    assert.ok(d.url, `webui did not start: ${JSON.stringify(d.registry.list().find((p) => p.name === 'webui'))}`);
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('streams a tool-using turn started by POST /api/v1/chat over SSE', async () => {
    llm.enqueue({ toolCalls: [{ name: 'weather_lookup', arguments: { city: '上海' } }] }, { text: '上海 21°C' });
    const ac = new AbortController();
    const sse = await authedFetch(`${d.url}/api/v1/events`, { signal: ac.signal }, d.authToken);
    assert.equal(sse.headers.get('content-type')?.split(';')[0], 'text/event-stream');
    const res = await authedFetch(`${d.url}/api/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: '上海天气？' }) }, d.authToken);
    assert.equal(res.status, 202);
    const { turnId, sessionId } = (await res.json()) as { turnId: string; sessionId: string };
    assert.match(sessionId, /^webui:/);
    const evs = await readSse(sse, (e) => e.some((x) => x.event === 'turn_end' && x.payload.turnId === turnId));
    ac.abort();
    const mine = evs.filter((e) => e.payload.turnId === turnId).map((e) => e.event);
    for (const name of ['turn_start', 'agent_llm_chain', 'tool_start', 'tool_end', 'turn_end']) assert.ok(mine.includes(name), `${name} missing from ${mine.join(',')}`);
    assert.ok(mine.indexOf('tool_start') < mine.indexOf('tool_end') && mine.indexOf('tool_end') < mine.lastIndexOf('turn_end'));
    const toolEnd = evs.find((e) => e.event === 'tool_end' && e.payload.turnId === turnId)!;
    assert.match(JSON.stringify(toolEnd.payload), /21/);
    const end = evs.find((e) => e.event === 'turn_end' && e.payload.turnId === turnId)!;
    assert.equal(end.payload.status, 'ok');
    assert.match(String(end.payload.text), /21°C/);
    assert.deepEqual(calls, [{ city: '上海' }]);
    // The fake LLM saw the tool result in the second request (the LLM really went over HTTP).
    const chats = llm.requests.filter((r) => r.path.endsWith('/chat/completions'));
    assert.ok(chats.length >= 2);
    assert.match(JSON.stringify(chats.at(-1)!.body), /"temp": 21|\\"temp\\": 21/);
  });

  const chats = () => llm.requests.filter((r) => r.path.endsWith('/chat/completions'));
  /** The tool message the LLM got back in the latest request. */
  const toolResultOf = () => JSON.stringify((chats().at(-1)!.body as { messages: { role: string }[] }).messages.filter((m) => m.role === 'tool').at(-1));

  /** One turn whose LLM calls `cmd_run printf <marker>` (printf is not allowlisted); `answer` gets the confirmation id from SSE. */
  async function cmdTurn(marker: string, answer: (id: string) => Promise<void>) {
    llm.enqueue({ toolCalls: [{ name: 'cmd_run', arguments: { command: 'printf', args: [marker] } }] }, { text: 'done' });
    const ac = new AbortController();
    const sse = await authedFetch(`${d.url}/api/v1/events`, { signal: ac.signal }, d.authToken);
    const res = await authedFetch(`${d.url}/api/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: `run ${marker}` }) }, d.authToken);
    const { turnId } = (await res.json()) as { turnId: string };
    let asked: Record<string, unknown> | undefined;
    await readSse(sse, (e) => {
      const req = e.find((x) => x.event === 'confirm_request');
      if (req && !asked) {
        asked = req.payload;
        void answer(String(req.payload.id));
      }
      return e.some((x) => x.event === 'turn_end' && x.payload.turnId === turnId);
    });
    ac.abort();
    return asked;
  }
  const post = (id: string, approved: boolean) => authedFetch(`${d.url}/api/v1/confirm/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ approved }) }, d.authToken).then((r) => assert.equal(r.status, 200));

  it('host.confirm: approve in the webui → the command runs and its output is the tool result; deny → refused', async () => {
    const asked = await cmdTurn('approved-output-42', (id) => post(id, true));
    assert.equal(asked?.plugin, 'cmd');
    assert.equal(asked?.detail, 'printf approved-output-42');
    assert.match(toolResultOf(), /approved-output-42/);
    assert.doesNotMatch(toolResultOf(), /did not approve/);
    assert.ok(await cmdTurn('denied-output-43', (id) => post(id, false)));
    assert.match(toolResultOf(), /did not approve running/);
    assert.doesNotMatch(toolResultOf(), /denied-output-43/);
  });

  it('host.confirm: denied at once when no WebUI client is connected (a headless daemon never hangs)', async () => {
    const n = chats().length;
    llm.enqueue({ toolCalls: [{ name: 'cmd_run', arguments: { command: 'printf', args: ['headless-44'] } }] }, { text: 'done' });
    const res = await authedFetch(`${d.url}/api/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'run headless' }) }, d.authToken);
    assert.equal(res.status, 202);
    for (let i = 0; i < 250 && chats().length < n + 2; i++) await new Promise((r) => setTimeout(r, 20));
    assert.match(toolResultOf(), /did not approve running/);
    assert.doesNotMatch(toolResultOf(), /headless-44/);
  });

  it('answers bad confirmation requests with typed errors', async () => {
    const nf = await authedFetch(`${d.url}/api/v1/confirm/00000000-0000-0000-0000-000000000000`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ approved: true }) }, d.authToken);
    assert.equal(nf.status, 404);
    const bad = await authedFetch(`${d.url}/api/v1/confirm/x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ approved: 'yes' }) }, d.authToken);
    assert.equal(bad.status, 400);
    const list = (await (await authedFetch(`${d.url}/api/v1/confirm`, {}, d.authToken)).json()) as { pending: unknown[] };
    assert.deepEqual(list.pending, []);
  });
});
