/**
 * Memory the user controls on the REAL daemon (M-9, K-2, K-3), with the fake LLM server over
 * loopback: what the LLM received is the proof. An excluded turn reaches no prompt and no search
 * and comes back on restore; forget over HTTP removes every trace (tiers, session log) and a
 * reindex does not bring it back; history and undo over HTTP; `memory_forget` as an agent tool
 * asks the person (host.confirm through the WebUI's SSE) and over MCP is refused without a WebUI.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import { readSse } from '../src/builtins/webui/__fixtures__/read-sse.js';
import { until } from './fixtures/until.js';

/** The secret as a number of its own — not four digits inside a timestamp (`"at":1796274547112`). */
const CODE_4711 = /(?<!\d)4711(?!\d)/;

const SID = 'webui:control';

describe('memory control on the daemon', { timeout: 120_000 }, () => {
  let llm: FakeLlm;
  let d: Daemon;
  let home: string;
  const api = async (path: string, init: { method?: string; body?: unknown; type?: string } = {}) => {
    const res = await fetch(`${d.url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { authorization: `Bearer ${d.authToken}`, 'content-type': init.type ?? 'application/json' },
      body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: { code: string } } };
  };
  const mm = async (op: string, args: Record<string, unknown>) => (await api('/api/memory-manager', { body: { op, sessionId: SID, args } })).body.value as Record<string, unknown>;
  const chats = () => llm.requests.filter((r) => r.path.endsWith('/chat/completions'));
  /** One turn; returns its id. */
  const turn = async (text: string, reply: string) => {
    llm.enqueue({ text: reply });
    const t = d.agent.injectInput({ sessionId: SID, source: 'webui', text });
    const outcome = await t.done;
    assert.equal(outcome.status, 'ok');
    return outcome.turnId;
  };
  const search = async (q: string) => ((await api(`/api/v1/memory/documents?q=${encodeURIComponent(q)}&limit=50`)).body.documents as { text: string }[]).map((h) => h.text).join('\n');
  // What the log says, without its timestamps and seqs: a millisecond time can hold "4711" too.
  const sessionLog = async () => JSON.stringify((await api(`/api/v1/sessions/${encodeURIComponent(SID)}/events`)).body).replace(/"(at|seq|lastSeq)":\d+/g, '"$1":0');

  before(async () => {
    llm = await startFakeLlm();
    home = mkdtempSync(join(tmpdir(), 'ha-control-e2e-'));
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    rmSync(home, { recursive: true, force: true });
  });

  let secretTurn = '';

  it('M-9: an excluded turn reaches no prompt and no search; restored, it is found again', async () => {
    secretTurn = await turn('Remember: the garage door code is 4711', 'Got it, the garage code.');
    await turn('I like green tea with jasmine', 'Noted.');
    assert.match(await search('garage door code'), CODE_4711);
    assert.equal((await mm('turn.exclude', { turnId: secretTurn })).excluded, true);
    assert.deepEqual((await api('/api/v1/memory/exclusions')).body.turnIds, [secretTurn]);
    assert.doesNotMatch(await search('garage door code 4711'), CODE_4711);
    await turn('What is the garage door code?', 'I do not know.');
    assert.doesNotMatch(JSON.stringify(chats().at(-1)!.body), CODE_4711, 'the excluded turn is in no prompt');
    // Not replayed by a reindex either.
    assert.equal((await d.memory.reindex()).added, 0);
    assert.doesNotMatch(await search('garage door code 4711'), CODE_4711);
    assert.equal((await mm('turn.restore', { turnId: secretTurn })).excluded, false);
    assert.match(await search('garage door code'), CODE_4711, 'restored, it is found again');
    const hist = (await api(`/api/v1/memory/history?target=${encodeURIComponent(secretTurn)}`)).body.history as { op: string; tool?: string }[];
    assert.deepEqual(hist.map((h) => h.op), ['restore', 'exclude']);
  });

  it('M-9: an exclusion made outside the memory manager (the API, waiter, an undo) is marked in the session log, as the chat shows it; one made by it is marked once', async () => {
    const markers = async (turnId: string) =>
      ((await api(`/api/v1/sessions/${encodeURIComponent(SID)}/events?limit=2000`)).body.events as { kind: string; data?: { op?: string; turnId?: string } }[]).filter((e) => e.kind === 'marker' && e.data?.turnId === turnId).map((e) => e.data!.op);
    const t = await turn('My cycling club meets on Thursdays', 'Noted.');
    assert.equal((await api('/api/v1/memory/exclusions', { body: { turnIds: [t] } })).status, 200);
    await until(async () => (await markers(t)).length === 1);
    assert.deepEqual(await markers(t), ['exclude']);
    assert.equal((await api('/api/v1/memory/exclusions/restore', { body: { turnIds: [t] } })).status, 200);
    await until(async () => (await markers(t)).length === 2);
    assert.deepEqual(await markers(t), ['exclude', 'restore']);
    // Through the memory manager: the memory control tells it back, and no second marker is written.
    await mm('turn.exclude', { turnId: t });
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(await markers(t), ['exclude', 'restore', 'exclude']);
    await mm('turn.restore', { turnId: t });
  });

  it('0440/0600: a turn deleted from the chat and then excluded sets aside a memory made from it', async () => {
    const t = await turn('My bike lock combination is 2580', 'Noted, 2580.');
    const seqs = ((await api(`/api/v1/sessions/${encodeURIComponent(SID)}/events?limit=2000`)).body.events as { seq: number; turnId?: string }[]).filter((e) => e.turnId === t).map((e) => e.seq);
    const id = ((await mm('memory.save', { title: 'Bike lock', snapshot: 'the bike lock combination is 2580', source: { sessionId: SID, seqs } })) as { id: string }).id;
    const del = await fetch(`${d.url}/api/v1/sessions/${encodeURIComponent(SID)}/turns/${encodeURIComponent(t)}`, { method: 'DELETE', headers: { authorization: `Bearer ${d.authToken}` } });
    assert.equal(del.status, 200);
    assert.equal((await api('/api/v1/memory/exclusions', { body: { turnIds: [t] } })).status, 200);
    // The memory manager mirrors the exclusion into its plan (what the set-aside reads).
    await until(async () => (((await mm('plan.get', {})).excluded as Record<string, string[]>)[SID] ?? []).includes(t), 'the exclusion mirrored');
    const forModel = await api('/api/memory-manager', { body: { op: 'memory.get', sessionId: SID, args: { id, forModel: true } } });
    assert.equal((forModel.body.value as { code?: string }).code, 'MM_SET_ASIDE', 'a model (MCP) does not get it');
    assert.equal((await mm('memory.get', { id })).setAside, true, 'the person sees it set aside');
    assert.equal((await api('/api/v1/memory/exclusions/restore', { body: { turnIds: [t] } })).status, 200);
    await until(async () => !(((await mm('plan.get', {})).excluded as Record<string, string[]>)[SID] ?? []).includes(t), 'the restore mirrored');
    assert.equal((await mm('memory.get', { id })).setAside, undefined, 'restored, it is back');
  });

  it('K-2: forget over HTTP previews, then removes every trace; nothing brings it back', async () => {
    await mm('plan.pin', { role: 'user', text: 'Remember: the garage door code is 4711' });
    // A later turn was given the secret by recall (a fact distilled from it): its logged injection
    // names the turn as the fact's source, and must not keep the fact once the turn is forgotten.
    d.memory.graph.commit([{ subject: 'garage door', predicate: 'code', object: '4711', refs: [secretTurn] }]);
    const recalled = await turn('which garage door code did I tell you?', 'The one in your notes.');
    const given = JSON.stringify((await api(`/api/v1/sessions/${encodeURIComponent(SID)}/events?around=${encodeURIComponent(recalled)}`)).body);
    assert.match(given, /"source":"recall"[^]*4711/, 'the recall block of that turn holds the secret before the forget');
    const pre = await api('/api/v1/memory/forget/preview', { body: { query: '4711' } });
    assert.equal(pre.status, 200);
    const plan = pre.body.plan as { turns: { turnId: string; places: string[] }[]; facts: { id: number }[] };
    assert.deepEqual(plan.turns.map((t) => t.turnId), [secretTurn]);
    assert.ok(plan.turns[0].places.includes('session-log'));
    assert.match(await search('garage door code'), CODE_4711, 'a preview changes nothing');
    const res = await api('/api/v1/memory/forget', { body: { turnIds: plan.turns.map((t) => t.turnId), relationIds: plan.facts.map((f) => f.id) } });
    assert.equal(res.status, 200);
    const r = res.body.result as { turns: number; sessionEvents: number };
    assert.equal(r.turns, 1);
    assert.ok(r.sessionEvents >= 2);
    assert.doesNotMatch(await search('garage door code 4711'), CODE_4711);
    assert.doesNotMatch(await sessionLog(), CODE_4711, 'redacted in the session log');
    assert.match(await sessionLog(), /jasmine/, 'other turns stay');
    // The conversation was named after that message: its title goes too (named after the next one).
    const titled = (await api('/api/v1/sessions')).body.sessions as { id: string; title: string }[];
    assert.equal(titled.find((s) => s.id === SID)?.title, 'I like green tea with jasmine');
    for (const f of readdirSync(join(home, 'sessions'))) assert.doesNotMatch(readFileSync(join(home, 'sessions', f), 'utf8'), CODE_4711, f);
    assert.equal((await d.memory.reindex()).added, 0);
    await turn('Tell me the garage code again', 'I cannot.');
    assert.doesNotMatch(JSON.stringify(chats().at(-1)!.body), CODE_4711, 'in no prompt after the forget');
    assert.doesNotMatch(JSON.stringify((await api('/api/v1/memory/history?limit=1000')).body), CODE_4711);
    assert.equal(d.host.services.use('host.memory-control')!.isTombstoned(secretTurn), true);
    assert.doesNotMatch(JSON.stringify(await mm('plan.get', {})), CODE_4711, 'a pinned message quoting it goes too');
    assert.doesNotMatch(readFileSync(join(home, 'memory', 'pinned', 'plan.json'), 'utf8'), CODE_4711);
  });

  it('K-2: bad forget requests get coded errors; form bodies are refused by the guard', async () => {
    assert.equal((await api('/api/v1/memory/forget', { body: { turnIds: ['../../etc/passwd'] } })).status, 400);
    assert.equal((await api('/api/v1/memory/forget/preview', { body: {} })).status, 400);
    assert.equal((await api('/api/v1/memory/forget/preview', { body: { query: 'x'.repeat(3000) } })).status, 400);
    assert.equal((await api('/api/v1/memory/forget', { body: '{not json' })).status, 400);
    assert.equal((await api('/api/v1/memory/forget', { body: 'turnIds=x', type: 'application/x-www-form-urlencoded' })).status, 415);
    assert.match(await search('jasmine tea'), /jasmine/, 'nothing changed');
  });

  it('decision 0400: a reminder set in a forgotten turn goes with it — it would say the text again when it fired; a reminder of another turn stays', async () => {
    const timersFile = () => {
      const find = (dir: string): string | undefined => {
        for (const e of readdirSync(dir, { withFileTypes: true })) {
          const p = join(dir, e.name);
          if (e.isDirectory()) {
            const f = find(p);
            if (f) return f;
          } else if (e.name === 'timers.json') return p;
        }
        return undefined;
      };
      const f = find(home);
      return f ? (JSON.parse(readFileSync(f, 'utf8')) as { timers: { text: string; creator?: { turnId?: string } }[] }) : { timers: [] };
    };
    llm.enqueue({ toolCalls: [{ name: 'timer_create', arguments: { text: 'tell them the bike shed code is 8642', when: 'in 2 hours' } }] }, { text: 'I will remind you.' });
    const t1 = d.agent.injectInput({ sessionId: SID, source: 'webui', text: 'Remind me in two hours: the bike shed code is 8642' });
    assert.equal((await t1.done).status, 'ok');
    llm.enqueue({ toolCalls: [{ name: 'timer_create', arguments: { text: 'water the plants', when: 'in 3 hours' } }] }, { text: 'Sure.' });
    const t2 = d.agent.injectInput({ sessionId: SID, source: 'webui', text: 'Remind me to water the plants in three hours' });
    assert.equal((await t2.done).status, 'ok');
    assert.deepEqual(
      timersFile().timers.map((x) => [x.text, x.creator?.turnId]),
      [
        ['tell them the bike shed code is 8642', t1.turnId],
        ['water the plants', t2.turnId],
      ],
    );
    const res = await api('/api/v1/memory/forget', { body: { turnIds: [t1.turnId] } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((res.body.result as { elsewhere?: number }).elsewhere, 1, JSON.stringify(res.body));
    assert.deepEqual(timersFile().timers.map((x) => x.text), ['water the plants']);
  });

  it('K-3: a graph change is in the history with who made it; undo over HTTP puts it back', async () => {
    await d.host.services.use('host.memory')!.commitTriples([{ subject: 'Mochi', predicate: 'is_cat_of', object: 'user' }]);
    const hist = (await api('/api/v1/memory/history?subject=Mochi')).body.history as { id: string; op: string; actor: string }[];
    assert.equal(hist[0].op, 'create');
    assert.equal(hist[0].actor, 'user');
    const u = await api(`/api/v1/memory/history/${hist[0].id}/undo`, { body: {} });
    assert.equal(u.status, 200);
    assert.equal(d.memory.graph.matchingFacts(['mochi']).length, 0);
    assert.equal((await api(`/api/v1/memory/history/${hist[0].id}/undo`, { body: {} })).status, 409);
    assert.equal((await api('/api/v1/memory/history/abc/undo', { body: {} })).status, 400);
    assert.equal((await api('/api/v1/memory/history/99999/undo', { body: {} })).status, 404);
    // A fact the agent commits with its tool is the agent's, from its turn.
    llm.enqueue({ toolCalls: [{ name: 'memory_commit', arguments: { triples: [{ subject: 'Anna', predicate: 'works_at', object: 'Siemens' }] } }] }, { text: 'Saved.' });
    const outcome = await d.agent.injectInput({ sessionId: SID, source: 'webui', text: 'Anna works at Siemens, remember that' }).done;
    const byAgent = (await api('/api/v1/memory/history?subject=Siemens')).body.history as { actor: string; tool: string; turnId: string }[];
    assert.deepEqual([byAgent[0].actor, byAgent[0].tool, byAgent[0].turnId], ['agent', 'memory_commit', outcome.turnId]);
    // So is a library memory the agent saves with the memory-manager's tool (it was recorded as the user's).
    llm.enqueue({ toolCalls: [{ name: 'library_save', arguments: { title: 'Bike lock', snapshot: 'The bike lock code is 2468' } }] }, { text: 'Saved.' });
    const saved = await d.agent.injectInput({ sessionId: SID, source: 'webui', text: 'remember my bike lock code is 2468' }).done;
    const lib = (await api('/api/v1/memory/history?kind=memory')).body.history as { actor: string; tool: string; turnId: string; summary: string }[];
    assert.deepEqual([lib[0].actor, lib[0].tool, lib[0].turnId], ['agent', 'library_save', saved.turnId], JSON.stringify(lib[0]));
  });

  it('K-3: a memory file edited or deleted by hand (Obsidian, a sync tool) is in the history, and undo brings the deleted memory back', async () => {
    const saved = await mm('memory.save', { title: 'Tram pass', snapshot: 'The yearly tram pass renews in March.' });
    const id = String(saved.id);
    const file = (function find(dir: string): string | undefined {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) {
          const f = find(p);
          if (f) return f;
        } else if (e.name === `${id}.md`) return p;
      }
      return undefined;
    })(home)!;
    assert.ok(file, 'the memory file');
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^title: .*Tram pass.*$/m);
    writeFileSync(file, text.replace(/^title: .*$/m, 'title: Tram pass (edited)'));
    const history = async () => (await api(`/api/v1/memory/history?target=${id}`)).body.history as { id: string; op: string; actor: string; summary: string }[];
    await until(async () => (await history()).some((h) => h.op === 'update'));
    unlinkSync(file);
    await until(async () => (await history()).some((h) => h.op === 'delete'));
    const hist = await history();
    assert.deepEqual(hist.map((h) => h.op), ['delete', 'update', 'create']);
    assert.match(hist[0].summary, /deleted memory "Tram pass \(edited\)" in its file/);
    assert.equal(hist[0].actor, 'user');
    assert.equal((await mm('memory.get', { id })).code, 'NOT_FOUND');
    assert.equal((await api(`/api/v1/memory/history/${hist[0].id}/undo`, { body: {} })).status, 200);
    assert.equal((await mm('memory.get', { id })).snapshot, 'The yearly tram pass renews in March.');
    assert.ok(existsSync(file), 'undo wrote the file back');
  });

  it('K-3: library saves, edits and deletes are in the history; undo brings notes and a deleted memory back; forget removes a memory and its history', async () => {
    const saved = await mm('memory.save', { title: 'Bike shop', snapshot: 'The bike shop on Elm Street fixes Bromptons.', notes: 'first note' });
    const id = String(saved.id);
    await mm('memory.updateNotes', { id, notes: 'second note' });
    let hist = (await api(`/api/v1/memory/history?target=${id}`)).body.history as { id: string; op: string; actor: string }[];
    assert.deepEqual(hist.map((h) => h.op), ['update', 'create']);
    assert.equal((await api(`/api/v1/memory/history/${hist[0].id}/undo`, { body: {} })).status, 200);
    assert.equal((await mm('memory.get', { id })).notes, 'first note');
    await mm('memory.delete', { id });
    hist = (await api(`/api/v1/memory/history?target=${id}`)).body.history as { id: string; op: string; actor: string }[];
    assert.equal(hist[0].op, 'delete');
    assert.equal((await api(`/api/v1/memory/history/${hist[0].id}/undo`, { body: {} })).status, 200);
    assert.equal((await mm('memory.get', { id })).snapshot, 'The bike shop on Elm Street fixes Bromptons.');
    // The injection plan's changes too.
    await mm('plan.addMemory', { id });
    const planned = (await api('/api/v1/memory/history?target=plan')).body.history as { id: string; op: string }[];
    assert.equal(planned[0].op, 'addMemory');
    assert.equal((await api(`/api/v1/memory/history/${planned[0].id}/undo`, { body: {} })).status, 200);
    assert.deepEqual(((await mm('plan.get', {})).memories as unknown[]).length, 0);
    await mm('plan.addMemory', { id });
    // Forget: the memory goes (from the plan too), and no history entry keeps its text.
    const plan = (await api('/api/v1/memory/forget/preview', { body: { query: 'Elm Street' } })).body.plan as { memories: { id: string }[] };
    assert.deepEqual(plan.memories.map((m) => m.id), [id], 'library memories are listed for the person to choose');
    const fr = await api('/api/v1/memory/forget', { body: { memoryIds: [id] } });
    assert.equal(fr.status, 200, JSON.stringify(fr.body));
    assert.equal((fr.body.result as { memories: number }).memories, 1);
    assert.equal((await mm('memory.get', { id })).code, 'NOT_FOUND');
    assert.doesNotMatch(JSON.stringify((await api('/api/v1/memory/history?limit=1000')).body), /Elm Street|first note|Bike shop/);
    assert.deepEqual(((await mm('plan.get', {})).memories as unknown[]).length, 0);
  });

  it('memory_forget over MCP is refused without a WebUI to confirm; as an agent tool it asks, and forgets on yes', async () => {
    const mcp = new Client({ name: 'control-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${d.authToken}` } } }));
    const r = (await mcp.callTool({ name: 'memory_forget', arguments: { query: 'jasmine' } })) as CallToolResult;
    assert.equal((r.structuredContent as { forgotten: boolean }).forgotten, false);
    // Nobody was asked (no WebUI page open): said as such, not as a person's "no".
    const reason = (r.structuredContent as { reason: string }).reason;
    assert.match(reason, /nobody could be asked[\s\S]*no WebUI page is open[\s\S]*`waiter memory forget </);
    assert.doesNotMatch(reason, /did not confirm/);
    await mcp.close();
    assert.match(await search('jasmine tea'), /jasmine/, 'nothing forgotten silently');

    // The agent asks; the person sees the daemon's own preview and says yes in the WebUI.
    const ac = new AbortController();
    const sse = await fetch(`${d.url}/api/v1/events`, { signal: ac.signal, headers: { authorization: `Bearer ${d.authToken}` } });
    llm.enqueue({ toolCalls: [{ name: 'memory_forget', arguments: { query: 'jasmine' } }] }, { text: 'Forgotten.' });
    const t = d.agent.injectInput({ sessionId: 'webui:other', source: 'webui', text: 'please forget what I said about jasmine' });
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
    await t.done;
    assert.match(detail, /jasmine/, 'the dialog shows what will go');
    const toolMsg = JSON.stringify((chats().at(-1)!.body as { messages: { role: string }[] }).messages.filter((m) => m.role === 'tool').at(-1));
    assert.match(toolMsg, /forgotten\\?":true/);
    assert.doesNotMatch(await search('jasmine tea'), /jasmine/);
    const forget = (await api('/api/v1/memory/history?kind=forget')).body.history as { actor: string; tool: string }[];
    assert.equal(forget[0].actor, 'agent');
    assert.equal(forget[0].tool, 'memory_forget');
  });
});
