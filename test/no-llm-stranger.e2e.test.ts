/**
 * Without an LLM, who is told what (decision 0650), in the real daemon with a fake Bot API and no
 * LLM source: a friend chatting with the bot gets a short "can't answer right now" in the language
 * they wrote in — never the owner's setup steps (env vars, `waiter config set core.llm…`); the
 * owner's own chat still gets the setup steps.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeBotApi, type FakeBotApi } from '../src/builtins/telegram/__fixtures__/fake-bot-api.js';

const WEN = { id: 777, first_name: 'Wen' };
const OWNER = { id: 778, first_name: 'Olivia' };

async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('no LLM: what a friend and the owner are told', { timeout: 90_000 }, () => {
  let tg: FakeBotApi;
  let d: Daemon;
  let home: string;
  const set = async (key: string, value: unknown) => {
    const res = await fetch(`${d.url}/api/v1/settings/${key}`, { method: 'PUT', body: JSON.stringify({ value }), headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' } });
    assert.equal(res.status, 200, key);
  };
  const ask = async (who: { id: number; first_name: string }, text: string): Promise<string> => {
    const n = tg.sent.filter((s) => s.chatId === String(who.id) && s.text).length;
    tg.pushMessage(who, { text });
    await until(() => tg.sent.filter((s) => s.chatId === String(who.id) && s.text).length > n, `the answer to ${who.first_name}`);
    return tg.sent.filter((s) => s.chatId === String(who.id) && s.text).at(-1)!.text!;
  };

  before(async () => {
    tg = await startFakeBotApi();
    home = mkdtempSync(join(tmpdir(), 'ha-nollm-'));
    const env = { PATH: process.env.PATH, OLLAMA_HOST: 'http://127.0.0.1:9', HOMEAGENT_TELEGRAM_BOT_TOKEN: tg.token, HOMEAGENT_TELEGRAM_API_ROOT: tg.url };
    d = await startTestDaemon({ homeDir: home, env, webuiPort: 0, heartbeats: false });
    await set('plugin.telegram.allowed_user_ids', ['777', '778']);
    await set('plugin.telegram.poll_timeout_s', 1);
    await set('core.identity.owner_ids', ['telegram:778']);
  });
  after(async () => {
    await d?.stop();
    await tg?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('a friend gets a short apology in their language, no setup steps', async () => {
    const en = await ask(WEN, 'hi, are you there?');
    assert.equal(en, "Sorry, the assistant can't answer right now. Please try again later.");
    const zh = await ask(WEN, '你好，在吗？');
    assert.equal(zh, '抱歉，助手现在无法回答，请稍后再试。');
    assert.doesNotMatch(en + zh, /API_KEY|waiter|core\.llm|LLM/);
  });

  it('the owner gets the setup steps', async () => {
    const text = await ask(OWNER, 'hello');
    assert.match(text, /No LLM provider is configured[\s\S]*OPENAI_API_KEY[\s\S]*waiter config set core\.llm\.sources/);
  });
});
