/**
 * The chat channels in the real daemon (issue 13 parts 3–6): a fake Telegram Bot API and a fake
 * OneBot v11 implementation on loopback, configured through the WebUI's settings API as a person
 * would. A daemon whose platforms are unreachable still becomes ready; a stranger's words reach no
 * tier; two people in a QQ group and one private chat keep their speakers, and the group's prompt
 * never holds the private chat; a reminder set in the WebUI reaches the owner's Telegram chat.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from './fixtures/fake-llm/index.js';
import { startFakeBotApi, type FakeBotApi } from '../src/builtins/telegram/__fixtures__/fake-bot-api.js';
import { FakeOneBot } from '../src/builtins/qq/__fixtures__/fake-onebot.js';

const OWNER_TG = { id: 4242, first_name: 'Olivia' };
const STRANGER_TG = { id: 6666, first_name: 'Mallory' };
const ALICE = { user_id: 10001, nickname: 'Alice' };
const BOB = { user_id: 10002, nickname: 'Bob' };
const GROUP = 555555;

async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

const lastUser = (r: RecordedRequest): string => {
  const msgs = (r.body?.messages ?? []) as { role: string; content: unknown }[];
  const u = [...msgs].reverse().find((m) => m.role === 'user');
  return typeof u?.content === 'string' ? u.content : JSON.stringify(u?.content ?? '');
};
const systemOf = (r: RecordedRequest): string => String(((r.body?.messages ?? []) as { role: string; content: unknown }[]).find((m) => m.role === 'system')?.content ?? '');

describe('chat channels in the daemon', { timeout: 120_000 }, () => {
  let llm: FakeLlm;
  let tg: FakeBotApi;
  let qq: FakeOneBot;
  let d: Daemon;
  let home: string;

  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${d.url}${path}`, { ...init, headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
    return (await res.json()) as Record<string, unknown> & { value?: unknown };
  };
  const set = async (key: string, value: unknown) => {
    const r = await api(`/api/v1/settings/${key}`, { method: 'PUT', body: JSON.stringify({ value }) });
    assert.equal(r.ok, true, `${key}: ${JSON.stringify(r)}`);
  };
  const status = async (name: string) => (await api(`/api/v1/channels/${name}`)).value as { status: string; detail?: string };

  before(async () => {
    llm = await startFakeLlm();
    tg = await startFakeBotApi();
    qq = new FakeOneBot({ token: 'qq-token', groups: { [GROUP]: 'Family' } });
    await qq.listen();
    home = mkdtempSync(join(tmpdir(), 'ha-channels-'));
    // The Telegram server is unreachable at start (a closed port): the daemon must come up anyway.
    const env = { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9', HOMEAGENT_TELEGRAM_BOT_TOKEN: tg.token, HOMEAGENT_TELEGRAM_API_ROOT: `http://127.0.0.1:${await closedPort()}` };
    d = await startTestDaemon({ homeDir: home, env, webuiPort: 0, heartbeats: false });
    llm.setDefault((r) => {
      const text = lastUser(r);
      const msgs = (r.body?.messages ?? []) as { role: string }[];
      if (msgs.at(-1)?.role === 'tool') return { text: 'Reminder set.' };
      if (/remind me to water the plants/.test(text)) return { toolCalls: [{ name: 'timer_create', arguments: { text: 'water the plants', when: 'in 1 second' } }] };
      if (/\[timer /.test(text)) return { text: 'Time to water the plants, Olivia!' };
      return { text: `ok: ${text.slice(0, 40)}` };
    });
  });
  after(async () => {
    await d?.stop();
    await Promise.all([llm?.close(), tg?.close(), qq?.close()]);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('comes up healthy with Telegram unreachable and QQ off; the channel list shows only the WebUI', async () => {
    const channels = (await api('/api/v1/channels')).value as { preferred: string; effective: string; channels: { name: string }[] };
    assert.equal(channels.preferred, 'webui');
    assert.equal(channels.effective, 'webui');
    assert.equal((await status('qq')).status, 'off');
    await until(async () => (await status('telegram')).status === 'retrying', 'telegram retrying');
    assert.match(String((await status('telegram')).detail), /unreachable/);
    const health = (await api('/api/v1/health')).value as { plugins: { failed: unknown[] } };
    assert.deepEqual(health.plugins.failed, []);
    assert.equal(d.registry.get('telegram')?.state, 'running');
  });

  it('connects both channels from the settings API; a Telegram stranger is refused and reaches no memory tier', async () => {
    await set('plugin.telegram.allowed_user_ids', [String(OWNER_TG.id)]);
    await set('plugin.telegram.poll_timeout_s', 1);
    await set('plugin.telegram.api_root', tg.url);
    await set('plugin.qq.access_token', 'qq-token');
    await set('plugin.qq.ws_url', qq.url);
    await set('plugin.qq.allowed_user_ids', [String(ALICE.user_id), String(BOB.user_id)]);
    await set('plugin.qq.allowed_group_ids', [String(GROUP)]);
    await set('plugin.qq.send_interval_ms', 0);
    await set('plugin.qq.mode', 'forward');
    await until(async () => (await status('telegram')).status === 'running', 'telegram running');
    await until(async () => (await status('qq')).status === 'connected', 'qq connected');
    const test = (await api('/api/v1/channels/telegram/test', { method: 'POST', body: '{}' })).value as { ok: boolean };
    assert.equal(test.ok, true);
    const masked = (await api('/api/v1/settings/plugin.telegram.bot_token')).value as { value: string; origin: string };
    assert.equal(masked.origin, 'env');
    assert.ok(!String(masked.value).includes(tg.token.split(':')[1]), 'the token is masked');

    tg.pushMessage(STRANGER_TG, { text: 'the vault code is zebra-7741' });
    tg.pushMessage(OWNER_TG, { text: 'hello from telegram' });
    await until(() => tg.sent.some((s) => s.chatId === String(OWNER_TG.id)), 'the owner answered');
    assert.equal(tg.sent.filter((s) => s.chatId === String(STRANGER_TG.id)).length, 1);
    const everything = JSON.stringify([await api('/api/v1/sessions'), await api('/api/v1/memory/context'), await api('/api/v1/memory/documents?q=zebra'), llm.requests.map((r) => r.body)]);
    assert.doesNotMatch(everything, /zebra-7741/);
  });

  it('two people in a QQ group and one private chat: speakers are kept, the private chat never reaches the group', async () => {
    qq.pushPrivate(ALICE, [{ type: 'text', data: { text: 'between us: my salary is 12345 a month' } }]);
    await qq.waitFor(() => qq.sent().length >= 1, 'answer to the private chat');
    qq.pushGroup(GROUP, BOB, [{ type: 'text', data: { text: 'dinner at 7?' } }]);
    qq.pushGroup(GROUP, BOB, [{ type: 'at', data: { qq: String(qq.selfId) } }, { type: 'text', data: { text: ' what does Alice earn?' } }]);
    await qq.waitFor(() => qq.sent().filter((a) => a.action === 'send_group_msg').length >= 1, 'answer to Bob');
    qq.pushGroup(GROUP, ALICE, [{ type: 'at', data: { qq: String(qq.selfId) } }, { type: 'text', data: { text: ' and who asked?' } }]);
    await qq.waitFor(() => qq.sent().filter((a) => a.action === 'send_group_msg').length >= 2, 'answer to Alice');

    const groupTurns = llm.requests.filter((r) => r.format === 'openai-chat' && /what does Alice earn|and who asked/.test(lastUser(r)));
    assert.equal(groupTurns.length, 2);
    for (const r of groupTurns) {
      assert.doesNotMatch(systemOf(r), /12345/, 'a private chat is never in a group prompt');
      assert.doesNotMatch(systemOf(r), /dinner at 7/, 'an unaddressed group message was never kept');
    }
    assert.match(systemOf(groupTurns[1]), /user Bob: what does Alice earn\?/, 'the group timeline names who said what');
    assert.match(systemOf(groupTurns[1]), /said by Alice \(qq:10001\) in the qq group "Family"/);
    const events = (await api(`/api/v1/sessions/${encodeURIComponent('qq:group:555555')}/events`)) as { events: { kind: string; text: string; data?: { speaker?: { id: string; name?: string } } }[] };
    assert.deepEqual(
      events.events.filter((e) => e.kind === 'user').map((e) => [e.data?.speaker?.id, e.data?.speaker?.name, e.text]),
      [
        ['qq:10002', 'Bob', 'what does Alice earn?'],
        ['qq:10001', 'Alice', 'and who asked?'],
      ],
    );
    const sessions = ((await api('/api/v1/sessions')) as { sessions?: { id: string }[]; value?: { id: string }[] });
    const ids = (sessions.sessions ?? sessions.value ?? []).map((s) => s.id).sort();
    assert.deepEqual(ids.filter((i) => i.startsWith('qq:')), ['qq:group:555555', 'qq:private:10001']);
  });

  it("a reminder set in the WebUI reaches the owner's Telegram chat when Telegram is the default channel", async () => {
    await set('core.notify.channel', 'telegram');
    // The owner's chat is the id they marked as theirs, not merely the first allowed one (decision 0650).
    await set('core.identity.owner_ids', [`telegram:${OWNER_TG.id}`]);
    const before = tg.sent.length;
    const r = await fetch(`${d.url}/api/v1/chat`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'remind me to water the plants in a second' }) });
    assert.equal(r.status, 202);
    await until(() => tg.sent.slice(before).some((s) => s.text === 'Time to water the plants, Olivia!'), "the timer's answer on Telegram");
    const msg = tg.sent.slice(before).find((s) => s.text === 'Time to water the plants, Olivia!')!;
    assert.equal(msg.chatId, String(OWNER_TG.id));
    assert.ok(!tg.sent.slice(before).some((s) => s.text === 'Reminder set.'), 'the WebUI turn itself is answered in the WebUI, not pushed');
  });
});
