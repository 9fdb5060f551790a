/**
 * Where the owner's notices go on a chat channel (decision 0650), in the real daemon with a fake
 * Bot API: with two allowed people and no "Chat for notices", a notice never goes to the first
 * allowed user (who may be the stranger it is about) but to the owner's own Telegram id, and with
 * none it stays in the WebUI; the channel status says which. The chat itself is named "Wen · Telegram".
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import { startFakeBotApi, type FakeBotApi } from '../src/builtins/telegram/__fixtures__/fake-bot-api.js';

const WEN = { id: 777, first_name: 'Wen' };

async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('notice target of a chat channel', { timeout: 90_000 }, () => {
  let llm: FakeLlm;
  let tg: FakeBotApi;
  let d: Daemon;
  let home: string;
  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${d.url}${path}`, { ...init, headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' } });
    return (await res.json()) as { ok: boolean; value?: unknown };
  };
  const set = async (key: string, value: unknown) => assert.equal((await api(`/api/v1/settings/${key}`, { method: 'PUT', body: JSON.stringify({ value }) })).ok, true, key);
  const notices = async () => ((await api('/api/v1/channels/telegram')).value as { notices: unknown }).notices;

  before(async () => {
    llm = await startFakeLlm();
    llm.setDefault(() => ({ text: 'hello Wen' }));
    tg = await startFakeBotApi();
    home = mkdtempSync(join(tmpdir(), 'ha-notice-'));
    const env = { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9', HOMEAGENT_TELEGRAM_BOT_TOKEN: tg.token, HOMEAGENT_TELEGRAM_API_ROOT: tg.url };
    d = await startTestDaemon({ homeDir: home, env, webuiPort: 0, heartbeats: false });
    await set('plugin.telegram.allowed_user_ids', ['777', '778']);
    await set('plugin.telegram.poll_timeout_s', 1);
    await set('core.notify.channel', 'telegram');
  });
  after(async () => {
    await d?.stop();
    await Promise.all([llm?.close(), tg?.close()]);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('with no id of the owner on Telegram, notices stay in the WebUI — none reaches the first allowed user', async () => {
    assert.deepEqual(await notices(), { to: null, by: 'none' });
    tg.pushMessage(WEN, { text: 'hi' });
    await until(() => tg.sent.some((s) => s.chatId === '777' && s.text === 'hello Wen'), "the reply to Wen");
    const sent = await d.agent.notify({ text: 'Timer: water the plants', source: 'timer' });
    assert.equal(sent.channel, 'webui');
    assert.deepEqual(tg.sent.filter((s) => s.chatId === '777').map((s) => s.text), ['hello Wen'], 'Wen got his reply and no notice');
    // The chat is named after who it is with, not after his first "hi".
    assert.equal((await d.sessions.list()).find((s) => s.id === 'telegram:777')?.title, 'Wen · Telegram');
  });

  it("with the owner's Telegram id known, notices go there", async () => {
    // The owner's own chat with the bot (a bot can only write to someone who wrote to it).
    tg.pushMessage({ id: 778, first_name: 'Olivia' }, { text: 'hi, it is me' });
    await until(() => tg.sent.some((s) => s.chatId === '778'), 'the reply to 778');
    await set('core.identity.owner_ids', ['telegram:778']);
    assert.deepEqual(await notices(), { to: '778', by: 'owner' });
    const sent = await d.agent.notify({ text: 'Timer: call mum', source: 'timer' });
    assert.equal(sent.channel, 'telegram');
    assert.ok(tg.sent.some((s) => s.chatId === '778' && s.text === 'Timer: call mum'));
    await set('plugin.telegram.notify_chat_id', '777');
    assert.deepEqual(await notices(), { to: '777', by: 'setting' }, 'a chat the owner set is theirs to choose');
  });
});
