import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestHost } from '../../sdk/testing/index.js';
import { definePlugin } from '../../sdk/index.js';
import { pluginmgrPlugin } from './index.js';
import { callRoute } from '../__fixtures__/call-route.js';

const dummy = definePlugin({
  name: 'dummy',
  start(sdk) {
    sdk.registerTool({ name: 'dummy_ping', description: 'ping', parameters: { type: 'object', properties: {} }, handler: () => 'pong' });
  },
});

test('pluginmgr routes: list, disable/enable/reload over host.plugins; plugin_list tool', async (t) => {
  const host = await createTestHost({ plugins: [pluginmgrPlugin, dummy] });
  t.after(() => host.close());
  const routes = () => host.host.routes.list();
  const list = await callRoute(routes(), 'GET', '/api/v1/plugins');
  assert.equal(list.status, 200);
  const names = (list.json.value as { name: string }[]).map((p) => p.name);
  assert.ok(names.includes('dummy') && names.includes('pluginmgr'));
  assert.equal((await callRoute(routes(), 'GET', '/api/v1/plugins/dummy')).json.value && true, true);

  const off = await callRoute(routes(), 'POST', '/api/v1/plugins/dummy/disable');
  assert.equal(off.status, 200);
  assert.equal((off.json.value as { state: string }).state, 'disabled');
  assert.equal(host.agent.tools.build().some((d) => d.name === 'dummy_ping'), false);
  const on = await callRoute(routes(), 'POST', '/api/v1/plugins/dummy/enable');
  assert.equal((on.json.value as { state: string }).state, 'running');
  assert.equal(await host.callTool('dummy_ping'), 'pong');
  assert.equal((await callRoute(routes(), 'POST', '/api/v1/plugins/dummy/reload')).status, 200);
  assert.match(await host.callTool('plugin_list'), /dummy \(builtin\): running; tools: dummy_ping/);
});

test('pluginmgr routes answer JSON errors: unknown plugin 404, bad name 400, not a zip 400, oversized 413, built-in delete 400', async (t) => {
  const host = await createTestHost({ plugins: [pluginmgrPlugin, dummy] });
  t.after(() => host.close());
  await host.config.set('plugin.pluginmgr.max_install_bytes', 1024);
  const r = (m: string, p: string, body?: BodyInit) => callRoute(host.host.routes.list(), m, p, body);
  const unknown = await r('POST', '/api/v1/plugins/nope/enable');
  assert.equal(unknown.status, 404);
  assert.deepEqual([unknown.json.ok, unknown.json.error?.code], [false, 'NOT_FOUND']);
  assert.equal((await r('GET', '/api/v1/plugins/nope')).status, 404);
  const bad = await r('POST', '/api/v1/plugins/..%2Fetc/reload');
  assert.equal(bad.status, 400);
  assert.equal(bad.json.error?.code, 'VALIDATION');
  const notZip = await r('POST', '/api/v1/plugins/install', 'hello, not a zip');
  assert.equal(notZip.status, 400);
  const big = await r('POST', '/api/v1/plugins/install', new Uint8Array(4096).fill(0x50));
  assert.equal(big.status, 413);
  assert.equal(big.json.error?.code, 'PAYLOAD_TOO_LARGE');
  const broken = await r('POST', '/api/v1/plugins/install', new Uint8Array([0x50, 0x4b, 3, 4, 9, 9, 9, 9]));
  assert.ok(broken.status >= 400 && broken.status < 500, `broken archive → ${broken.status} ${JSON.stringify(broken.json)}`);
  assert.equal(broken.json.ok, false);
  const del = await r('DELETE', '/api/v1/plugins/dummy');
  assert.equal(del.status, 400);
  assert.match(del.json.error!.message, /built in/);
  assert.equal(host.plugin('dummy')?.state, 'running');
});
