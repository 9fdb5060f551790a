/**
 * The person's own LLM sources (L-3, issue 14): added, used through the same Lua adapters,
 * ordered, tested, listed for models, removed — with the real config registry (SQLite) and the
 * fake LLM server speaking the OpenAI and Anthropic wire formats over loopback.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startFakeLlm } from '../../test/fixtures/fake-llm/index.js';
import { ConfigRegistry, coreConfigDefaults } from '../config/index.js';
import { ConflictError, NotFoundError, ProviderError, ValidationError } from '../spec/index.js';
import { BUILTIN_ADAPTERS_DIR, ProviderManager, providerConfigDefaults, sourceKey } from './index.js';

const KEY = 'sk-my-own-endpoint-SECRET-9876';
const ANT_KEY = 'sk-ant-compatible-SECRET-5432';

async function rig(t: TestContext, dir?: string) {
  const llm = await startFakeLlm();
  const home = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ha-sources-'));
  const make = () => {
    const config = new ConfigRegistry({ dbPath: path.join(home, 'config.db'), env: {}, logger: { warn() {} } });
    config.open();
    config.register(coreConfigDefaults());
    config.register(providerConfigDefaults());
    const manager = new ProviderManager({ config, adapterDirs: [BUILTIN_ADAPTERS_DIR], probeOllama: false, env: {} });
    return { config, manager };
  };
  let cur = make();
  await cur.manager.start();
  const close = async () => {
    await cur.manager.stop();
    cur.config.close();
  };
  t.after(async () => {
    await close().catch(() => {});
    await llm.close();
    fs.rmSync(home, { recursive: true, force: true });
  });
  return {
    llm,
    home,
    get config() {
      return cur.config;
    },
    get manager() {
      return cur.manager;
    },
    /** Close everything and open the same data folder again (a daemon restart). */
    async restart() {
      await close();
      cur = make();
      await cur.manager.start();
    },
  };
}

test('an OpenAI-compatible source: added, last in the order, used first when ordered so, key sent and masked', async (t) => {
  const r = await rig(t);
  const added = await r.manager.addSource({ name: 'my-llm', label: 'My LLM', baseUrl: `${r.llm.url}/v1`, apiKey: KEY, model: 'fake-model', models: ['fake-model', 'fake-large'] });
  assert.equal(added.custom, true);
  assert.equal(added.label, 'My LLM');
  assert.equal(added.hasKey, true);
  assert.equal(added.adapter, 'openai-compatible');
  assert.equal(added.state, 'ready');
  assert.deepEqual(added.models, ['fake-model', 'fake-large']);
  assert.equal(r.manager.order().at(-1), 'my-llm');
  assert.doesNotMatch(JSON.stringify(r.manager.status()), new RegExp(KEY), 'no status carries the key');
  const listed = r.config.list('core.llm.sources.my-llm');
  assert.equal(listed.find((k) => k.key === 'core.llm.sources.my-llm.api_key')?.value, '••••9876', 'the key is a masked secret');

  await r.manager.setOrder(['my-llm']);
  r.llm.enqueue({ text: 'hello from my endpoint' });
  const out = await r.manager.run({ messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(out.provider, 'my-llm');
  assert.equal(out.text, 'hello from my endpoint');
  const chat = r.llm.requests.find((q) => q.path === '/v1/chat/completions')!;
  assert.equal(chat.headers.authorization, `Bearer ${KEY}`);
  assert.equal(chat.body.model, 'fake-model');

  r.llm.setModels(['fake-model', 'fake-large', 'fake-vision']);
  const models = await r.manager.listModels('my-llm');
  assert.deepEqual(models.models, ['fake-large', 'fake-model', 'fake-vision']);
  assert.deepEqual(models.declared, ['fake-model', 'fake-large']);
  assert.equal(r.llm.requests.filter((q) => q.format === 'models').at(-1)?.headers.authorization, `Bearer ${KEY}`);

  const tested = await r.manager.testSource('my-llm');
  assert.equal(tested.ok, true);
});

test('an Anthropic-compatible source speaks the Messages API; seeded sources list their models through their adapters', async (t) => {
  const r = await rig(t);
  await r.manager.addSource({ name: 'claude-proxy', api: 'anthropic', baseUrl: r.llm.url, apiKey: ANT_KEY, model: 'claude-x' });
  await r.manager.setOrder(['claude-proxy']);
  r.llm.enqueue({ text: 'bonjour' });
  const out = await r.manager.run({ messages: [{ role: 'user', content: 'salut' }] });
  assert.equal(out.text, 'bonjour');
  const call = r.llm.requests.find((q) => q.format === 'anthropic')!;
  assert.equal(call.path, '/v1/messages');
  assert.equal(call.headers['x-api-key'], ANT_KEY);
  r.llm.setModels(['claude-x', 'claude-y']);
  assert.deepEqual((await r.manager.listModels('claude-proxy')).models, ['claude-x', 'claude-y']);
  const req = r.llm.requests.filter((q) => q.format === 'models').at(-1)!;
  assert.equal(req.path, '/v1/models?limit=1000');
  assert.equal(req.headers['x-api-key'], ANT_KEY);

  // Seeded sources too: Gemini's /v1beta/models and Ollama's /api/tags.
  await r.config.set(sourceKey('gemini', 'base_url'), r.llm.url);
  await r.config.set(sourceKey('gemini', 'api_key'), 'g-key-123456789');
  assert.deepEqual((await r.manager.listModels('gemini')).models, ['claude-x', 'claude-y']);
  await r.config.set(sourceKey('ollama', 'base_url'), r.llm.url);
  assert.deepEqual((await r.manager.listModels('ollama')).models, ['claude-x', 'claude-y']);
});

test('added sources survive a restart; update changes them; remove deletes their key from the database', async (t) => {
  const r = await rig(t);
  await r.manager.addSource({ name: 'lab', baseUrl: `${r.llm.url}/v1`, apiKey: KEY, model: 'fake-model' });
  await r.manager.setOrder(['lab', 'openai']);
  await r.restart();
  assert.ok(r.manager.status().some((s) => s.name === 'lab' && s.custom && s.hasKey), 'still there after a restart');
  assert.deepEqual(r.manager.order().slice(0, 2), ['lab', 'openai']);
  r.llm.enqueue({ text: 'after restart' });
  assert.equal((await r.manager.run({ messages: [{ role: 'user', content: 'x' }] })).text, 'after restart');

  const updated = await r.manager.updateSource('lab', { model: 'fake-large', label: 'Lab box', models: ['fake-large'] });
  assert.equal(updated.model, 'fake-large');
  assert.equal(updated.label, 'Lab box');

  await r.manager.removeSource('lab');
  assert.ok(!r.manager.status().some((s) => s.name === 'lab'));
  assert.ok(!r.manager.order().includes('lab'));
  assert.equal(r.config.has(sourceKey('lab', 'api_key')), false);
  await r.restart();
  assert.ok(!r.manager.status().some((s) => s.name === 'lab'), 'gone after a restart too');
  const db = new Database(path.join(r.home, 'config.db'), { readonly: true });
  try {
    const rows = db.prepare("SELECT key, value FROM config WHERE key LIKE 'core.llm.sources.lab.%'").all();
    assert.deepEqual(rows, [], 'no setting of the removed source is left, the key least of all');
  } finally {
    db.close();
  }
});

test('bad input: clear coded errors, nothing half-added', async (t) => {
  const r = await rig(t);
  const before = r.manager.status().length;
  await assert.rejects(r.manager.addSource({ name: 'openai', baseUrl: 'https://x.example/v1' }), ConflictError);
  await assert.rejects(r.manager.addSource({ name: 'Bad Name', baseUrl: 'https://x.example/v1' }), (e: unknown) => e instanceof ValidationError && /name/.test((e as Error).message));
  await assert.rejects(r.manager.addSource({ name: 'ftp', baseUrl: 'ftp://x.example/' }), ValidationError);
  await assert.rejects(r.manager.addSource({ name: 'nourl' }), (e: unknown) => e instanceof ValidationError && /baseUrl/.test((e as Error).message));
  await assert.rejects(r.manager.addSource({ name: 'noadapter', baseUrl: 'https://x.example/v1', adapter: 'no-such-adapter' }), /no Lua adapter/);
  await assert.rejects(r.manager.addSource({ name: 'extra', baseUrl: 'https://x.example/v1', secretField: 1 }), ValidationError);
  assert.equal(r.manager.status().length, before, 'nothing was added');
  await r.manager.addSource({ name: 'twice', baseUrl: 'https://x.example/v1' });
  await assert.rejects(r.manager.addSource({ name: 'twice', baseUrl: 'https://y.example/v1' }), ConflictError);
  await assert.rejects(r.manager.removeSource('openai'), (e: unknown) => e instanceof ValidationError && /built-in/.test((e as Error).message));
  await assert.rejects(r.manager.updateSource('openai', { label: 'x' }), ValidationError);
  await assert.rejects(r.manager.removeSource('nope'), NotFoundError);
  await assert.rejects(r.manager.testSource('nope'), NotFoundError);
  await assert.rejects(r.manager.listModels('nope'), NotFoundError);
  await assert.rejects(r.manager.setOrder(['nope']), ValidationError);
  // A model list that fails is a ProviderError without the key in it.
  await r.manager.addSource({ name: 'broken', baseUrl: `${r.llm.url}/nothing-here`, apiKey: KEY });
  await assert.rejects(r.manager.listModels('broken'), (e: unknown) => e instanceof ProviderError && /HTTP 404/.test((e as Error).message) && !(e as Error).message.includes(KEY));
  const failing = await r.manager.testSource('broken');
  assert.equal(failing.ok, false);
  assert.doesNotMatch(failing.error ?? '', new RegExp(KEY));
  // A credential in the base URL is not shown.
  await r.manager.addSource({ name: 'userinfo', baseUrl: 'https://me:hunter2-password@llm.example/v1' });
  assert.equal(r.manager.status().find((s) => s.name === 'userinfo')?.baseUrl, 'https://llm.example/v1');
});

test('an added source without a key (a keyless server of your own) is still tested and asked for its models', async (t) => {
  const r = await rig(t);
  await r.manager.addSource({ name: 'lab', baseUrl: `${r.llm.url}/v1`, model: 'fake-model' });
  r.llm.setModels(['fake-model']);
  assert.deepEqual((await r.manager.listModels('lab')).models, ['fake-model']);
  assert.equal(r.llm.requests.at(-1)!.format, 'models');
  r.llm.enqueue({ text: 'ok' });
  assert.equal((await r.manager.testSource('lab')).ok, true);
});

test('a source added without a model is not ready: its test says what to set without a request; its model list still answers, and with a model it is ready', async (t) => {
  const r = await rig(t);
  await r.manager.addSource({ name: 'nomodel', baseUrl: `${r.llm.url}/v1`, apiKey: KEY });
  const st = r.manager.status().find((s) => s.name === 'nomodel')!;
  assert.equal(st.model, '');
  assert.equal(st.configured, false);
  assert.equal(st.state, 'unconfigured', 'a source that would send "model": "" is not "ready"');
  const before = r.llm.requests.length;
  const test1 = await r.manager.testSource('nomodel');
  assert.equal(test1.code, 'PROVIDER_NO_MODEL');
  assert.match(test1.error ?? '', /nomodel has no model: pick one/);
  assert.equal(r.llm.requests.length, before, 'no request went out');
  // The model list still works (it is how the person picks one), and with a model it is ready.
  r.llm.setModels(['m-1']);
  assert.deepEqual((await r.manager.listModels('nomodel')).models, ['m-1']);
  await r.config.set(sourceKey('nomodel', 'model'), 'm-1');
  assert.equal(r.manager.status().find((s) => s.name === 'nomodel')!.state, 'ready');
  r.llm.enqueue({ text: 'ok' });
  assert.equal((await r.manager.testSource('nomodel')).ok, true);
  assert.equal((r.llm.requests.at(-1)!.body as { model?: string }).model, 'm-1');
});
