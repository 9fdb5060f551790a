/**
 * Keeping a fact while forgetting, asked by a model (decision 0600), on the REAL daemon: the agent's
 * `memory_forget` called by the fake LLM server over loopback, and the MCP server's `memory_forget`
 * called by the real MCP client over HTTP. The person confirms in the WebUI (its event stream and
 * confirm route); the dialog names the kept fact as kept. A keep the daemon's own plan does not list
 * — a fact of another turn — is refused with a coded error before anyone is asked, and nothing goes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { keptFactAt } from '../src/spec/index.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import { readSse } from '../src/builtins/webui/__fixtures__/read-sse.js';

const SID = 'webui:keep-tools';

describe('memory_forget with keep_fact_ids, from the model and from MCP', { timeout: 120_000 }, () => {
  let llm: FakeLlm;
  let d: Daemon;
  let home: string;
  let hangzhou = '';
  let tencent = '';
  const ids = { name: 0, place: 0, job: 0, tea: 0 };

  const turn = async (text: string, reply: string) => {
    llm.enqueue({ text: reply });
    const outcome = await d.agent.injectInput({ sessionId: SID, source: 'webui', text }).done;
    assert.equal(outcome.status, 'ok');
    return outcome.turnId;
  };
  const fact = (predicate: string) => d.memory.graph.relationsOf('user', predicate)[0];
  const control = () => d.host.services.use('host.memory-control')!;
  const lastToolMessage = () => {
    const chats = llm.requests.filter((r) => r.path.endsWith('/chat/completions'));
    return JSON.stringify((chats.at(-1)!.body as { messages: { role: string }[] }).messages.filter((m) => m.role === 'tool').at(-1));
  };
  /** Opens the WebUI's event stream (so the person can be asked), runs `act`, and answers the first confirmation yes; returns its detail. */
  const confirmingYes = async (act: () => Promise<unknown>): Promise<{ detail: string; result: unknown }> => {
    const ac = new AbortController();
    const sse = await fetch(`${d.url}/api/v1/events`, { signal: ac.signal, headers: { authorization: `Bearer ${d.authToken}` } });
    const pending = act();
    let detail = '';
    await readSse(sse, (evs) => {
      const req = evs.find((x) => x.event === 'confirm_request');
      if (req && !detail) {
        detail = String(req.payload.detail);
        void fetch(`${d.url}/api/v1/confirm/${String(req.payload.id)}`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ approved: true }) });
      }
      return !!detail;
    });
    ac.abort();
    return { detail, result: await pending };
  };
  const mcpClient = async () => {
    const mcp = new Client({ name: 'keep-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${d.authToken}` } } }));
    return mcp;
  };

  before(async () => {
    llm = await startFakeLlm();
    home = mkdtempSync(join(tmpdir(), 'ha-keep-tools-e2e-'));
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
    hangzhou = await turn('我叫小林，住在杭州', '好的，小林。');
    tencent = await turn('我在腾讯工作，我喜欢喝龙井茶', '记住了。');
    await d.memory.heartbeats.runOnce('rules');
    ids.name = fact('name').id;
    ids.place = fact('lives_in').id;
    ids.job = fact('works_at').id;
    ids.tea = fact('likes').id;
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('the agent: a keep of a fact this forget would not take (another turn\'s) is refused before anyone is asked; nothing goes', async () => {
    llm.enqueue({ toolCalls: [{ name: 'memory_forget', arguments: { query: '杭州', keep_fact_ids: [ids.tea] } }] }, { text: 'I could not.' });
    const t = d.agent.injectInput({ sessionId: 'webui:other', source: 'webui', text: 'forget where I live, keep my name' });
    await t.done;
    const msg = lastToolMessage();
    assert.match(msg, /VALIDATION/);
    assert.match(msg, new RegExp(`#${ids.tea} is not among the facts this forget would take`));
    assert.equal(control().isTombstoned(hangzhou), false, 'nothing was forgotten');
    assert.ok(fact('lives_in') && fact('likes'), 'both facts as they were');
  });

  it('the agent: forgets the turn with the name kept — the dialog says so, the name stays without the turn', async () => {
    llm.enqueue({ toolCalls: [{ name: 'memory_forget', arguments: { query: '杭州', keep_fact_ids: [ids.name] } }] }, { text: 'Forgotten.' });
    const { detail } = await confirmingYes(() => d.agent.injectInput({ sessionId: 'webui:other', source: 'webui', text: 'forget where I live, keep my name' }).done);
    assert.match(detail, new RegExp(`fact #${ids.name} \\(kept, without the turn it came from\\)`));
    assert.match(detail, new RegExp(`fact #${ids.place}: `));
    assert.match(lastToolMessage(), /keptFacts\\?":1/);
    assert.equal(control().isTombstoned(hangzhou), true);
    assert.equal(fact('lives_in'), undefined, 'the place went with the turn');
    const kept = d.memory.graph.relation(ids.name)!;
    assert.equal(kept.object, '小林');
    assert.ok(keptFactAt(d.memory.graph.sourcesOf(ids.name).map((s) => s.ref)) !== undefined, 'cites the kept source');
    const forget = (await (await fetch(`${d.url}/api/v1/memory/history?kind=forget`, { headers: { authorization: `Bearer ${d.authToken}` } })).json()) as { history: { actor: string; tool: string }[] };
    assert.equal(forget.history[0].actor, 'agent');
  });

  it('MCP: a keep of a fact this forget would not take is a coded error, nothing asked, nothing forgotten', async () => {
    const mcp = await mcpClient();
    const r = (await mcp.callTool({ name: 'memory_forget', arguments: { query: '腾讯', keep_fact_ids: [ids.name] } })) as CallToolResult;
    await mcp.close();
    assert.equal(r.isError, true);
    const text = (r.content as { text: string }[])[0].text;
    assert.match(text, new RegExp(`^VALIDATION: keep_fact_ids: #${ids.name} is not among the facts this forget would take \\(the facts it would take are #`));
    assert.equal(control().isTombstoned(tencent), false);
    assert.ok(fact('works_at') && fact('likes'));
    assert.ok(d.memory.graph.relation(ids.name), 'the fact named is untouched');
  });

  it('MCP: forgets the turn with the tea kept; the job goes', async () => {
    const mcp = await mcpClient();
    const { detail, result } = await confirmingYes(() => mcp.callTool({ name: 'memory_forget', arguments: { query: '腾讯', keep_fact_ids: [ids.tea] } }));
    await mcp.close();
    const r = result as CallToolResult;
    assert.ok(!r.isError, JSON.stringify(r.content));
    assert.match(detail, new RegExp(`fact #${ids.tea} \\(kept, without the turn it came from\\)`));
    assert.equal((r.structuredContent as { forgotten: boolean; keptFacts?: number }).keptFacts, 1);
    assert.equal(control().isTombstoned(tencent), true);
    assert.equal(fact('works_at'), undefined);
    assert.match(d.memory.graph.relation(ids.tea)?.object ?? '', /龙井茶/);
    assert.ok(keptFactAt(d.memory.graph.sourcesOf(ids.tea).map((s) => s.ref)) !== undefined);
  });
});
