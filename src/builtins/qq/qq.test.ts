import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createTestHost, ScriptedLlm, type TestHost } from '../../sdk/testing/index.js';
import type { ScriptedReply } from '../../sdk/testing/index.js';
import { callRoute } from '../__fixtures__/call-route.js';
import { coreConfigDefaults } from '../../config/index.js';
import { configAdmin } from '../../daemon/host-services.js';
import { FakeOneBot } from './__fixtures__/fake-onebot.js';
import { isLoopbackHost } from './onebot-transports.js';
import { createQqPlugin, parseCqString, parseMessage, toSegments } from './index.js';

const TOKEN = 'onebot-secret-token-for-tests';
const OWNER = { user_id: 10001, nickname: 'Olivia' };
const BOB = { user_id: 10002, nickname: 'bob_nick', card: 'Bob' };
const STRANGER = { user_id: 66666, nickname: 'Mallory' };
const GROUP = 555555;
const OTHER_GROUP = 777777;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

interface Setup {
  h: TestHost;
  bot: FakeOneBot;
  llm: ScriptedLlm;
  status: () => Promise<Record<string, unknown>>;
  testConn: () => Promise<Record<string, unknown>>;
}

async function setup(t: { after: (fn: () => Promise<void>) => void }, replies: ScriptedReply[], o: { mode?: 'forward' | 'reverse'; token?: string; url?: string; extra?: Record<string, unknown> } = {}): Promise<Setup> {
  const bot = new FakeOneBot({ token: TOKEN, groups: { [GROUP]: 'Family' } });
  if ((o.mode ?? 'forward') === 'forward') await bot.listen();
  const llm = new ScriptedLlm(replies);
  const h = await createTestHost({ plugins: [createQqPlugin()], llm });
  t.after(async () => {
    await h.close();
    await bot.close();
  });
  await h.config.set('plugin.qq.allowed_user_ids', [String(OWNER.user_id), String(BOB.user_id)]);
  await h.config.set('plugin.qq.allowed_group_ids', [String(GROUP)]);
  await h.config.set('plugin.qq.send_interval_ms', 0);
  await h.config.set('plugin.qq.access_token', o.token ?? TOKEN);
  await h.config.set('plugin.qq.ws_url', o.url ?? (bot.url || 'ws://127.0.0.1:3001'));
  await h.config.set('plugin.qq.reverse_port', 0);
  for (const [k, v] of Object.entries(o.extra ?? {})) await h.config.set(`plugin.qq.${k}`, v as never);
  await h.config.set('plugin.qq.mode', o.mode ?? 'forward');
  const routes = () => h.host.routes.list();
  return {
    h,
    bot,
    llm,
    status: async () => (await callRoute(routes(), 'GET', '/api/v1/channels/qq')).json.value as Record<string, unknown>,
    testConn: async () => (await callRoute(routes(), 'POST', '/api/v1/channels/qq/test', '{}', { 'content-type': 'application/json' })).json.value as Record<string, unknown>,
  };
}

/** Marks a QQ number as the owner's, as the daemon knows it (`core.identity.owner_ids` through host.config). */
async function ownQq(h: TestHost, userId: number): Promise<void> {
  h.config.register(coreConfigDefaults());
  h.host.services.provide('host', 'host.config', configAdmin(h.config));
  await h.config.set('core.identity.owner_ids', [`qq:${userId}`]);
}

const texts = (bot: FakeOneBot) => bot.sent().map((a) => (a.params.message as { type: string; data: { text?: string } }[]).filter((s) => s.type === 'text').map((s) => s.data.text).join(''));

test('R-4: segments in and out — text, at, reply, face, image; CQ strings are parsed, never produced', () => {
  const p = parseMessage([{ type: 'reply', data: { id: '42' } }, { type: 'at', data: { qq: '3000000001' } }, { type: 'text', data: { text: ' hi ' } }, { type: 'at', data: { qq: '10002', name: 'Bob' } }, { type: 'face', data: { id: '14' } }, { type: 'image', data: { file: 'a.jpg', url: 'https://x/a.jpg' } }, { type: 'record', data: { file: 'v.amr' } }], '3000000001');
  assert.deepEqual(p, { text: 'hi @Bob [face:14]', mentionsSelf: true, replyTo: '42', images: [{ url: 'https://x/a.jpg', file: 'a.jpg' }], unsupported: ['record'] });
  assert.deepEqual(parseCqString('[CQ:at,qq=3000000001] what is &#91;1&#93; &amp; 2?[CQ:face,id=5]'), [
    { type: 'at', data: { qq: '3000000001' } },
    { type: 'text', data: { text: ' what is [1] & 2?' } },
    { type: 'face', data: { id: '5' } },
  ]);
  assert.deepEqual(toSegments('ok [face:178] ask [at:10002] [CQ:at,qq=all] [at:all]'), [
    { type: 'text', data: { text: 'ok ' } },
    { type: 'face', data: { id: '178' } },
    { type: 'text', data: { text: ' ask ' } },
    { type: 'at', data: { qq: '10002' } },
    { type: 'text', data: { text: ' [CQ:at,qq=all] [at:all]' } },
  ]);
});

test('R-4: off by default — no connection, no output channel, the test says what to set', async (t) => {
  const h = await createTestHost({ plugins: [createQqPlugin()] });
  t.after(() => h.close());
  assert.equal(h.agent.channels.get('qq'), undefined);
  const st = await callRoute(h.host.routes.list(), 'GET', '/api/v1/channels/qq');
  assert.equal((st.json.value as { status: string }).status, 'off');
  // The page shows field labels, so the status names the field by its label, not its key.
  assert.equal((st.json.value as { detail: string }).detail, '"Connection mode" is off');
  assert.deepEqual((st.json.value as { words: unknown }).words, { code: 'QQ_OFF' });
  const r = await callRoute(h.host.routes.list(), 'POST', '/api/v1/channels/qq/test', '{}', { 'content-type': 'application/json' });
  assert.equal((r.json.value as { error: { code: string } }).error.code, 'QQ_NOT_CONFIGURED');
  assert.deepEqual((r.json.value as { error: { words: unknown } }).error.words, { code: 'QQ_NOT_CONFIGURED' });
});

test('R-4: a person written as in the owner ids ("qq:10001") is stored as the bare QQ number; groups take only numbers', async (t) => {
  const h = await createTestHost({ plugins: [createQqPlugin()] });
  t.after(() => h.close());
  await h.config.set('plugin.qq.allowed_user_ids', ['qq:10001', '20002', '10001']);
  assert.deepEqual(h.config.get('plugin.qq.allowed_user_ids'), ['10001', '20002']);
  await assert.rejects(h.config.set('plugin.qq.allowed_user_ids', ['telegram:10001']), /a QQ number such as/);
  await assert.rejects(h.config.set('plugin.qq.allowed_group_ids', ['qq:10001']), /a QQ number or group number/);
  const st = await callRoute(h.host.routes.list(), 'GET', '/api/v1/channels/qq');
  assert.equal((st.json.value as { allowedUsers: number }).allowedUsers, 2);
});

test('R-4 forward: private chat with the owner; a stranger gets one refusal and nothing is kept; a group answers only when @-mentioned or replied to', async (t) => {
  const { h, bot, llm, status, testConn } = await setup(t, [{ text: 'Hi Olivia [face:178]' }, { text: 'Pizza, as Bob said.' }, { text: 'You are welcome.' }]);
  await until(async () => (await status()).status === 'connected', 'connected');
  assert.equal((await status()).selfId, String(bot.selfId));
  const probe = await testConn();
  assert.deepEqual({ ...probe, latencyMs: 0 }, { ok: true, latencyMs: 0, selfId: String(bot.selfId), nickname: 'HomeAgentBot' });

  bot.pushPrivate(STRANGER, [{ type: 'text', data: { text: 'remember my card number 4111 1111' } }]);
  bot.pushPrivate(STRANGER, [{ type: 'text', data: { text: 'hello?' } }]);
  bot.pushPrivate(OWNER, [{ type: 'text', data: { text: 'hello' } }]);
  await bot.waitFor(() => bot.sent().length >= 2, 'refusal and reply');
  const [refusal, reply] = bot.sent();
  assert.equal(refusal.action, 'send_private_msg');
  assert.equal(refusal.params.user_id, STRANGER.user_id);
  assert.match(texts(bot)[0], new RegExp(`private assistant[\\s\\S]*Your QQ number: ${STRANGER.user_id}\\.`), "the refusal names the number to allow, as Telegram's does");
  assert.deepEqual(reply.params, { user_id: OWNER.user_id, message: [{ type: 'text', data: { text: 'Hi Olivia ' } }, { type: 'face', data: { id: '178' } }] });

  // Group: chatter without a mention is neither answered nor stored.
  bot.pushGroup(GROUP, BOB, [{ type: 'text', data: { text: 'pizza on friday, and my PIN is 9999' } }]);
  bot.pushGroup(OTHER_GROUP, OWNER, [{ type: 'at', data: { qq: String(bot.selfId) } }, { type: 'text', data: { text: ' a group nobody allowed' } }]);
  const asked = bot.pushGroup(GROUP, OWNER, [{ type: 'at', data: { qq: String(bot.selfId) } }, { type: 'text', data: { text: ' what do we eat, ' } }, { type: 'at', data: { qq: String(BOB.user_id), name: 'Bob' } }, { type: 'text', data: { text: '?' } }]);
  await bot.waitFor(() => bot.sent().length >= 3, 'the group answer');
  const g = bot.sent()[2];
  assert.equal(g.action, 'send_group_msg');
  assert.deepEqual(g.params, { group_id: GROUP, message: [{ type: 'reply', data: { id: String(asked) } }, { type: 'at', data: { qq: String(OWNER.user_id) } }, { type: 'text', data: { text: ' ' } }, { type: 'text', data: { text: 'Pizza, as Bob said.' } }] });
  // A reply to the bot's message (no @) also addresses it.
  bot.pushGroup(GROUP, BOB, [{ type: 'reply', data: { id: String(bot.sentIds.at(-1)) } }, { type: 'text', data: { text: 'thanks!' } }]);
  await bot.waitFor(() => bot.sent().length >= 4, 'the answer to a reply');

  const sessions = (await h.sessions.list()).map((s) => s.id).sort();
  assert.deepEqual(sessions, ['qq:group:555555', 'qq:private:10001']);
  const groupUsers = (await h.sessions.events('qq:group:555555')).filter((e) => e.kind === 'user');
  assert.deepEqual(groupUsers.map((e) => e.text), ['what do we eat, @Bob ?', 'thanks!']);
  assert.deepEqual(groupUsers[0].data?.speaker, { id: 'qq:10001', name: 'Olivia', platform: 'qq', userId: '10001' });
  assert.deepEqual(groupUsers[0].data?.conversation, { kind: 'group', id: 'qq:group:555555', platform: 'qq', title: 'Family' });
  assert.deepEqual(groupUsers[1].data?.speaker, { id: 'qq:10002', name: 'Bob', platform: 'qq', userId: '10002' }, 'the group card wins over the nickname');
  const all = JSON.stringify([llm.requests, h.agent.context.events()]);
  assert.doesNotMatch(all, /4111|hello\?|9999|nobody allowed/);
  // The group's prompt holds no private conversation.
  const groupPrompt = String(llm.requests[1].messages[0].content);
  assert.doesNotMatch(groupPrompt, /Hi Olivia|hello/);
  assert.match(groupPrompt, /said by Olivia \(qq:10001\) in the qq group "Family" \(qq:group:555555\)/);
});

test('R-4: images in (pending media) and out (base64 segments); a CQ-string event; a flood is cut at the per-chat limit', async (t) => {
  const img = createServer((_q, r) => {
    r.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) });
    r.end(PNG);
  });
  await new Promise<void>((r) => img.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => img.close(() => r())));
  const imgUrl = `http://127.0.0.1:${(img.address() as AddressInfo).port}/a.png`;
  const { h, bot, llm, status } = await setup(t, [{ text: 'A tiny image.' }, { toolCalls: [{ name: 'output_send__qq', arguments: { payload: PNG.toString('base64'), type: 'image', meta: JSON.stringify({ caption: 'here [face:14]' }) } }] }, { text: 'done' }], { extra: { messages_per_minute: 3 } });
  await until(async () => (await status()).status === 'connected', 'connected');
  bot.pushPrivate(OWNER, [{ type: 'text', data: { text: 'look' } }, { type: 'image', data: { file: 'abc.image', url: imgUrl } }]);
  await bot.waitFor(() => bot.sent().length >= 1, 'answer to the image');
  const user = llm.requests[0].messages.find((m) => m.role === 'user' && m.content.includes('look'))!;
  assert.deepEqual(user.attachments?.map((a) => [a.mimeType, a.data]), [['image/png', PNG.toString('base64')]]);
  assert.ok((llm.requests[0].tools ?? []).some((x) => x.name === 'media_describe'));

  bot.pushPrivate(OWNER, '[CQ:face,id=5]send me a picture &#91;please&#93;');
  await bot.waitFor(() => bot.sent().length >= 3, 'image and final reply');
  const pic = bot.sent()[1];
  assert.deepEqual(pic.params.message, [{ type: 'image', data: { file: `base64://${PNG.toString('base64')}` } }, { type: 'text', data: { text: 'here ' } }, { type: 'face', data: { id: '14' } }]);
  const second = (await h.sessions.events('qq:private:10001')).filter((e) => e.kind === 'user')[1];
  assert.equal(second.text, '[face:5]send me a picture [please]');

  // Third message within the minute is the last one taken.
  bot.pushPrivate(OWNER, [{ type: 'text', data: { text: 'three' } }]);
  bot.pushPrivate(OWNER, [{ type: 'text', data: { text: 'four (flood)' } }]);
  await until(async () => (await h.sessions.events('qq:private:10001')).filter((e) => e.kind === 'user').length >= 3, 'the third message');
  await new Promise((r) => setTimeout(r, 300));
  const users = (await h.sessions.events('qq:private:10001')).filter((e) => e.kind === 'user').map((e) => e.text);
  assert.deepEqual(users.slice(2), ['three']);
});

test('R-4: sends are paced one at a time at send_interval_ms', async (t) => {
  const { h, bot, status } = await setup(t, [], { extra: { send_interval_ms: 200 } });
  await until(async () => (await status()).status === 'connected', 'connected');
  // A message with no target goes to the owner's own QQ, never to the first allowed user (decision 0650).
  assert.deepEqual((await status()).notices, { to: null, by: 'none' });
  await assert.rejects(h.callTool('output_send__qq', { payload: 'for the owner', meta: '{}' }), /no QQ chat of yours/);
  assert.equal(bot.sent().length, 0, 'nothing sent to anyone');
  await ownQq(h, OWNER.user_id);
  assert.deepEqual((await status()).notices, { to: `private:${OWNER.user_id}`, by: 'owner' });
  const calledAt = Date.now();
  await Promise.all([1, 2, 3].map((i) => h.callTool('output_send__qq', { payload: `note ${i}`, meta: JSON.stringify({ userId: OWNER.user_id }) })));
  assert.deepEqual(texts(bot), ['note 1', 'note 2', 'note 3'], 'in order');
  // A lower bound the pacer enforces, not a speed measure: the third send cannot start before two
  // intervals have passed since the three were asked for, however late the network delivers. (The
  // gap between two arrivals is not a bound: the first can arrive late and the next on time.)
  const at = bot.sent().map((a) => a.at);
  assert.ok(at[2] - calledAt >= 2 * 200 - 5, `the third arrived ${at[2] - calledAt} ms after the sends were asked for`);
  await assert.rejects(h.callTool('output_send__qq', { payload: 'x', meta: JSON.stringify({ groupId: OTHER_GROUP }) }), /not on the allowlist/);
  await assert.rejects(h.callTool('output_send__qq', { payload: '/etc/passwd', type: 'image' }), /only files in the media folder/);
  writeFileSync(join(h.homeDir, 'auth-token'), 'secret-token-value');
  await assert.rejects(h.callTool('output_send__qq', { payload: join(h.homeDir, 'auth-token'), type: 'image' }), /auth-token holds secrets of HomeAgent and is never sent to QQ/);
  writeFileSync(join(h.homeDir, 'config.db'), 'keys');
  await assert.rejects(h.callTool('output_send__qq', { payload: join(h.homeDir, 'config.db'), type: 'image' }), /config\.db holds secrets/);
  bot.failNext('send_private_msg', 100);
  await assert.rejects(h.callTool('output_send__qq', { payload: 'x' }), /send_private_msg failed \(retcode 100/);
});

test('R-4 forward: reconnects with back-off after a drop; a wrong token is a clear error; an unreachable implementation leaves the host running', async (t) => {
  const { h, bot, status, testConn } = await setup(t, [{ text: 'back again' }]);
  await ownQq(h, OWNER.user_id);
  await until(async () => (await status()).status === 'connected', 'connected');
  bot.dropAll();
  await until(async () => (await status()).status !== 'connected', 'noticed the drop');
  await until(async () => (await status()).status === 'connected', 'reconnected', 20_000);
  bot.pushPrivate(OWNER, [{ type: 'text', data: { text: 'still there?' } }]);
  await bot.waitFor(() => bot.sent().length >= 1, 'a reply after reconnecting');
  assert.equal(texts(bot)[0], 'back again');

  await h.config.set('plugin.qq.access_token', 'wrong-token');
  await until(async () => (await status()).status === 'error', 'token rejected');
  assert.match(String((await status()).detail), /rejected the access token \(HTTP 401\)/);
  assert.deepEqual((await status()).words, { code: 'ONEBOT_TOKEN_REJECTED_STOPPED', params: { status: 401 } });
  assert.equal(((await testConn()).error as { code: string }).code, 'ONEBOT_TOKEN_REJECTED');
  assert.deepEqual(((await testConn()).error as { words: unknown }).words, { code: 'ONEBOT_TOKEN_REJECTED', params: { status: 401 } });

  await h.config.set('plugin.qq.ws_url', `ws://127.0.0.1:${await closedPort()}`);
  await until(async () => (await status()).status === 'retrying', 'retrying');
  assert.match(String((await status()).detail), /ECONNREFUSED/);
  const retrying = await status();
  const closed = String(h.config.get('plugin.qq.ws_url'));
  assert.deepEqual(retrying.words, { code: 'ONEBOT_CANNOT_REACH', params: { url: closed, reason: 'ECONNREFUSED' } });
  assert.equal(typeof retrying.retryAt, 'number', 'the page counts down to the next try');
  assert.equal(((await testConn()).error as { code: string }).code, 'ONEBOT_UNREACHABLE');
  assert.deepEqual(((await testConn()).error as { words: unknown }).words, { code: 'ONEBOT_CANNOT_REACH', params: { url: closed, reason: 'ECONNREFUSED' } });
  assert.equal(h.plugin('qq')?.state, 'running');
  await assert.rejects(h.callTool('output_send__qq', { payload: 'hello?' }), /not connected/);
});

test('R-4 reverse beyond loopback: a short token is refused with the reason; a long one listens and says other machines can reach it (found by a new-user walk)', async (t) => {
  const { h, status } = await setup(t, [], { mode: 'reverse', token: 'short', extra: { reverse_host: '0.0.0.0' } });
  await until(async () => (await status()).status === 'error', 'refusal to listen open with a short token');
  assert.match(String((await status()).detail), /listening on 0\.0\.0\.0 lets other machines connect: the access token must then be at least 16 characters/);
  await h.config.set('plugin.qq.access_token', 'a-long-random-token-0123456789');
  await until(async () => (await status()).status === 'listening', 'listening');
  assert.match(String((await status()).detail), /reachable from other machines/);
  assert.deepEqual(((await status()).words as { params: { open: boolean } }).params.open, true);
  assert.ok(isLoopbackHost('127.0.0.1') && isLoopbackHost('localhost') && isLoopbackHost('[::1]') && !isLoopbackHost('0.0.0.0') && !isLoopbackHost('192.168.1.5') && !isLoopbackHost('::'));
});

test('R-4 reverse: listens on loopback only with a token; refuses a wrong token, a browser Origin and other paths; answers through the connection', async (t) => {
  const { h, bot, status, testConn } = await setup(t, [{ text: 'hello over reverse' }], { mode: 'reverse', token: '' });
  await until(async () => (await status()).status === 'error', 'refusal to listen without a token');
  assert.match(String((await status()).detail), /needs an access token/);
  await h.config.set('plugin.qq.access_token', TOKEN);
  await until(async () => (await status()).status === 'listening', 'listening');
  const url = String((await status()).url);
  assert.match(url, /^ws:\/\/127\.0\.0\.1:\d+\/onebot\/v11\/ws$/);
  assert.equal(((await testConn()).error as { code: string }).code, 'ONEBOT_UNREACHABLE');

  await assert.rejects(bot.dial(url, { token: 'nope' }), { status: 401 });
  await assert.rejects(bot.dial(url, { token: '' }), { status: 401 });
  await assert.rejects(bot.dial(url, { origin: 'http://evil.example' }), { status: 403 });
  await assert.rejects(bot.dial(url.replace('/onebot/v11/ws', '/other')), { status: 404 });
  await bot.dial(url, { tokenInQuery: true });
  await until(async () => (await status()).status === 'connected', 'connected');
  assert.equal((await testConn()).ok, true);
  bot.pushPrivate(OWNER, [{ type: 'text', data: { text: 'hi' } }]);
  await bot.waitFor(() => bot.sent().length >= 1, 'reply');
  assert.equal(texts(bot)[0], 'hello over reverse');
  bot.dropAll();
  await until(async () => (await status()).status === 'listening', 'back to listening after the implementation left');
});
