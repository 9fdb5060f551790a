import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTestHost, ScriptedLlm, type TestHost } from '../../sdk/testing/index.js';
import type { ScriptedReply } from '../../sdk/testing/index.js';
import { callRoute } from '../__fixtures__/call-route.js';
import { coreConfigDefaults } from '../../config/index.js';
import { configAdmin } from '../../daemon/host-services.js';
import { startFakeBotApi, type FakeBotApi } from './__fixtures__/fake-bot-api.js';
import { createTelegramPlugin } from './index.js';

const OWNER = { id: 4242, first_name: 'Olivia', last_name: 'Owner', username: 'olivia' };
const STRANGER = { id: 6666, first_name: 'Mallory' };
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

interface Setup {
  h: TestHost;
  tg: FakeBotApi;
  llm: ScriptedLlm;
  plugin: ReturnType<typeof createTelegramPlugin>;
  status: () => Promise<Record<string, unknown>>;
}

async function setup(t: { after: (fn: () => Promise<void>) => void }, replies: ScriptedReply[] = [], o: { allowed?: string[]; token?: string; apiRoot?: string } = {}): Promise<Setup> {
  const tg = await startFakeBotApi();
  const llm = new ScriptedLlm(replies);
  const plugin = createTelegramPlugin();
  const h = await createTestHost({ plugins: [plugin], llm });
  t.after(async () => {
    await h.close();
    await tg.close();
  });
  await h.config.set('plugin.telegram.api_root', o.apiRoot ?? tg.url);
  await h.config.set('plugin.telegram.poll_timeout_s', 1);
  await h.config.set('plugin.telegram.allowed_user_ids', o.allowed ?? [String(OWNER.id)]);
  await h.config.set('plugin.telegram.bot_token', o.token ?? tg.token);
  const status = async () => (await callRoute(h.host.routes.list(), 'GET', '/api/v1/channels/telegram')).json.value as Record<string, unknown>;
  return { h, tg, llm, plugin, status };
}

test('R-3: idle without a token — no output channel, status says why, the connection test says what to set', async (t) => {
  const h = await createTestHost({ plugins: [createTelegramPlugin()] });
  t.after(() => h.close());
  assert.equal(h.agent.channels.get('telegram'), undefined);
  const st = await callRoute(h.host.routes.list(), 'GET', '/api/v1/channels/telegram');
  assert.equal((st.json.value as { status: string }).status, 'idle');
  assert.equal((st.json.value as { detail: string }).detail, 'no bot token: paste it into "Bot token"');
  // The page words it from the code (decision 0680); the English above is what `waiter status` prints.
  assert.deepEqual((st.json.value as { words: unknown }).words, { code: 'TELEGRAM_NO_TOKEN' });
  const test1 = await callRoute(h.host.routes.list(), 'POST', '/api/v1/channels/telegram/test', '{}', { 'content-type': 'application/json' });
  assert.deepEqual((test1.json.value as { ok: boolean; error: { code: string } }).error.code, 'TELEGRAM_NOT_CONFIGURED');
  assert.deepEqual((test1.json.value as { error: { words: unknown } }).error.words, { code: 'TELEGRAM_NOT_CONFIGURED' });
  assert.equal(h.plugin('telegram')?.state, 'running');
});

test('R-3: an allowed user chats; a stranger gets one polite refusal and nothing of theirs is kept; groups and malformed updates are skipped', async (t) => {
  const { h, tg, llm, status } = await setup(t, [{ text: 'Hello Olivia! How can I help?' }]);
  await until(async () => (await status()).status === 'running', 'polling');
  assert.deepEqual((await status()).bot, { id: 999000, username: 'homeagent_test_bot', name: 'HomeAgent Test' });
  assert.ok(h.agent.channels.get('telegram')?.options.push);

  tg.pushMessage(STRANGER, { text: 'my password is hunter2, remember it' });
  tg.pushMessage(STRANGER, { text: 'hello??' });
  tg.pushRaw({ message: { text: 'no ids at all' } });
  tg.pushMessage({ id: 7777, first_name: 'Grace' }, { text: 'hi bot' }, { id: -100123, type: 'supergroup', title: 'Some group' });
  tg.pushMessage(OWNER, { text: 'hi there' });
  await until(() => tg.sent.some((s) => s.chatId === String(OWNER.id)), 'the reply to the owner');

  const refusals = tg.sent.filter((s) => s.chatId === String(STRANGER.id));
  assert.equal(refusals.length, 1, 'one refusal per stranger');
  assert.match(refusals[0].text!, /private assistant[\s\S]*私人助理[\s\S]*6666/);
  assert.match(refusals[0].text!, /你的 Telegram 用户 ID：6666。[\s\S]*设置 → 聊天渠道 → Telegram/, 'the id and where to add it, in Chinese too');
  assert.equal(tg.sent.filter((s) => s.chatId === '-100123').length, 0, 'nothing said in a group');
  assert.deepEqual(tg.sent.find((s) => s.chatId === String(OWNER.id))!.text, 'Hello Olivia! How can I help?');

  // Only the owner's chat exists as a session; the stranger's words are nowhere.
  const sessions = await h.sessions.list();
  assert.deepEqual(sessions.map((s) => s.id), ['telegram:4242']);
  const events = await h.sessions.events('telegram:4242');
  const user = events.find((e) => e.kind === 'user')!;
  assert.equal(user.text, 'hi there');
  assert.deepEqual(user.data?.speaker, { id: 'telegram:4242', name: 'Olivia Owner', platform: 'telegram', userId: '4242' });
  assert.deepEqual(user.data?.conversation, { kind: 'private', id: 'telegram:4242', platform: 'telegram', title: 'Olivia Owner' });
  assert.doesNotMatch(JSON.stringify(h.agent.context.events()), /hunter2|hello\?\?|hi bot/);
  assert.doesNotMatch(JSON.stringify(llm.requests), /hunter2/);
  assert.equal(existsSync(join(h.homeDir, 'media', 'telegram', String(STRANGER.id))), false);
  // Every update was confirmed (the next poll's offset is past them), and the offset survives.
  await until(() => tg.confirmedOffset() >= 6, 'confirmation of all updates');
  assert.deepEqual(JSON.parse(readFileSync(join(h.homeDir, 'plugins-data', 'telegram', 'offset.json'), 'utf8')), { offset: 6 });
  const typing = tg.calls.filter((c) => c.method === 'sendChatAction');
  assert.deepEqual(typing.map((c) => c.params.chat_id), [OWNER.id]);
});

test('R-3: an allowed id written as in the owner ids ("telegram:4242") is stored as the bare number and lets that person chat', async (t) => {
  const { h, tg, status } = await setup(t, [{ text: 'Hi Olivia.' }], { allowed: [`telegram:${OWNER.id}`] });
  assert.deepEqual(h.config.get('plugin.telegram.allowed_user_ids'), [String(OWNER.id)]);
  // The same person in both forms is kept once.
  await h.config.set('plugin.telegram.allowed_user_ids', [String(OWNER.id), `telegram:${OWNER.id}`]);
  assert.deepEqual(h.config.get('plugin.telegram.allowed_user_ids'), [String(OWNER.id)]);
  await h.config.set('plugin.telegram.notify_chat_id', `telegram:${OWNER.id}`);
  assert.equal(h.config.get('plugin.telegram.notify_chat_id'), String(OWNER.id));
  // Another app's id, or words, are still refused with the reason.
  await assert.rejects(h.config.set('plugin.telegram.allowed_user_ids', ['qq:4242']), /a Telegram user id is a number/);
  await assert.rejects(h.config.set('plugin.telegram.allowed_user_ids', ['telegram:']), /a Telegram user id is a number/);
  await until(async () => (await status()).status === 'running', 'polling');
  tg.pushMessage(OWNER, { text: 'hello' });
  await until(() => tg.sent.some((s) => s.chatId === String(OWNER.id) && s.text === 'Hi Olivia.'), 'the reply to the owner');
});

test('R-3: a photo reaches the media tools, voice and files are saved into the data folder, too-large files are reported', async (t) => {
  const { h, tg, llm, status } = await setup(t, [{ text: 'Nice photo.' }, { text: 'Got your voice message and the PDF.' }]);
  await h.config.set('plugin.telegram.max_file_mb', 1);
  // The owner's own chat (decision 0360): media_save is an owner tool, not offered to anyone else.
  h.config.register(coreConfigDefaults());
  await h.config.set('core.identity.owner_ids', [`telegram:${OWNER.id}`]);
  await until(async () => (await status()).status === 'running', 'polling');
  tg.addFile('photo-small', PNG.subarray(0, 40), 'photos/small.jpg');
  tg.addFile('photo-big', PNG, 'photos/big.jpg');
  tg.pushMessage(OWNER, { caption: 'what is this?', photo: [{ file_id: 'photo-small', width: 10, height: 10, file_size: 40 }, { file_id: 'photo-big', width: 100, height: 100, file_size: PNG.length }] });
  await until(() => tg.sent.length >= 1, 'the answer to the photo');
  const first = llm.requests[0];
  const userMsg = first.messages.find((m) => m.role === 'user' && JSON.stringify(m).includes('what is this?'))!;
  assert.equal(userMsg.attachments?.[0].mimeType, 'image/jpeg');
  assert.equal(userMsg.attachments?.[0].data, PNG.toString('base64'), 'the largest size that fits was downloaded');
  const toolNames = (first.tools ?? []).map((x) => x.name);
  assert.ok(toolNames.includes('media_describe') && toolNames.includes('media_save'), 'media tools offered while media is pending');

  tg.addFile('voice-1', Buffer.from('OggS-fake-voice'), 'voice/file_7.oga');
  tg.addFile('doc-1', Buffer.from('%PDF-1.4 fake'), 'documents/file_8.pdf');
  tg.addFile('doc-huge', Buffer.alloc(10), 'documents/huge.bin');
  tg.pushMessage(OWNER, {
    voice: { file_id: 'voice-1', duration: 3, mime_type: 'audio/ogg', file_size: 15 },
  });
  await until(() => llm.requests.length >= 2, 'the voice turn');
  tg.pushMessage(OWNER, { document: { file_id: 'doc-1', file_name: '../../etc/report.pdf', mime_type: 'application/pdf', file_size: 13 }, caption: 'the report' });
  tg.pushMessage(OWNER, { document: { file_id: 'doc-huge', file_name: 'movie.mkv', file_size: 5 * 1024 * 1024 } });
  await until(async () => (await h.sessions.events('telegram:4242')).filter((e) => e.kind === 'user').length >= 4, 'four user messages');
  const dir = join(h.homeDir, 'media', 'telegram', String(OWNER.id));
  const saved = readdirSync(dir).sort();
  assert.equal(saved.length, 2);
  assert.ok(saved.some((f) => f.endsWith('voice.ogg')));
  const pdf = saved.find((f) => f.endsWith('report.pdf'))!;
  assert.ok(!pdf.includes('/') && !pdf.startsWith('.'), 'the sender-chosen name cannot escape the folder');
  assert.equal(readFileSync(join(dir, pdf), 'utf8'), '%PDF-1.4 fake');
  const texts = (await h.sessions.events('telegram:4242')).filter((e) => e.kind === 'user').map((e) => e.text);
  assert.match(texts[1], /\[voice message \(3 s\) saved to .*voice\.ogg\]/);
  assert.match(texts[2], /the report\n\[file saved to .*report\.pdf\]/);
  assert.match(texts[3], /\[a file could not be downloaded: it is 5 MB; the limit is 1 MB\]/);
  assert.ok(!tg.calls.some((c) => c.method === 'getFile' && c.params.file_id === 'doc-huge'), 'a too-large file is not even requested');
});

test('R-3: a shared location, place, contact, poll or dice roll reaches the agent as text; a kind it cannot read gets an answer, not silence', async (t) => {
  const { h, tg, status } = await setup(t, [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' }, { text: 'e' }, { text: 'f' }]);
  await until(async () => (await status()).status === 'running', 'polling');
  tg.pushMessage(OWNER, { location: { latitude: 48.858093, longitude: 2.294694 } });
  tg.pushMessage(OWNER, { venue: { title: 'Café de Flore', address: '172 Bd Saint-Germain', location: { latitude: 48.854, longitude: 2.3325 } }, location: { latitude: 48.854, longitude: 2.3325 } });
  tg.pushMessage(OWNER, { contact: { phone_number: '+33 1 23 45 67 89', first_name: 'Marie', last_name: 'Curie' } });
  tg.pushMessage(OWNER, { poll: { id: 'p1', question: 'Dinner?', options: [{ text: 'pizza' }, { text: 'sushi' }] } });
  tg.pushMessage(OWNER, { dice: { emoji: '🎲', value: 4 } });
  tg.pushMessage(OWNER, { game: { title: 'Tetris' } });
  await until(async () => (await h.sessions.events('telegram:4242').catch(() => [])).filter((e) => e.kind === 'user').length >= 6, 'six user messages');
  const texts = (await h.sessions.events('telegram:4242')).filter((e) => e.kind === 'user').map((e) => e.text);
  assert.deepEqual(texts, [
    '[shared a location: 48.85809, 2.29469]',
    '[shared a place: Café de Flore, 172 Bd Saint-Germain (48.85400, 2.33250)]',
    '[shared a contact: Marie Curie, +33 1 23 45 67 89]',
    '[sent a poll: Dinner? — pizza / sushi]',
    '[rolled 🎲: 4]',
    '[sent a game — HomeAgent cannot read these from Telegram]',
  ]);
  await until(() => tg.sent.filter((s) => s.chatId === String(OWNER.id)).length >= 6, 'an answer to each');
});

test('R-3: long replies are split at 4096 without breaking code; a long caption is cut at 1024 and the rest follows; 429 is waited out', async (t) => {
  const code = Array.from({ length: 250 }, (_, i) => `    result_${i} = compute_something(${i})  # step ${i}`).join('\n');
  const long = `Here is the script:\n\n\`\`\`python\n${code}\n\`\`\`\n\nRun it with python3.`;
  const caption = `A caption. ${'word '.repeat(300)}END`;
  const { h, tg, status } = await setup(t, [{ text: long }, { toolCalls: [{ name: 'output_send__telegram', arguments: { payload: PNG.toString('base64'), type: 'image', meta: JSON.stringify({ caption, name: 'chart.png', mimeType: 'image/png' }) } }] }, { text: 'sent' }]);
  await until(async () => (await status()).status === 'running', 'polling');
  tg.failNext('sendMessage', { status: 429, retryAfter: 1 });
  tg.pushMessage(OWNER, { text: 'write me a script' });
  await until(() => tg.sent.length >= 3 && tg.sent.some((s) => s.text?.includes('Run it with')), 'all parts');
  const parts = tg.sent.map((s) => s.text!);
  assert.ok(parts.length >= 3);
  for (const p of parts) {
    assert.ok(p.length <= 4096, `part of ${p.length}`);
    assert.equal(p.split('\n').filter((l) => l.startsWith('```')).length % 2, 0, 'each part has whole code fences');
  }
  assert.ok(parts[1].startsWith('```python\n'));
  const lines = parts.join('\n').split('\n').filter((l) => l.startsWith('    result_'));
  assert.deepEqual(lines, code.split('\n'), 'every code line arrives once, indentation kept');
  assert.equal(tg.calls.filter((c) => c.method === 'sendMessage').length, parts.length + 1, 'the 429 was retried');

  tg.sent.length = 0;
  tg.pushMessage(OWNER, { text: 'send me the chart' });
  await until(() => tg.sent.some((s) => s.method === 'sendPhoto') && tg.sent.some((s) => s.text === 'sent'), 'photo, caption rest and the final reply');
  const photo = tg.sent.find((s) => s.method === 'sendPhoto')!;
  assert.ok(photo.caption!.length <= 1024 && photo.caption!.startsWith('A caption.'));
  assert.deepEqual((photo.file as { bytes: Buffer }).bytes, PNG);
  assert.equal((photo.file as { name: string }).name, 'chart.png');
  const restOfCaption = tg.sent.find((s) => s.method === 'sendMessage' && s.text?.endsWith('END'))!;
  assert.equal(`${photo.caption} ${restOfCaption.text}`.replace(/\s+/g, ' '), caption.replace(/\s+/g, ' ').trim());
  void h;
});

test('R-3/R-6: output_send__telegram from another session goes to the owner; strangers, files outside the media folder and secrets are refused (decision 0360)', async (t) => {
  const { h, tg, status } = await setup(t);
  await until(async () => (await status()).status === 'running', 'polling');
  tg.pushMessage(OWNER, { text: '/start' });
  await until(() => tg.sent.length === 1, 'the /start greeting');
  assert.deepEqual(await h.sessions.list(), [], '/start starts no turn');
  // "The owner" is the owner's own Telegram id, never merely the first allowed user (decision 0650).
  assert.deepEqual((await status()).notices, { to: null, by: 'none' });
  await assert.rejects(h.callTool('output_send__telegram', { payload: 'The laundry is done.', meta: '{}' }), /no Telegram chat of yours/);
  h.config.register(coreConfigDefaults());
  h.host.services.provide('host', 'host.config', configAdmin(h.config));
  await h.config.set('core.identity.owner_ids', [`telegram:${OWNER.id}`]);
  assert.deepEqual((await status()).notices, { to: String(OWNER.id), by: 'owner' });
  assert.match(await h.callTool('output_send__telegram', { payload: 'The laundry is done.', meta: '{}' }), /sent to telegram/);
  assert.deepEqual(tg.sent.at(-1), { ...tg.sent.at(-1), chatId: '4242', text: 'The laundry is done.' });
  await assert.rejects(h.callTool('output_send__telegram', { payload: 'psst', meta: JSON.stringify({ chatId: STRANGER.id }) }), /not an allowed user's chat/);
  await assert.rejects(h.callTool('output_send__telegram', { payload: '/etc/hostname', type: 'file' }), /only files in the media folder/);
  // The data folder holds the API token and the config database (API keys): never sendable.
  writeFileSync(join(h.homeDir, 'auth-token'), 'secret-token-value');
  await assert.rejects(h.callTool('output_send__telegram', { payload: join(h.homeDir, 'auth-token'), type: 'file' }), /auth-token holds secrets of HomeAgent and is never sent/);
  writeFileSync(join(h.homeDir, 'notes.txt'), 'not media');
  await assert.rejects(h.callTool('output_send__telegram', { payload: join(h.homeDir, 'notes.txt'), type: 'file' }), /only files in the media folder/);
  mkdirSync(join(h.homeDir, 'media'), { recursive: true });
  symlinkSync(join(h.homeDir, 'auth-token'), join(h.homeDir, 'media', 'innocent.png'));
  await assert.rejects(h.callTool('output_send__telegram', { payload: join(h.homeDir, 'media', 'innocent.png'), type: 'image' }), /holds secrets/, 'a link in the media folder to a secret is refused');
  const inside = join(h.homeDir, 'media', 'report.txt');
  writeFileSync(inside, 'quarterly numbers');
  assert.match(await h.callTool('output_send__telegram', { payload: inside, type: 'file' }), /sent/);
  assert.equal((tg.sent.at(-1)!.file as { bytes: Buffer }).bytes.toString(), 'quarterly numbers');
  await assert.rejects(h.callTool('output_send__telegram', { payload: 'not base64 at all!!', type: 'image' }), /URL, a file in the media folder, or base64/);
});

test('R-3: an unreachable Bot API or a rejected token is a clear status, not a crash; polling backs off and recovers; 429 on getUpdates waits retry_after', async (t) => {
  // Nothing listens on this port.
  const { h, tg, status } = await setup(t, [], { apiRoot: `http://127.0.0.1:${await closedPort()}` });
  await until(async () => (await status()).status === 'retrying', 'retrying');
  assert.match(String((await status()).detail), /^Telegram getMe: the Bot API is unreachable \(ECONNREFUSED\)\. Check the network or the "Outbound proxy" setting \(core\.network\.proxy\), or the "Bot API server" setting\.$/);
  assert.doesNotMatch(JSON.stringify(await status()), new RegExp(tg.token.split(':')[1]), 'the token is never shown');
  // A code and its parameters for the page, and when the next try is due (it counts down).
  const retrying = await status();
  assert.deepEqual(retrying.words, { code: 'TELEGRAM_UNREACHABLE', params: { method: 'getMe', reason: 'ECONNREFUSED' } });
  assert.equal(typeof retrying.retryAt, 'number');
  assert.equal(h.plugin('telegram')?.state, 'running');
  const test1 = await callRoute(h.host.routes.list(), 'POST', '/api/v1/channels/telegram/test', '{}', { 'content-type': 'application/json' });
  assert.equal((test1.json.value as { error: { code: string } }).error.code, 'TELEGRAM_UNREACHABLE');
  assert.deepEqual((test1.json.value as { error: { words: unknown } }).error.words, { code: 'TELEGRAM_UNREACHABLE', params: { method: 'getMe', reason: 'ECONNREFUSED' } });
  // The person fixes the address: it reconnects by itself.
  await h.config.set('plugin.telegram.api_root', tg.url);
  await until(async () => (await status()).status === 'running', 'running after the fix');
  const ok = await callRoute(h.host.routes.list(), 'POST', '/api/v1/channels/telegram/test', '{}', { 'content-type': 'application/json' });
  assert.deepEqual((ok.json.value as { ok: boolean; bot: unknown }).bot, { id: 999000, username: 'homeagent_test_bot', name: 'HomeAgent Test' });

  // Flood control on getUpdates: the poller waits retry_after, then goes on.
  const before = tg.calls.filter((c) => c.method === 'getUpdates').length;
  tg.failNext('getUpdates', { status: 429, retryAfter: 2 });
  await until(async () => (await status()).status === 'retrying', 'retrying after 429');
  assert.match(String((await status()).detail), /Too Many Requests: retry after 2/);
  assert.deepEqual((await status()).words, { code: 'TELEGRAM_RATE_LIMITED', params: { method: 'getUpdates', retryAfter: 2 } });
  tg.pushMessage(OWNER, { text: 'still there?' });
  await until(() => tg.sent.length >= 1, 'an answer after the flood wait');
  assert.ok(tg.calls.filter((c) => c.method === 'getUpdates').length > before + 1);

  // The token is revoked in BotFather: a clear error, and polling stops (no hammering).
  tg.revokeToken();
  await until(async () => (await status()).status === 'error', 'error on a rejected token');
  assert.match(String((await status()).detail), /rejected the bot token \(401 Unauthorized\)/);
  assert.deepEqual((await status()).words, { code: 'TELEGRAM_TOKEN_REJECTED_STOPPED', params: { errorCode: 401, description: 'Unauthorized' } });
  const n = tg.requests();
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(tg.requests(), n, 'no more requests after the token was rejected');
  const bad = await callRoute(h.host.routes.list(), 'POST', '/api/v1/channels/telegram/test', '{}', { 'content-type': 'application/json' });
  assert.equal((bad.json.value as { error: { code: string } }).error.code, 'TELEGRAM_TOKEN_REJECTED');
  assert.deepEqual((bad.json.value as { error: { words: unknown } }).error.words, { code: 'TELEGRAM_TOKEN_REJECTED', params: { method: 'getMe', errorCode: 401, description: 'Unauthorized' } });
  assert.equal(h.plugin('telegram')?.state, 'running', 'the plugin (and the daemon) keep running');
});

test('a message whose session-log write fails is not confirmed to Telegram: it comes again and is kept once the log can be written', async (t) => {
  const { h, tg, status } = await setup(t, [{ text: 'Got it.' }]);
  await until(async () => (await status()).status === 'running', 'polling');
  // The session log cannot be written (a full or failing disk, injected into the test host's store).
  let diskFull = true;
  const append = h.sessions.append.bind(h.sessions);
  h.sessions.append = (async (...args: Parameters<typeof append>) => {
    if (diskFull) throw new Error('ENOSPC: no space left on device (injected)');
    return append(...args);
  }) as typeof append;
  tg.pushMessage(OWNER, { text: 'the spare key is in the blue pot' });
  await until(async () => /handling an update/.test(String((await status()).detail)), 'the failed update to be retried');
  assert.equal(tg.confirmedOffset() < 2, true, 'not confirmed while it is not in the log');
  diskFull = false;
  await until(async () => (await h.sessions.events('telegram:4242').catch(() => [])).some((e) => e.kind === 'user' && e.text === 'the spare key is in the blue pot'), 'the message in the log', 20_000);
  await until(() => tg.confirmedOffset() >= 2, 'confirmation once logged');
});
