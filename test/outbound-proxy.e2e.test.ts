/**
 * The outbound proxy (decision 0670) in a real daemon: LLM sources and the Telegram Bot API are
 * reached through an HTTP CONNECT proxy on loopback. Their base URLs use names that resolve
 * nowhere (`*.example.invalid`), which only the proxy maps to the fake servers — so an answer
 * proves the request went through the proxy, as one to api.openai.com would.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import { startFakeBotApi, type FakeBotApi } from '../src/builtins/telegram/__fixtures__/fake-bot-api.js';
import { startConnectProxy, type ConnectProxy } from '../src/net/__fixtures__/connect-proxy.js';
import { until } from './fixtures/until.js';

async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('the outbound proxy in a running daemon', { timeout: 120_000 }, () => {
  let llm: FakeLlm;
  let bot: FakeBotApi;
  let proxy: ConnectProxy;
  let d: Daemon;
  let home: string;
  let llmHost: string;
  let botHost: string;

  const api = (path: string, init: RequestInit = {}) => fetch(`${d.url}${path}`, { ...init, headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
  const put = (key: string, value: unknown) => api(`/api/v1/settings/${encodeURIComponent(key)}`, { method: 'PUT', body: JSON.stringify({ value }) });
  const testSource = async () => ((await (await api('/api/v1/providers/openai/test', { method: 'POST' })).json()) as { result: { ok: boolean; error?: string; code?: string } }).result;

  before(async () => {
    llm = await startFakeLlm();
    bot = await startFakeBotApi();
    llmHost = `llm.example.invalid:${new URL(llm.url).port}`;
    botHost = `bot.example.invalid:${new URL(bot.url).port}`;
    proxy = await startConnectProxy({ routes: { [llmHost]: `127.0.0.1:${new URL(llm.url).port}`, [botHost]: `127.0.0.1:${new URL(bot.url).port}` } });
    home = mkdtempSync(join(tmpdir(), 'ha-proxy-'));
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `http://${llmHost}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
  });
  after(async () => {
    await d?.stop();
    await Promise.all([llm?.close(), bot?.close(), proxy?.close()]);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('an LLM source on the internet is reached through the proxy the setting names', async () => {
    assert.equal((await put('core.network.proxy', proxy.url)).status, 200);
    const tunnels = proxy.tunnels();
    const r = await testSource();
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.ok(proxy.tunnels() > tunnels);
    assert.ok(proxy.asked.includes(llmHost), proxy.asked.join(', '));
  });

  it('a source on loopback is reached directly, proxy or not', async () => {
    assert.equal((await put('core.llm.sources.openai.base_url', `${llm.url}/v1`)).status, 200);
    const asked = proxy.asked.length;
    assert.equal((await testSource()).ok, true);
    assert.equal(proxy.asked.length, asked);
    assert.equal((await put('core.llm.sources.openai.base_url', `http://${llmHost}/v1`)).status, 200);
  });

  it('the Telegram Bot API is reached through the proxy', async () => {
    assert.equal((await put('plugin.telegram.api_root', `http://${botHost}`)).status, 200);
    assert.equal((await put('plugin.telegram.bot_token', bot.token)).status, 200);
    const res = (await (await api('/api/v1/channels/telegram/test', { method: 'POST' })).json()) as { value: { ok: boolean } };
    assert.equal(res.value.ok, true, JSON.stringify(res));
    assert.ok(proxy.asked.includes(botHost), proxy.asked.join(', '));
    await until(async () => ((await (await api('/api/v1/channels/telegram')).json()) as { value: { status: string } }).value.status === 'running', 'telegram polling through the proxy');
  });

  it('the embeddings API is reached through the proxy too', async () => {
    const m = await put('core.memory.embedding_api.model', 'fake-embed');
    assert.equal(m.status, 200, await m.text());
    assert.equal((await put('core.memory.embedding_api.base_url', `http://${llmHost}/v1`)).status, 200);
    // The embedder probes the API's dimension when its settings change. The name resolves nowhere:
    // the request arrives only through the proxy (on the tunnel the source's test opened, kept alive).
    await until(async () => llm.requests.some((r) => r.format === 'embeddings'), 'the embedder probing the embeddings API');
    assert.equal(llm.requests.find((r) => r.format === 'embeddings')?.headers.host, llmHost);
  });

  it('an unreachable proxy is named in the errors of the source and of Telegram; the daemon goes on answering', async () => {
    const dead = await deadPort();
    assert.equal((await put('core.network.proxy', `http://127.0.0.1:${dead}`)).status, 200);
    const r = await testSource();
    assert.equal(r.ok, false);
    assert.match(r.error ?? '', new RegExp(`the proxy http://127\\.0\\.0\\.1:${dead} could not be reached \\(ECONNREFUSED\\) on the way to ${llmHost.replace(/\./g, '\\.')}`));
    const tg = (await (await api('/api/v1/channels/telegram/test', { method: 'POST' })).json()) as { value: { ok: boolean; error: { code: string; message: string } } };
    assert.equal(tg.value.ok, false);
    assert.equal(tg.value.error.code, 'TELEGRAM_UNREACHABLE');
    assert.match(tg.value.error.message, new RegExp(`^Telegram getMe: the proxy http://127\\.0\\.0\\.1:${dead} could not be reached`));
    assert.doesNotMatch(tg.value.error.message, new RegExp(bot.token.split(':')[1]));
    assert.equal((await api('/api/v1/status')).status, 200);
  });

  it('a malformed proxy URL is refused with a coded error and the setting keeps its value', async () => {
    const before = ((await (await api('/api/v1/settings/core.network.proxy')).json()) as { value: { value: string } }).value.value;
    for (const [bad, why] of [
      ['127.0.0.1:7890', /http:\/\/ or https:\/\/ URL/],
      ['socks5://127.0.0.1:7891', /SOCKS proxy is not supported/],
      ['http://127.0.0.1:7890/proxy.pac', /no path/],
    ] as const) {
      const res = await put('core.network.proxy', bad);
      assert.equal(res.status, 400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'VALIDATION');
      assert.match(body.error.message, /^invalid value for core\.network\.proxy: /);
      assert.match(body.error.message, why);
    }
    assert.equal(((await (await api('/api/v1/settings/core.network.proxy')).json()) as { value: { value: string } }).value.value, before);
  });

  it('the model cannot set the proxy (it would send the API keys through its own), nor read a proxy password', async () => {
    assert.equal((await put('core.network.proxy', `http://me:s3cret@127.0.0.1:${proxy.port}`)).status, 200);
    const setter = d.agent.tools.build().find((t) => t.name === 'config_set');
    const getter = d.agent.tools.build().find((t) => t.name === 'config_get');
    assert.ok(setter && getter);
    const ctx = { sessionId: 'test:1', turnId: 'test:1#0', callId: 'call_1', signal: new AbortController().signal };
    const tried = await d.agent.stages.executeTool(setter, { key: 'core.network.proxy', value: 'http://evil.example:8080' }, ctx);
    assert.match(tried.output, /FORBIDDEN|only be changed by the user/);
    assert.equal(d.config.get('core.network.proxy'), `http://me:s3cret@127.0.0.1:${proxy.port}`);
    const read = await d.agent.stages.executeTool(getter, { key: 'core.network.proxy' }, ctx);
    assert.match(read.output, /http:\/\/me:\*\*\*@127\.0\.0\.1/);
    assert.doesNotMatch(read.output, /s3cret/);
  });
});
