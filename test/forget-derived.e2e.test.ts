/**
 * Decision 0430 on the REAL daemon, with the fake LLM server over loopback: what was made from a
 * forgotten turn, and what keeps a copy of it in memory, goes with it.
 * - A session summary of the turn (a library memory whose source is its events) is listed in the
 *   preview as made from it, goes with it (as the clients send it), and reaches no later prompt.
 * - The WebUI's event buffer does not send the forgotten turn again to a client that reconnects
 *   with `Last-Event-ID`.
 * - The OpenAI-compatible API does not answer a retry with the forgotten reply.
 * - Forgetting a library memory the agent wrote takes its copies (the tool call that saved it), not
 *   a person's message that happens to hold the same words.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import { readSse } from '../src/builtins/webui/__fixtures__/read-sse.js';
import { DaemonClient } from '../src/waiter/daemon-client.js';

const SID = 'webui:derived';
const SECRET = 'zebra-quokka-7731';

describe('forget takes what was made from the turn (decision 0430)', { timeout: 120_000 }, () => {
  let llm: FakeLlm;
  let d: Daemon;
  let home: string;
  const headers = () => ({ authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' });
  const api = async (path: string, body?: unknown) => {
    const res = await fetch(`${d.url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: headers(), body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const mm = async (op: string, args: Record<string, unknown>, sessionId = SID) => (await api('/api/memory-manager', { op, sessionId, args })).body.value as Record<string, unknown>;
  const chats = () => llm.requests.filter((r) => r.path.endsWith('/chat/completions'));
  const turn = async (text: string, reply: string, sessionId = SID) => {
    llm.enqueue({ text: reply });
    const outcome = await d.agent.injectInput({ sessionId, source: 'webui', text }).done;
    assert.equal(outcome.status, 'ok');
    return outcome.turnId;
  };
  const filesHolding = (needle: string) => {
    const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
    return walk(home).filter((f) => {
      try {
        return readFileSync(f).includes(Buffer.from(needle));
      } catch {
        return false;
      }
    });
  };

  before(async () => {
    llm = await startFakeLlm();
    home = mkdtempSync(join(tmpdir(), 'ha-forget-derived-'));
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('a session summary of the forgotten turn is listed as made from it, goes with it, and reaches no later prompt; the event buffer forgets it too', async () => {
    const kept = await turn('Hello, I want to tell you something about my week', 'Sure, go ahead.');
    // A summary of that turn: made from events that stay, it stays.
    llm.enqueue({ text: JSON.stringify({ user: 'wants to talk about the week', thinking: 'listen', processing: 'asked', result: 'listening' }) });
    const other = (await mm('session.summarize', { lastN: 1 })) as { summaries: { id: string }[] };
    const secret = await turn(`My vault passphrase is ${SECRET}, remember it`, `Noted: your vault passphrase is ${SECRET}.`);
    // A summary of the secret turn, which quotes it (summaries are injected into every new session).
    llm.enqueue({ text: JSON.stringify({ user: `told the vault passphrase ${SECRET}`, thinking: 'keep it', processing: 'confirmed', result: `remembered ${SECRET}` }) });
    const sum = (await mm('session.summarize', { lastN: 1 })) as { count: number; summaries: { id: string; source?: unknown }[] };
    assert.equal(sum.count, 1);
    assert.ok(other.summaries[0].id !== sum.summaries[0].id);
    assert.ok(filesHolding(SECRET).some((f) => f.includes(`${join('memory', 'memories')}`)), 'the summary is a memory file');

    const plan = (await api('/api/v1/memory/forget/preview', { turnIds: [secret] })).body.plan as { memories: { id: string; madeFrom?: boolean }[] };
    assert.deepEqual(
      plan.memories.map((m) => [m.id, m.madeFrom]),
      [[sum.summaries[0].id, true]],
      'the summary of the turn is listed as going with it; the summary of turns that stay is not',
    );
    // What every client sends after the preview (the WebUI ticks it, waiter and memory_forget include it).
    const res = await api('/api/v1/memory/forget', { turnIds: [secret], memoryIds: plan.memories.filter((m) => m.madeFrom).map((m) => m.id) });
    assert.equal(res.status, 200);
    assert.equal((res.body.result as { memories: number }).memories, 1);

    const ids = ((await mm('memory.list', {})) as { items: { id: string }[] }).items.map((m) => m.id);
    assert.ok(!ids.includes(sum.summaries[0].id), 'the summary of the forgotten turn is gone');
    assert.ok(ids.includes(other.summaries[0].id), 'the other summary stays');
    assert.deepEqual(filesHolding(SECRET), [], 'no file of the data folder holds it');
    // A new session: summaries are injected into it, this one is not.
    await turn('What is new today?', 'Nothing much.', 'webui:later');
    assert.doesNotMatch(JSON.stringify(chats().at(-1)!.body), new RegExp(SECRET), 'the forgotten summary reaches no prompt');
    assert.deepEqual(filesHolding(SECRET), []);

    // The event stream: a client reconnecting from the start is not sent the forgotten turn.
    const sse = await fetch(`${d.url}/api/v1/events`, { headers: { authorization: `Bearer ${d.authToken}`, 'last-event-id': '1' } });
    const done = turn('And tomorrow?', 'We will see.', 'webui:later');
    const evs = await readSse(sse, (e) => e.some((x) => x.event === 'turn_end' && JSON.stringify(x.payload).includes('We will see.')));
    await done;
    assert.ok(evs.some((e) => e.payload?.turnId === kept), 'the buffer is replayed (the kept turn is in it)');
    assert.ok(!evs.some((e) => e.payload?.turnId === secret), 'no event of the forgotten turn is replayed');
    assert.doesNotMatch(JSON.stringify(evs), new RegExp(SECRET));
  });

  it('the OpenAI-compatible API answers no retry with a forgotten reply', async () => {
    const models = (await (await fetch(`${d.url}/v1/models`, { headers: headers() })).json()) as { data: { id: string }[] };
    const body = JSON.stringify({ model: models.data[0].id, messages: [{ role: 'user', content: `The safe combination is ${SECRET}` }] });
    const ask = () => fetch(`${d.url}/v1/chat/completions`, { method: 'POST', headers: { ...headers(), 'idempotency-key': 'k-forget-1' }, body });
    llm.enqueue({ text: `Noted: the safe combination is ${SECRET}.` });
    const first = await ask();
    const turnId = first.headers.get('x-homeagent-turn')!;
    assert.match(await first.text(), new RegExp(SECRET));
    const n = chats().length;
    const retry = await ask();
    assert.match(await retry.text(), new RegExp(SECRET), 'before the forget a retry gets the kept answer');
    assert.equal(chats().length, n, 'without a new turn');

    assert.equal((await api('/api/v1/memory/forget', { turnIds: [turnId] })).status, 200);
    llm.enqueue({ text: 'A new answer.' });
    const after = await (await ask()).text();
    assert.doesNotMatch(after, new RegExp(`Noted: the safe combination is ${SECRET}`), 'the kept answer went with the turn');
    assert.equal(chats().length, n + 1, 'the retry is a new request');
  });

  it('forgetting a memory the agent wrote takes its copies, not a person’s message with the same words', async () => {
    llm.enqueue({ toolCalls: [{ name: 'library_save', arguments: { title: 'Gratitude', snapshot: 'thanks so much for your help' } }] }, { text: 'Saved.' });
    const saved = await d.agent.injectInput({ sessionId: SID, source: 'webui', text: 'save a note please' }).done;
    const lena = await turn('My daughter Lena starts school on Monday, thanks so much for your help', 'Good luck to Lena!');
    const mem = ((await mm('memory.list', {})) as { items: { id: string; title: string }[] }).items.find((m) => m.title === 'Gratitude')!;
    const plan = (await api('/api/v1/memory/forget/preview', { memoryIds: [mem.id] })).body.plan as { turns: unknown[]; memories: { id: string }[] };
    assert.deepEqual(plan.turns, [], 'the preview lists no turn');
    assert.equal((await api('/api/v1/memory/forget', { memoryIds: [mem.id] })).status, 200);
    const events = ((await api(`/api/v1/sessions/${encodeURIComponent(SID)}/events?limit=500`)).body.events as { turnId: string; kind: string; text: string; data?: Record<string, unknown> }[]) ?? [];
    const lenaMsg = events.find((e) => e.turnId === lena && e.kind === 'user');
    assert.equal(lenaMsg?.text, 'My daughter Lena starts school on Monday, thanks so much for your help', 'the person’s message was not listed: it stays');
    const saveEvents = events.filter((e) => e.turnId === saved.turnId && (e.kind === 'tool_call' || e.kind === 'tool_result'));
    assert.ok(saveEvents.length > 0);
    assert.doesNotMatch(JSON.stringify(saveEvents), /thanks so much for your help/, 'the tool call that saved the memory is a copy of it: redacted');
    assert.ok(readFileSync(join(home, 'logs', 'text.jsonl'), 'utf8').includes('Lena starts school'), 'the text log keeps the message');
  });
  it('waiter memory forget --keep keeps a summary made from the turn; a mistyped --keep forgets nothing', async () => {
    const { main } = await import('../src/waiter/main.js');
    const waiter = async (...args: string[]) => {
      let out = '';
      let err = '';
      const code = await main(['node', 'waiter', '--home', home, ...args], { out: (t) => void (out += t), err: (t) => void (err += t) });
      process.exitCode = undefined; // main reports through it; this process is the test's
      return { code, out, err };
    };
    const said = await turn('My bike lock number is 60417', 'Noted, 60417.', 'webui:keep');
    llm.enqueue({ text: JSON.stringify({ user: 'told the bike lock number', thinking: 'keep it', processing: 'noted', result: 'a bike lock' }) });
    const sum = (await mm('session.summarize', { lastN: 1 }, 'webui:keep')) as { summaries: { id: string }[] };
    const id = sum.summaries[0].id;
    // A mistyped id keeps nothing: refused before anything goes.
    const typo = await waiter('memory', 'forget', '--turn', said, '--keep', 'no-such-memory', '--yes');
    assert.equal(typo.code, 2);
    assert.match(typo.err, /--keep no-such-memory: no such library memory/);
    assert.equal(((await api('/api/v1/memory/forget/preview', { turnIds: [said] })).body.plan as { turns: unknown[] }).turns.length, 1, 'the turn is still there');
    const kept = await waiter('memory', 'forget', '--turn', said, '--keep', id, '--yes');
    assert.equal(kept.code, 0, kept.err);
    assert.match(kept.out, new RegExp(`made from what is forgotten \\(1\\)[^\\n]*\\n {2}${id}[^\\n]*\\(kept: --keep\\)`));
    assert.match(kept.out, /forgotten: turns 1/);
    assert.doesNotMatch(kept.out, /memories 1/);
    const ids = ((await mm('memory.list', {})) as { items: { id: string }[] }).items.map((m) => m.id);
    assert.ok(ids.includes(id), 'the summary the person kept stays');
    assert.equal((await waiter('memory', 'forget', '--memory', id, '--keep', id)).code, 2, 'to forget and to keep at once is a usage error');
  });
  it('a summary of later turns named after the forgotten first message is renamed after the session id; it stays, and no file holds the message', async () => {
    const sid = 'webui:derived-title';
    const first = await turn('Keep this: my bike lock is 9182-OTTER', 'Noted the bike lock.', sid);
    await turn('What should I cook tonight?', 'Try a risotto.', sid);
    llm.enqueue({ text: JSON.stringify({ user: 'asked what to cook', thinking: 'simple', processing: 'suggested', result: 'risotto' }) });
    const made = (await mm('session.summarize', { lastN: 1 }, sid)) as { summaries: { id: string; title: string }[] };
    assert.match(made.summaries[0].title, /^会话总结（Keep this: my bike lock is 9182-OTTER · 轮次 2-2）$/, 'the session is named after its first message');
    const plan = (await api('/api/v1/memory/forget/preview', { turnIds: [first] })).body.plan as { memories: unknown[] };
    assert.deepEqual(plan.memories, [], 'not made from the forgotten turn: it is not listed and it stays');
    assert.equal((await api('/api/v1/memory/forget', { turnIds: [first] })).status, 200);
    const after = (await mm('memory.get', { id: made.summaries[0].id }, sid)) as { title: string; snapshot: string };
    assert.equal(after.title, `会话总结（${sid} · 轮次 2-2）`);
    assert.match(after.snapshot, /risotto/);
    assert.deepEqual(filesHolding('9182-OTTER'), []);
  });
  it('(review) a summary of another conversation whose name a forgotten message merely contains ("Hi") keeps its name; the renamed summary’s history holds no trace of the message', async () => {
    await turn('Hi', 'Hello!', 'webui:derived-hi');
    llm.enqueue({ text: JSON.stringify({ user: 'greeted', thinking: 't', processing: 'p', result: 'r' }) });
    const hi = ((await mm('session.summarize', { lastN: 1 }, 'webui:derived-hi')) as { summaries: { id: string; title: string }[] }).summaries[0];
    const long = 'Hi again, the garage door code is 5531-PLUM and the shed key hangs behind the fuse box';
    const first = await turn(long, 'Noted.', 'webui:derived-long');
    await turn('What should I cook tonight?', 'Risotto.', 'webui:derived-long');
    llm.enqueue({ text: JSON.stringify({ user: 'asked what to cook', thinking: 't', processing: 'p', result: 'risotto' }) });
    const sum = ((await mm('session.summarize', { lastN: 1 }, 'webui:derived-long')) as { summaries: { id: string; title: string }[] }).summaries[0];
    assert.match(sum.title, /garage door code is…/);
    assert.equal((await api('/api/v1/memory/forget', { turnIds: [first] })).status, 200);
    assert.equal(((await mm('memory.get', { id: hi.id }, 'webui:derived-hi')) as { title: string }).title, hi.title, 'another conversation’s summary keeps its name');
    assert.equal(((await mm('memory.get', { id: sum.id }, 'webui:derived-long')) as { title: string }).title, '会话总结（webui:derived-long · 轮次 2-2）');
    const history = JSON.stringify((await api('/api/v1/memory/history?limit=1000')).body);
    assert.doesNotMatch(history, /garage door code/, 'the summary’s “saved memory …” entry held the cut message');
    assert.deepEqual(filesHolding('5531-PLUM'), []);
    // The other summary's history is intact: its creation can still be undone.
    const entry = ((await api(`/api/v1/memory/history?target=${encodeURIComponent(hi.id)}`)).body.history as { id: string; summary: string }[])[0];
    assert.match(entry.summary, /saved memory/);
  });

  it('a memory composed of one that goes (and one composed of that) is listed as made from it and goes too — forgetting the memory or the turn it was saved from; one composed of memories that stay stays', async () => {
    const op = async (name: string, args: Record<string, unknown>) => (await api('/api/memory-manager', { op: name, sessionId: SID, args })).body.value as { id: string };
    const ids = async () => ((await mm('memory.list', {})) as { items: { id: string }[] }).items.map((m) => m.id);
    type Plan = { memories: { id: string; madeFrom?: boolean }[] };
    // By the memory: "Pet" is composed into "About Alice", which is composed into "Everything".
    const pet = await op('memory.save', { title: 'Pet', snapshot: 'I have a dog called Rex-4471.' });
    const food = await op('memory.save', { title: 'Food', snapshot: 'I like pears.' });
    const about = await op('memory.compose', { ids: [pet.id, food.id], title: 'About Alice' });
    const everything = await op('memory.compose', { ids: [about.id], title: 'Everything' });
    const onlyFood = await op('memory.compose', { ids: [food.id], title: 'Only food' });
    assert.ok(filesHolding('Rex-4471').length >= 3, 'the composed memories copied the text');
    const plan = (await api('/api/v1/memory/forget/preview', { memoryIds: [pet.id] })).body.plan as Plan;
    assert.deepEqual(
      plan.memories.map((m) => [m.id, !!m.madeFrom]).sort(),
      [[pet.id, false], [about.id, true], [everything.id, true]].sort(),
      'the memories composed of it are listed as made from it; "Only food" is not',
    );
    const res = await api('/api/v1/memory/forget', { memoryIds: plan.memories.map((m) => m.id) });
    assert.equal(res.status, 200);
    const left = await ids();
    for (const gone of [pet.id, about.id, everything.id]) assert.ok(!left.includes(gone), `${gone} is gone`);
    for (const stays of [food.id, onlyFood.id]) assert.ok(left.includes(stays), `${stays} stays`);
    assert.deepEqual(filesHolding('Rex-4471'), [], 'no file of the data folder holds it');

    // By the turn: a message saved from it, and a memory composed of that message.
    const sid = 'webui:derived-composed';
    const said = await turn('My locker code is 8830-HERON', 'Noted.', sid);
    const events = (await api(`/api/v1/sessions/${encodeURIComponent(sid)}/events?limit=50`)).body.events as { seq: number; turnId: string; kind: string }[];
    const seqs = events.filter((e) => e.turnId === said && e.kind === 'user').map((e) => e.seq);
    const saved = await op('memory.save', { title: 'Locker', snapshot: 'My locker code is 8830-HERON', source: { sessionId: sid, seqs } });
    const composed = await op('memory.compose', { ids: [saved.id, food.id], title: 'Codes and food' });
    const byTurn = (await api('/api/v1/memory/forget/preview', { turnIds: [said] })).body.plan as Plan;
    assert.deepEqual(byTurn.memories.map((m) => [m.id, !!m.madeFrom]).sort(), [[saved.id, true], [composed.id, true]].sort());
    // What waiter, memory_forget and the WebUI send: the turn with what is made from it.
    assert.equal((await api('/api/v1/memory/forget', { turnIds: [said], memoryIds: byTurn.memories.filter((m) => m.madeFrom).map((m) => m.id) })).status, 200);
    const after = await ids();
    assert.ok(!after.includes(saved.id) && !after.includes(composed.id));
    assert.ok(after.includes(food.id));
    assert.deepEqual(filesHolding('8830-HERON'), []);
  });

  it('(review) forgetting a hand-named memory ("work") leaves the history of another memory tagged "work"; the plan entries naming it by id go', async () => {
    const save = async (args: Record<string, unknown>) => (await api('/api/memory-manager', { op: 'memory.save', sessionId: SID, args })).body.value as { id: string };
    const work = await save({ id: 'work', title: 'Work', snapshot: 'The office opens at 8.' });
    const other = await save({ title: 'Holiday plan for August', snapshot: 'Two weeks in Porto.', tags: ['work'] });
    await api('/api/memory-manager', { op: 'plan.addMemory', sessionId: SID, args: { id: work.id } });
    assert.equal((await api('/api/v1/memory/forget', { memoryIds: [work.id] })).status, 200);
    const history = (await api('/api/v1/memory/history?limit=1000')).body.history as { target: string; summary: string; before?: unknown; after?: unknown }[];
    assert.match(history.find((h) => h.target === other.id)?.summary ?? '', /Holiday plan for August/, 'the other memory’s entry stays');
    assert.ok(!history.some((h) => h.target === 'plan' && JSON.stringify([h.before, h.after]).includes('"id":"work"')), 'no plan entry names the forgotten memory');
  });

  it('forgetting a knowledge entry takes its copies: the injection that carried it and a search result quoting a snippet of it (found by a new-user walk)', async () => {
    const SECRET_KB = 'hunter2-quokka-5541';
    const content = `# Wifi\n\nThe wifi password is ${SECRET_KB}. Guests use the other network,\nwhose password is on the fridge.\n\nThe router sits in the hall cupboard.`;
    const put = await fetch(`${d.url}/api/v1/memory/knowledge/wifi`, { method: 'PUT', headers: headers(), body: JSON.stringify({ content }) });
    assert.equal(put.status, 200, await put.text());
    const sid = 'webui:derived-kb';
    // The knowledge slot injects a snippet of the entry into this turn (【知识库】, logged as an injection).
    const asked = await turn('what is the wifi password again?', 'It is in your notes.', sid);
    // The agent searches the knowledge base: its result quotes a snippet (white space flattened, "…" at a cut).
    llm.enqueue({ toolCalls: [{ name: 'knowledge_search', arguments: { query: 'guests network fridge' } }] }, { text: 'Guests use the other network.' });
    const out = await d.agent.injectInput({ sessionId: sid, source: 'webui', text: 'and for guests?' }).done;
    assert.equal(out.status, 'ok');
    const log = () => readFileSync(join(home, 'sessions', `${encodeURIComponent(sid)}.jsonl`), 'utf8');
    assert.match(log(), new RegExp(SECRET_KB), 'the injection holds the entry');
    assert.match(log(), /fridge/, 'the search result quotes it');

    const plan = (await api('/api/v1/memory/forget/preview', { query: SECRET_KB })).body.plan as { turns: unknown[]; memories: { id: string; title: string }[] };
    const entry = plan.memories.find((m) => m.title === 'Knowledge base: wifi');
    assert.ok(entry, JSON.stringify(plan));
    // Listed: the turn whose search answered with it (a tool's answer may be the only place a
    // fact whose own turn is gone still shows) — not the turn it was only injected into.
    assert.deepEqual((plan.turns as { turnId: string }[]).map((x) => x.turnId), [out.turnId]);
    // The person forgets the entry and keeps that turn: its copy of the entry goes all the same.
    assert.equal((await api('/api/v1/memory/forget', { memoryIds: [entry.id] })).status, 200);
    assert.deepEqual(filesHolding(SECRET_KB), [], 'no file of the data folder holds the entry');
    assert.doesNotMatch(log(), /on the fridge/, 'nor the snippet a search quoted');
    // `waiter memory why` on that turn: the block is named as forgotten, with nothing of it.
    const c = new DaemonClient(d.socketPath);
    await c.connect();
    try {
      const why = await c.request<{ injected: { forgotten?: boolean; text: string; sources: unknown[] }[] }>('memory.why', { turn: asked });
      assert.ok(why.injected.length > 0 && why.injected.some((b) => b.forgotten), JSON.stringify(why));
      assert.ok(why.injected.filter((b) => b.forgotten).every((b) => b.text === '' && b.sources.length === 0));
      assert.doesNotMatch(JSON.stringify(why), new RegExp(SECRET_KB));
    } finally {
      c.close();
    }
    // The person's own messages stay: they did not hold the entry.
    assert.match(log(), /what is the wifi password again\?/);
    assert.match(log(), /and for guests\?/);
  });

  it('a forget by words reads what was said: not who said it or from which chat, and a number only whole (found by a new-user walk)', async () => {
    const sid = 'telegram:123456789';
    llm.enqueue({ text: 'Hello there.' });
    const out = await d.agent.injectInput({ sessionId: sid, source: 'telegram', channel: 'telegram', text: 'hello from telegram, 我在电报上', speaker: { id: 'telegram:123456789', name: 'Tg friend', platform: 'telegram' }, meta: { chatId: '123456789' } }).done;
    assert.equal(out.status, 'ok');
    const pin = await turn('My router PIN is 3456', 'Noted.', 'webui:derived-pin');
    const listed = async (q: string) => ((await api('/api/v1/memory/forget/preview', { query: q })).body.plan as { turns: { turnId: string }[] }).turns.map((x) => x.turnId);
    assert.deepEqual(await listed('3456'), [pin], 'the PIN, not the chat whose id holds 3456');
    assert.deepEqual(await listed('12345678'), [], 'not inside a longer number, not in the speaker id');
    assert.deepEqual(await listed('Tg friend'), [], 'a display name is not what was said');
    assert.deepEqual(await listed('电报'), [out.turnId]);
  });
});
