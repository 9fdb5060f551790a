import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { createTestHost, type TestHost } from '../../sdk/testing/index.js';
import { definePlugin } from '../../sdk/index.js';
import { cfgmgrPlugin, isProtectedKey, DEFAULT_PROTECTED_KEYS } from './index.js';
import { callRoute } from '../__fixtures__/call-route.js';

/** The daemon provides host.config; the test host does not, so a test plugin offers it over the real registry. */
function configService(get: () => TestHost) {
  return definePlugin({
    name: 'test-config',
    settings: {
      level: { default: 3, description: 'a number 0..10', schema: z.number().int().min(0).max(10) },
      token: { default: '', description: 'a secret', schema: z.string(), secret: true },
    },
    start(sdk) {
      sdk.provide('host.config', {
        list: (p) => get().config.list(p),
        get: (k) => get().config.info(k),
        set: (k, v) => get().config.set(k, v),
        reset: (k) => get().config.reset(k),
      });
    },
  });
}

async function setup(t: { after(fn: () => Promise<void>): void }): Promise<{ host: TestHost; r: (m: string, p: string, body?: BodyInit) => ReturnType<typeof callRoute> }> {
  const ref: { host?: TestHost } = {};
  const host = await createTestHost({ plugins: [configService(() => ref.host!), cfgmgrPlugin] });
  ref.host = host;
  t.after(() => host.close());
  return { host, r: (m, p, body) => callRoute(host.host.routes.list(), m, p, body, { 'content-type': 'application/json' }) };
}

test('cfgmgr routes: list, get, put, reset; secrets masked', async (t) => {
  const { host, r } = await setup(t);
  const list = await r('GET', '/api/v1/settings?prefix=plugin.test-config');
  assert.equal(list.status, 200);
  assert.deepEqual((list.json.value as { key: string }[]).map((k) => k.key).sort(), ['plugin.test-config.level', 'plugin.test-config.token']);
  const put = await r('PUT', '/api/v1/settings/plugin.test-config.level', JSON.stringify({ value: 7 }));
  assert.equal(put.status, 200);
  assert.equal((put.json.value as { value: number }).value, 7);
  assert.equal(host.config.get('plugin.test-config.level'), 7);
  await r('PUT', '/api/v1/settings/plugin.test-config.token', JSON.stringify({ value: 'sk-verysecretvalue123' }));
  const tok = await r('GET', '/api/v1/settings/plugin.test-config.token');
  assert.notEqual((tok.json.value as { value: string }).value, 'sk-verysecretvalue123');
  const reset = await r('DELETE', '/api/v1/settings/plugin.test-config.level');
  assert.equal((reset.json.value as { value: number }).value, 3);
});

test('cfgmgr routes answer JSON errors: malformed JSON, missing value, invalid value with key, unknown key, oversized body', async (t) => {
  const { r } = await setup(t);
  const malformed = await r('PUT', '/api/v1/settings/plugin.test-config.level', '{"value": ');
  assert.equal(malformed.status, 400);
  assert.equal(malformed.json.error?.code, 'PROTOCOL');
  assert.equal((await r('PUT', '/api/v1/settings/plugin.test-config.level', '{"v": 1}')).status, 400);
  const invalid = await r('PUT', '/api/v1/settings/plugin.test-config.level', JSON.stringify({ value: 99 }));
  assert.equal(invalid.status, 400);
  assert.equal(invalid.json.error?.code, 'VALIDATION');
  assert.equal(invalid.json.error?.details?.key, 'plugin.test-config.level');
  assert.equal((await r('GET', '/api/v1/settings/plugin.test-config.nope')).status, 404);
  assert.equal((await r('GET', '/api/v1/settings/NOT A KEY')).status, 400);
  const big = await r('PUT', '/api/v1/settings/plugin.test-config.level', JSON.stringify({ value: 'x'.repeat(300 * 1024) }));
  assert.equal(big.status, 413);
});

test('cfgmgr tools: config_get, config_set (validated), config_list', async (t) => {
  const { host } = await setup(t);
  assert.match(await host.callTool('config_get', { key: 'plugin.test-config.level' }), /= 3 \(default\)/);
  assert.match(await host.callTool('config_set', { key: 'plugin.test-config.level', value: 5 }), /= 5/);
  await assert.rejects(host.callTool('config_set', { key: 'plugin.test-config.level', value: 'high' }), /level/);
  assert.match(await host.callTool('config_list', { prefix: 'plugin.test-config' }), /plugin\.test-config\.level = 5/);
  // guard rails and secrets are the user's: the agent cannot change them
  await assert.rejects(host.callTool('config_set', { key: 'plugin.test-config.token', value: 'x' }), /only be changed by the user/);
  await assert.rejects(host.callTool('config_set', { key: 'plugin.cfgmgr.tool_protected_keys', value: [] }), /only be changed by the user/);
  // …while the HTTP API (the user) can
  const put = await callRoute(host.host.routes.list(), 'PUT', '/api/v1/settings/plugin.test-config.token', JSON.stringify({ value: 'abc' }));
  assert.equal(put.status, 200);
});

test('isProtectedKey: exact keys and prefixes', () => {
  assert.equal(isProtectedKey('plugin.cmd.allowlist', DEFAULT_PROTECTED_KEYS), true);
  assert.equal(isProtectedKey('plugin.mcp.servers', DEFAULT_PROTECTED_KEYS), true);
  assert.equal(isProtectedKey('plugin.mcp.call_timeout_ms', DEFAULT_PROTECTED_KEYS), false);
  assert.equal(isProtectedKey('plugin.timer.timezone', DEFAULT_PROTECTED_KEYS), false);
});
