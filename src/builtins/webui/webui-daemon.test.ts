/**
 * The webui on the REAL daemon (`startDaemon`) with the fake LLM server over loopback: a chat
 * POST whose turn calls a tool, read back by a real SSE client (fetch streaming); and
 * `host.confirm` answered through the webui for `cmd_run` outside the allowlist.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../../daemon/index.js';
import { startTestDaemon } from '../../../test/fixtures/daemon.js';
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
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false, plugins: [tools] });
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

  it('host.confirm: refused at once when no WebUI client is connected (a headless daemon never hangs), saying nobody could be asked', async () => {
    const n = chats().length;
    llm.enqueue({ toolCalls: [{ name: 'cmd_run', arguments: { command: 'printf', args: ['headless-44'] } }] }, { text: 'done' });
    const res = await authedFetch(`${d.url}/api/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'run headless' }) }, d.authToken);
    assert.equal(res.status, 202);
    for (let i = 0; i < 250 && chats().length < n + 2; i++) await new Promise((r) => setTimeout(r, 20));
    assert.match(toolResultOf(), /refused to run \\?"printf\\?"[\s\S]*no WebUI page is open/);
    assert.doesNotMatch(toolResultOf(), /did not approve/, 'nobody said no: nobody was asked');
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

  // ---- history pages, deletions, resend, export (decision 0050) ----

  const api = (path: string, init: RequestInit = {}) => authedFetch(`${d.url}${path}`, { ...init, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) } }, d.authToken);
  const page = async (sid: string, q: string) => {
    const r = await api(`/api/v1/sessions/${encodeURIComponent(sid)}/events${q}`);
    assert.equal(r.status, 200, await r.clone().text());
    return (await r.json()) as { events: { seq: number; turnId: string; kind: string; text: string }[]; hasEarlier: boolean; hasLater: boolean; anchorSeq?: number };
  };
  const untilIdle = async () => {
    for (let i = 0; i < 400; i++) {
      const st = (await (await api('/api/v1/status')).json()) as { agent?: { busy?: boolean; queued?: number } };
      if (!st.agent?.busy && !st.agent?.queued) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the agent stayed busy');
  };

  it('status gives the time zone the daemon resolves: the setting, or this machine\'s when it is empty (decision 0270)', async () => {
    const zone = async () => ((await (await api('/api/v1/status')).json()) as { agent?: { timeZone?: string } }).agent?.timeZone;
    assert.equal(await zone(), Intl.DateTimeFormat().resolvedOptions().timeZone);
    await api('/api/v1/settings/core.agent.timezone', { method: 'PUT', body: JSON.stringify({ value: 'Pacific/Kiritimati' }) });
    try {
      assert.equal(await zone(), 'Pacific/Kiritimati');
    } finally {
      await api('/api/v1/settings/core.agent.timezone', { method: 'DELETE' });
    }
  });

  it('pages a history from its end, backwards, forwards and around a turn or seq; bad ranges are 400, unknown turns 404', async () => {
    const sid = 'webui:paged';
    await d.sessions.create({ channel: 'webui', id: sid, title: 'paged' });
    for (let n = 1; n <= 30; n++) {
      const turnId = `${sid}#${d.sessions.nextTurn(sid).turnSeq}`;
      await d.sessions.append(sid, { turnId, kind: 'user', text: `q${n}` });
      await d.sessions.append(sid, { turnId, kind: 'assistant', text: `a${n}`, data: { status: 'ok' } });
    }
    const last = await page(sid, '?limit=4');
    assert.deepEqual(last.events.map((e) => e.text), ['q29', 'a29', 'q30', 'a30']);
    assert.equal(last.hasEarlier, true);
    assert.equal(last.hasLater, false);
    const prev = await page(sid, `?before=${last.events[0].seq}&limit=4`);
    assert.deepEqual(prev.events.map((e) => e.text), ['q27', 'a27', 'q28', 'a28']);
    assert.equal(prev.hasLater, true);
    const first = await page(sid, '?before=5&limit=10');
    assert.deepEqual(first.events.map((e) => e.text), ['q1', 'a1', 'q2', 'a2']);
    assert.equal(first.hasEarlier, false);
    const fwd = await page(sid, '?afterSeq=58&limit=10');
    assert.deepEqual(fwd.events.map((e) => e.text), ['q30', 'a30']);
    assert.equal(fwd.hasEarlier, true);
    assert.equal(fwd.hasLater, false);
    const around = await page(sid, `?around=${encodeURIComponent(`${sid}#10`)}&limit=6`);
    assert.equal(around.anchorSeq, 19);
    assert.deepEqual(around.events.map((e) => e.text), ['a8', 'q9', 'a9', 'q10', 'a10', 'q11'], 'half before the turn, half from it');
    assert.equal(around.hasEarlier && around.hasLater, true);
    assert.deepEqual((await page(sid, '?around=1&limit=4')).events.map((e) => e.text), ['q1', 'a1', 'q2', 'a2']);
    for (const [q, status] of [['?limit=0', 400], ['?before=abc', 400], ['?before=3&afterSeq=1', 400], [`?around=1&before=3`, 400], ['?around=webui%3Aother%231', 400], [`?around=${encodeURIComponent(`${sid}#99`)}`, 404], ['?around=999', 404]] as const) {
      const r = await api(`/api/v1/sessions/${encodeURIComponent(sid)}/events${q}`);
      assert.equal(r.status, status, q);
      assert.equal(((await r.json()) as { ok: boolean }).ok, false);
    }
    assert.equal((await api('/api/v1/sessions/webui%3Anope/events')).status, 404);
  });

  it('deletes a reply and a turn, regenerates and edits-and-resends (later turns go), exports Markdown, deletes the session', async () => {
    llm.enqueue({ text: 'the answer is forty-two' }, { text: 'second answer' }, { text: 'third answer' });
    const r1 = await api('/api/v1/chat', { method: 'POST', body: JSON.stringify({ text: 'first question' }) });
    const { sessionId: sid, turnId: t1 } = (await r1.json()) as { sessionId: string; turnId: string };
    await untilIdle();
    const t2 = ((await (await api('/api/v1/chat', { method: 'POST', body: JSON.stringify({ sessionId: sid, text: 'second question' }) })).json()) as { turnId: string }).turnId;
    await untilIdle();
    const t3 = ((await (await api('/api/v1/chat', { method: 'POST', body: JSON.stringify({ sessionId: sid, text: 'third question' }) })).json()) as { turnId: string }).turnId;
    await untilIdle();
    const enc = encodeURIComponent;
    // delete the reply of turn 3, then all of turn 2
    assert.equal((await api(`/api/v1/sessions/${enc(sid)}/turns/${enc(t3)}/reply`, { method: 'DELETE' })).status, 200);
    assert.equal((await api(`/api/v1/sessions/${enc(sid)}/turns/${enc(t2)}`, { method: 'DELETE' })).status, 200);
    let evs = (await page(sid, '')).events;
    assert.deepEqual(evs.filter((e) => e.kind === 'user' || e.kind === 'assistant').map((e) => e.text), ['first question', 'the answer is forty-two', 'third question']);
    assert.equal((await api(`/api/v1/sessions/${enc(sid)}/turns/${enc(`${sid}#77`)}`, { method: 'DELETE' })).status, 404);
    assert.equal((await api(`/api/v1/sessions/${enc(sid)}/turns/${enc('webui:other#1')}`, { method: 'DELETE' })).status, 400);
    // the export holds what the chat shows
    const md = await api(`/api/v1/sessions/${enc(sid)}/export`);
    assert.equal(md.headers.get('content-type'), 'text/markdown; charset=utf-8');
    assert.match(md.headers.get('content-disposition') ?? '', /attachment; filename=/);
    const text = await md.text();
    assert.match(text, /## 1\. You[\s\S]*first question[\s\S]*forty-two[\s\S]*## 2\. You[\s\S]*third question/);
    assert.doesNotMatch(text, /second|third answer/);
    // regenerate the first turn: it and the later turn 3 are deleted, the question is asked again
    llm.enqueue({ text: 'a fresh answer' });
    const regen = await api(`/api/v1/sessions/${enc(sid)}/turns/${enc(t1)}/resend`, { method: 'POST', body: '{}' });
    assert.equal(regen.status, 202);
    const rj = (await regen.json()) as { turnId: string; deleted: string[]; replaced?: string[] };
    assert.deepEqual(rj.deleted, [t1, t3]);
    // The turn it replaces leaves memory (decision 0550); the later ones stay, as deleted messages do.
    assert.deepEqual(rj.replaced, [t1]);
    await untilIdle();
    const saidInMemory = (text: string) => d.memory.context.events().filter((e) => e.input === text && e.kind === 'user').map((e) => e.refs?.[0]);
    assert.deepEqual(saidInMemory('first question'), [rj.turnId], 'the regenerated message is in memory once, as the new turn');
    assert.deepEqual(saidInMemory('third question'), [t3]);
    const system = JSON.stringify((chats().at(-1)!.body as { messages: { role: string; content: string }[] }).messages[0].content);
    assert.doesNotMatch(system, /forty-two/, 'the regenerated turn does not see the answer it replaces');
    evs = (await page(sid, '')).events;
    assert.deepEqual(evs.filter((e) => e.kind === 'user' || e.kind === 'assistant').map((e) => e.text), ['first question', 'a fresh answer']);
    assert.equal(evs[0].turnId, rj.turnId);
    // edit and resend
    llm.enqueue({ text: 'edited answer' });
    const edit = await api(`/api/v1/sessions/${enc(sid)}/turns/${enc(rj.turnId)}/resend`, { method: 'POST', body: JSON.stringify({ text: 'an edited question' }) });
    assert.equal(edit.status, 202);
    await untilIdle();
    evs = (await page(sid, '')).events;
    assert.deepEqual(evs.filter((e) => e.kind === 'user' || e.kind === 'assistant').map((e) => e.text), ['an edited question', 'edited answer']);
    // Edited, only the new wording is remembered.
    assert.deepEqual(saidInMemory('first question'), []);
    assert.equal(saidInMemory('an edited question').length, 1);
    assert.equal((await api(`/api/v1/sessions/${enc(sid)}/turns/${enc(t1)}/resend`, { method: 'POST', body: '{}' })).status, 404, 'a deleted turn cannot be sent again');
    assert.equal((await api(`/api/v1/sessions/${enc(sid)}/turns/${enc(rj.turnId)}/resend`, { method: 'POST', body: JSON.stringify({ text: 5 }) })).status, 400);
    // a session with a running turn is not deleted under the agent
    llm.enqueue({ text: 'slow answer', delayMs: 600 });
    await api('/api/v1/chat', { method: 'POST', body: JSON.stringify({ sessionId: sid, text: 'slow' }) });
    for (let i = 0; i < 100 && !(((await (await api('/api/v1/status')).json()) as { agent?: { busy?: boolean } }).agent?.busy); i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal((await api(`/api/v1/sessions/${enc(sid)}`, { method: 'DELETE' })).status, 409);
    await untilIdle();
    assert.equal((await api(`/api/v1/sessions/${enc(sid)}`, { method: 'DELETE' })).status, 200);
    const list = (await (await api('/api/v1/sessions')).json()) as { sessions: { id: string }[] };
    assert.ok(!list.sessions.some((x) => x.id === sid));
    assert.equal((await api(`/api/v1/sessions/${enc(sid)}/events`)).status, 404);
    assert.equal((await api(`/api/v1/sessions/${enc(sid)}`, { method: 'DELETE' })).status, 404);
  });

  it('memory_changed reaches the event stream from every surface — coalesced per kind, with who, never the text (decision 0260)', async () => {
    const ac = new AbortController();
    const sse = await authedFetch(`${d.url}/api/v1/events`, { signal: ac.signal }, d.authToken);
    const changes = (evs: { event: string; payload: Record<string, unknown> }[]) => evs.filter((e) => e.event === 'memory_changed').map((e) => e.payload as { kind: string; actors: string[]; ids?: string[] });
    // The library through the memory manager's API, a burst of 50 facts, a people link.
    const saved = await api('/api/memory-manager', { method: 'POST', body: JSON.stringify({ op: 'memory.save', args: { title: 'Locker', snapshot: 'the locker code is 9137' } }) });
    const id = ((await saved.json()) as { value: { id: string } }).value.id;
    await Promise.all(Array.from({ length: 50 }, (_, i) => d.memory.memoryAPI().commit([{ subject: 'user', predicate: 'likes', object: `Zanzibarfruit ${i}` }])));
    assert.equal((await api('/api/v1/people/link', { method: 'POST', body: JSON.stringify({ ids: ['telegram:9137'], name: 'Quentin' }) })).status, 200);
    // A memory file edited by hand (Obsidian): the library's watcher sees it; the history does not record it.
    const file = join(home, 'memory', 'memories', 'hand-edited.md');
    // The watcher may start after a first write: write again every 400 ms until it is seen.
    let tries = 0;
    const write = () => writeFileSync(file, `---\ntitle: "Hand ${++tries}"\n---\n## 快照\n\nwritten by hand ${tries}: the shed key is under the 9137 stone\n\n<!-- notes -->\n`);
    write();
    const again = setInterval(() => tries < 25 && write(), 400);
    const evs = await readSse(sse, (e) => {
      const c = changes(e);
      // The hand edit's event carries no id: its file name is the person's text (`hand-edited`).
      return c.some((x) => x.kind === 'memory' && x.ids === undefined) && c.some((x) => x.kind === 'relation') && c.some((x) => x.kind === 'people');
    }).finally(() => clearInterval(again));
    ac.abort();
    const c = changes(evs);
    assert.equal(c.filter((x) => x.kind === 'relation').length, 1, `50 facts are one relation event: ${JSON.stringify(c)}`);
    assert.ok(c.every((x) => Array.isArray(x.actors) && x.actors.every((a) => ['user', 'agent', 'heartbeat', 'import', 'mcp', 'plugin'].includes(a))));
    const wire = JSON.stringify(evs.filter((e) => e.event === 'memory_changed'));
    for (const text of ['9137', 'locker', 'Locker', 'Zanzibarfruit', 'Quentin', 'shed key', 'Hand ', 'hand-edited']) assert.ok(!wire.includes(text), `${text} went over the event stream: ${wire}`);
    // Only generated ids go (the API save's, when it had its own window).
    assert.ok(c.filter((x) => x.kind === 'memory' && x.ids).every((x) => x.ids!.every((i) => i === id)), JSON.stringify(c));
  });

  it('a resent message carries its files read back from media/ only (a path elsewhere in the log, or a link in media/ leading out, is ignored)', async () => {
    const sid = 'webui:files-resend';
    mkdirSync(join(home, 'media', '2026-01-01'), { recursive: true });
    writeFileSync(join(home, 'media', '2026-01-01', 'note.txt'), 'MEDIA-NOTE-CONTENT');
    // A link inside media/ that leads to the install's secret, and a linked folder: not followed.
    symlinkSync(join(home, 'auth-token'), join(home, 'media', '2026-01-01', 'link.txt'));
    symlinkSync(home, join(home, 'media', 'home-link'));
    await d.sessions.create({ channel: 'webui', id: sid });
    const turnId = `${sid}#${d.sessions.nextTurn(sid).turnSeq}`;
    await d.sessions.append(sid, {
      turnId,
      kind: 'user',
      text: 'read these',
      data: { attachments: [{ name: 'note.txt', mimeType: 'text/plain', path: 'media/2026-01-01/note.txt' }, { name: 'token.txt', mimeType: 'text/plain', path: 'auth-token' }, { name: 'up.txt', mimeType: 'text/plain', path: 'media/../auth-token' }, { name: 'link.txt', mimeType: 'text/plain', path: 'media/2026-01-01/link.txt' }, { name: 'dir.txt', mimeType: 'text/plain', path: 'media/home-link/auth-token' }] },
    });
    llm.enqueue({ text: 'read them' });
    const r = await api(`/api/v1/sessions/${encodeURIComponent(sid)}/turns/${encodeURIComponent(turnId)}/resend`, { method: 'POST', body: '{}' });
    assert.equal(r.status, 202, await r.clone().text());
    await untilIdle();
    const sent = JSON.stringify((chats().at(-1)!.body as { messages: unknown[] }).messages.at(-1));
    assert.match(sent, /MEDIA-NOTE-CONTENT/);
    assert.ok(!sent.includes(d.authToken), 'the install secret never reaches the model');
  });

  it('decision 0270: with core.agent.timezone set, the model and the exported chat read the person’s wall clock; Mars/Olympus is refused', async () => {
    const key = '/api/v1/settings/core.agent.timezone';
    const bad = await api(key, { method: 'PUT', body: JSON.stringify({ value: 'Mars/Olympus' }) });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /unknown time zone/);
    assert.equal((await api(key, { method: 'PUT', body: JSON.stringify({ value: 'Asia/Shanghai' }) })).status, 200);
    try {
      // Shanghai has no daylight saving: its wall clock is UTC + 8 h (computed here without our formatter).
      const shanghai = (ms: number) => new Date(ms + 8 * 3_600_000);
      const stamp = (ms: number) => shanghai(ms).toISOString().slice(0, 16).replace('T', ' ');
      const before = Date.now();
      llm.enqueue({ text: 'noted' });
      const r = await api('/api/v1/chat', { method: 'POST', body: JSON.stringify({ text: 'remind me at 9 tonight' }) });
      const { sessionId: sid } = (await r.json()) as { sessionId: string };
      await untilIdle();
      const after = Date.now();
      const system = String((chats().at(-1)!.body as { messages: { content: unknown }[] }).messages[0].content);
      const m = /Current time: (\d{4}-\d\d-\d\d \d\d:\d\d) \((\w+)\), Asia\/Shanghai \(UTC\+08:00\)/.exec(system);
      assert.ok(m, system.slice(-200));
      assert.ok([stamp(before), stamp(after)].includes(m[1]), `${m[1]} is Shanghai's wall clock now (${stamp(before)})`);
      const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
      assert.ok([days[shanghai(before).getUTCDay()], days[shanghai(after).getUTCDay()]].includes(m[2]), m[2]);
      // The exported chat: each turn at the person's wall clock, the zone named.
      const events = (await page(sid, '')).events as unknown as { kind: string; at: number }[];
      const said = events.find((e) => e.kind === 'user')!.at;
      const md = await (await api(`/api/v1/sessions/${encodeURIComponent(sid)}/export`)).text();
      assert.ok(md.includes(`## 1. You · ${stamp(said)}\n`), md);
      assert.match(md, /^- Times: Asia\/Shanghai$/m);
      assert.match(md, /^- Started: \d{4}-\d\d-\d\d \d\d:\d\d UTC\+08:00$/m);
    } finally {
      await api(key, { method: 'DELETE' });
    }
  });
});
