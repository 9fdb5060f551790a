/**
 * People across channels in the real daemon (issue 13 part 5, issue 12 part 7, decision 0090):
 * Alice on Telegram and QQ, Bob on QQ, both in one QQ group, a fake Bot API and a fake OneBot
 * implementation on loopback, the fake LLM server recording every request. Private facts never
 * reach the group; before linking Alice's QQ chat does not see her Telegram chat, after linking it
 * does and Bob's still does not; the library records who said a memory; the about view gathers
 * what HomeAgent holds about Alice with sources; bad people requests get coded errors.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from './fixtures/fake-llm/index.js';
import { startFakeBotApi, type FakeBotApi } from '../src/builtins/telegram/__fixtures__/fake-bot-api.js';
import { FakeOneBot } from '../src/builtins/qq/__fixtures__/fake-onebot.js';

const ALICE_TG = { id: 42, first_name: 'Alice' };
const ALICE_QQ = { user_id: 10001, nickname: 'Ali' };
const BOB_QQ = { user_id: 10002, nickname: 'Bob' };
const GROUP = 555555;
const ALICE_SECRET = 'Mochi-8812';
const BOB_SECRET = 'Rex-5521';

async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const messagesOf = (r: RecordedRequest) => (r.body?.messages ?? []) as { role: string; content: unknown }[];
const lastUser = (r: RecordedRequest): string => {
  const u = [...messagesOf(r)].reverse().find((m) => m.role === 'user' && typeof m.content === 'string' && !String(m.content).startsWith('【'));
  return typeof u?.content === 'string' ? u.content : '';
};
/** Everything the model was shown in a request (system prompt, injections, messages). */
const shown = (r: RecordedRequest): string => JSON.stringify(messagesOf(r));

describe('people across channels', { timeout: 150_000 }, () => {
  let llm: FakeLlm;
  let tg: FakeBotApi;
  let qq: FakeOneBot;
  let d: Daemon;
  let home: string;

  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${d.url}${path}`, { ...init, headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { value?: unknown; error?: { code: string } } };
  };
  const api = async (path: string, init: RequestInit = {}) => (await call(path, init)).body;
  const set = async (key: string, value: unknown) => {
    const r = await api(`/api/v1/settings/${key}`, { method: 'PUT', body: JSON.stringify({ value }) });
    assert.equal(r.ok, true, `${key}: ${JSON.stringify(r)}`);
  };
  /** The request of the (first) turn whose message was `text`. */
  const turnRequest = (text: string): RecordedRequest => {
    const r = llm.requests.find((x) => x.format === 'openai-chat' && lastUser(x).includes(text));
    assert.ok(r, `the LLM saw the turn "${text}"`);
    return r;
  };
  const qqPrivateAnswers = (uid: number) => qq.sent().filter((a) => a.action === 'send_private_msg' && String(a.params.user_id) === String(uid)).length;
  const qqGroupAnswers = () => qq.sent().filter((a) => a.action === 'send_group_msg').length;
  const askQqPrivate = async (user: typeof ALICE_QQ, text: string) => {
    const n = qqPrivateAnswers(user.user_id);
    qq.pushPrivate(user, [{ type: 'text', data: { text } }]);
    await qq.waitFor(() => qqPrivateAnswers(user.user_id) > n, `answer to ${user.nickname}: ${text}`);
    return turnRequest(text);
  };
  const askGroup = async (user: typeof ALICE_QQ, text: string) => {
    const n = qqGroupAnswers();
    qq.pushGroup(GROUP, user, [{ type: 'at', data: { qq: String(qq.selfId) } }, { type: 'text', data: { text: ` ${text}` } }]);
    await qq.waitFor(() => qqGroupAnswers() > n, `group answer to ${user.nickname}: ${text}`);
    return turnRequest(text);
  };

  before(async () => {
    llm = await startFakeLlm();
    tg = await startFakeBotApi();
    qq = new FakeOneBot({ token: 'qq-token', groups: { [GROUP]: 'Family' } });
    await qq.listen();
    home = mkdtempSync(join(tmpdir(), 'ha-people-'));
    const env = { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9', HOMEAGENT_TELEGRAM_BOT_TOKEN: tg.token, HOMEAGENT_TELEGRAM_API_ROOT: tg.url };
    d = await startTestDaemon({ homeDir: home, env, webuiPort: 0, heartbeats: false });
    llm.setDefault((r) => {
      const text = lastUser(r);
      if (messagesOf(r).at(-1)?.role === 'tool') return { text: /library search please/.test(text) ? 'Here is what I found.' : 'Saved to your library.' };
      if (/library search please/.test(text)) return { toolCalls: [{ name: 'library_search', arguments: { query: 'cat' } }] };
      if (/^remember: /.test(text)) return { toolCalls: [{ name: 'library_save', arguments: { title: "Alice's cat", snapshot: `Alice's cat is called ${ALICE_SECRET}.` } }] };
      return { text: `ok: ${text.slice(0, 40)}` };
    });
    await set('plugin.telegram.allowed_user_ids', [String(ALICE_TG.id)]);
    await set('plugin.telegram.poll_timeout_s', 1);
    await set('plugin.qq.access_token', 'qq-token');
    await set('plugin.qq.ws_url', qq.url);
    await set('plugin.qq.allowed_user_ids', [String(ALICE_QQ.user_id), String(BOB_QQ.user_id)]);
    await set('plugin.qq.allowed_group_ids', [String(GROUP)]);
    await set('plugin.qq.send_interval_ms', 0);
    await set('plugin.qq.mode', 'forward');
    await until(async () => ((await api('/api/v1/channels/qq')).value as { status: string }).status === 'connected', 'qq connected');
  });
  after(async () => {
    await d?.stop();
    await Promise.all([llm?.close(), tg?.close(), qq?.close()]);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('private facts stay private: the group and an unlinked chat never see them', async () => {
    const n = tg.sent.length;
    tg.pushMessage(ALICE_TG, { text: `remember: my cat is called ${ALICE_SECRET}` });
    await until(() => tg.sent.slice(n).some((s) => s.chatId === String(ALICE_TG.id) && s.text === 'Saved to your library.'), "Alice's Telegram answer");
    await askQqPrivate(BOB_QQ, `my dog is called ${BOB_SECRET}`);

    const group = await askGroup(BOB_QQ, 'what pets do people here have?');
    assert.doesNotMatch(shown(group), new RegExp(`${ALICE_SECRET}|${BOB_SECRET}`), 'no private chat reaches the group');
    const unlinked = await askQqPrivate(ALICE_QQ, 'what is my cat called?');
    assert.doesNotMatch(shown(unlinked), new RegExp(`${ALICE_SECRET}|${BOB_SECRET}`), 'an unlinked QQ id is another person');
  });

  it('the owner links Alice across channels; bad requests get coded errors', async () => {
    const bad = await call('/api/v1/people/link', { method: 'POST', body: JSON.stringify({ ids: ['not an id'] }) });
    assert.equal(bad.status, 400);
    assert.equal((await call('/api/v1/people/link', { method: 'POST', body: JSON.stringify({ ids: [] }) })).status, 400);
    assert.equal((await call('/api/v1/people/link', { method: 'POST', body: '{"ids":' })).status, 400);
    assert.equal((await call('/api/v1/people/unlink', { method: 'POST', body: JSON.stringify({ id: 'qq:999' }) })).status, 404);
    assert.equal((await call('/api/v1/people/p-00000000', { method: 'PATCH', body: JSON.stringify({ name: 'x' }) })).status, 404);
    // Without the token, nothing.
    assert.equal((await fetch(`${d.url}/api/v1/people`)).status, 401);
    // From another site's page (the browser sends its Origin), nothing.
    const cross = await fetch(`${d.url}/api/v1/people/link`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json', origin: 'https://evil.example' }, body: JSON.stringify({ ids: ['qq:10002'], to: 'owner' }) });
    assert.equal(cross.status, 403);

    const linked = await api('/api/v1/people/link', { method: 'POST', body: JSON.stringify({ ids: ['telegram:42', 'qq:10001'], name: 'Alice' }) });
    assert.equal(linked.ok, true, JSON.stringify(linked));
    const person = linked.person as { id: string; ids: string[] };
    assert.deepEqual(person.ids, ['qq:10001', 'telegram:42']);
    const clash = await call('/api/v1/people/link', { method: 'POST', body: JSON.stringify({ ids: ['qq:10001'], to: 'owner' }) });
    assert.equal(clash.status, 409);
    assert.equal(clash.body.error?.code, 'CONFLICT');
    assert.equal((await call('/api/v1/people/link', { method: 'POST', body: JSON.stringify({ ids: ['qq:3'], extra: 1 }) })).status, 400, 'unknown fields are refused');
    assert.equal((await call(`/api/v1/memory/about?person=${'x'.repeat(201)}`)).status, 400);
    // An id that comes from core.identity.owner_ids is changed there, not unlinked here.
    await set('core.identity.owner_ids', ['telegram:9']);
    const fromConfig = await call('/api/v1/people/unlink', { method: 'POST', body: JSON.stringify({ id: 'telegram:9' }) });
    assert.equal(fromConfig.status, 409);
    assert.equal(fromConfig.body.error?.code, 'PEOPLE_ID_FROM_CONFIG');
    await set('core.identity.owner_ids', []);
    const list = (await api('/api/v1/people')).people as { id: string; name: string; owner: boolean }[];
    assert.deepEqual(list.map((p) => [p.name, p.owner]), [['Owner', true], ['Alice', false]]);
    // No tool the model can call links people.
    const tools = llm.requests.flatMap((r) => ((r.body?.tools ?? []) as { function?: { name: string } }[]).map((t) => t.function?.name ?? ''));
    assert.ok(tools.length > 0);
    assert.ok(!tools.some((t) => /people|identit|person_link|link_person|owner/i.test(t)), `tools: ${[...new Set(tools)].join(', ')}`);
  });

  it("after linking, Alice's Telegram fact reaches her QQ private chat — not Bob's, not the group", async () => {
    const alice = await askQqPrivate(ALICE_QQ, 'and now, what was my cat called?');
    assert.match(shown(alice), new RegExp(ALICE_SECRET), "Alice's own private chats follow her");
    assert.doesNotMatch(shown(alice), new RegExp(BOB_SECRET));
    assert.match(shown(alice), /whom the owner knows as Alice/);
    const bob = await askQqPrivate(BOB_QQ, "what is Alice's cat called?");
    assert.doesNotMatch(shown(bob), new RegExp(ALICE_SECRET), "never in another person's chat");
    const group = await askGroup(ALICE_QQ, 'say hi to everyone');
    assert.doesNotMatch(shown(group), new RegExp(`${ALICE_SECRET}|${BOB_SECRET}`), 'never in a group, linked or not');
  });

  it("the library tools in a scoped chat see only that person's memories", async () => {
    const toolResult = (text: string) => {
      const r = llm.requests.filter((x) => x.format === 'openai-chat' && lastUser(x).includes(text)).find((x) => messagesOf(x).at(-1)?.role === 'tool');
      assert.ok(r, `the tool result of "${text}" went back to the LLM`);
      return JSON.stringify(messagesOf(r).at(-1));
    };
    await askGroup(BOB_QQ, 'library search please (group)');
    assert.doesNotMatch(toolResult('library search please (group)'), new RegExp(ALICE_SECRET), 'a group searching the library finds no private memory');
    await askQqPrivate(BOB_QQ, 'library search please (bob)');
    assert.doesNotMatch(toolResult('library search please (bob)'), new RegExp(ALICE_SECRET), "Bob's chat finds nothing of Alice's");
    await askQqPrivate(ALICE_QQ, 'library search please (alice)');
    assert.match(toolResult('library search please (alice)'), new RegExp(ALICE_SECRET), 'Alice finds her own memory from her other platform');
  });

  it('the library records who said a memory, in Obsidian-readable front-matter', async () => {
    const res = await api('/api/memory-manager', { method: 'POST', body: JSON.stringify({ op: 'memory.list', args: {} }) });
    const items = (res.value as { items: { id: string; title: string; speaker?: { id: string; name?: string }; conversation?: string }[] }).items;
    const cat = items.find((m) => m.title === "Alice's cat");
    assert.ok(cat, JSON.stringify(items));
    assert.deepEqual(cat.speaker, { id: 'telegram:42', name: 'Alice' });
    assert.equal(cat.conversation, 'telegram:42');
    const files = readdirSync(home, { recursive: true }).map(String).filter((f) => f.endsWith('.md') && !f.includes('node_modules'));
    const text = files.map((f) => readFileSync(join(home, f), 'utf8')).find((t) => t.includes(ALICE_SECRET) && t.startsWith('---'));
    assert.match(String(text), /^speaker: "telegram:42"$/m);
    assert.match(String(text), /^speakerName: "Alice"$/m);
  });

  it('about Alice: her memory, her turns on both platforms with their sources; a fact can be deleted', async () => {
    const stored = await d.memory.graph.commit([{ subject: 'Alice', predicate: 'has_cat', object: ALICE_SECRET }]);
    assert.equal(stored, 1);
    await d.memory.graph.commit([{ subject: 'Ali', predicate: 'plays', object: 'violin' }]);
    const about = (await api('/api/v1/memory/about?person=alice')).about as {
      person: { name: string; ids: string[] };
      facts: { id: number; object: string }[];
      memories: { title: string; why: string }[];
      documents: { text: string; turnId?: string; sessionId: string; speaker?: { id: string } }[];
      conversations: Record<string, { title: string; channel: string; createdAt: number }>;
      capabilities: { forget: boolean };
    };
    assert.equal(about.person.name, 'Alice');
    assert.ok(about.facts.some((f) => f.object === 'violin'), 'a fact under her QQ display name ("Ali") is hers too');
    assert.deepEqual(about.person.ids, ['qq:10001', 'telegram:42']);
    assert.ok(about.memories.some((m) => m.title === "Alice's cat" && m.why === 'said'));
    const fact = about.facts.find((f) => f.object === ALICE_SECRET);
    assert.ok(fact, JSON.stringify(about.facts));
    const sessions = new Set(about.documents.map((x) => x.sessionId));
    assert.ok(sessions.has('telegram:42') && sessions.has('qq:private:10001'), [...sessions].join(', '));
    assert.ok(about.documents.every((x) => x.turnId && x.turnId.startsWith(`${x.sessionId}#`)), 'every turn names its source');
    // Each source's conversation as the chat lists it, so the page names it by its title, not its id.
    for (const id of sessions) {
      const c = about.conversations[id];
      assert.ok(c && typeof c.title === 'string' && typeof c.createdAt === 'number', `${id}: ${JSON.stringify(about.conversations)}`);
      assert.equal(c.channel, id.split(':')[0]);
    }
    assert.ok(!about.documents.some((x) => x.text.includes(BOB_SECRET)), "nothing of Bob's");
    assert.equal(about.capabilities.forget, true, 'the daemon runs the memory-control service (decision 0070): Forget goes through it');

    assert.equal((await call('/api/v1/memory/graph/relations/abc', { method: 'DELETE' })).status, 400);
    assert.equal((await call(`/api/v1/memory/graph/relations/${fact.id}`, { method: 'DELETE' })).status, 200);
    assert.equal((await call(`/api/v1/memory/graph/relations/${fact.id}`, { method: 'DELETE' })).status, 404);
    const again = (await api('/api/v1/memory/about?person=Alice')).about as { facts: { id: number }[] };
    assert.ok(!again.facts.some((f) => f.id === fact.id));
    // Someone the registry does not know is searched by name only.
    const stranger = (await api('/api/v1/memory/about?person=Mallory')).about as { person: { known: boolean }; memories: unknown[] };
    assert.equal(stranger.person.known, false);
    assert.deepEqual(stranger.memories, []);
  });
});
