import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createTestHost } from '../../sdk/testing/index.js';
import { definePlugin } from '../../sdk/index.js';
import { pluginmgrPlugin } from './index.js';
import { cfgmgrPlugin } from '../cfgmgr/index.js';
import { matchPath } from '../__fixtures__/call-route.js';

test('plugin routes over real loopback HTTP answer JSON errors: malformed JSON, oversized (declared and chunked), unknown plugin', async (t) => {
  const ref: { host?: Awaited<ReturnType<typeof createTestHost>> } = {};
  const configSvc = definePlugin({
    name: 'test-config',
    start(sdk) {
      sdk.provide('host.config', { list: (p) => ref.host!.config.list(p), get: (k) => ref.host!.config.info(k), set: (k, v) => ref.host!.config.set(k, v), reset: (k) => ref.host!.config.reset(k) });
    },
  });
  const host = await createTestHost({ plugins: [configSvc, pluginmgrPlugin, cfgmgrPlugin] });
  ref.host = host;
  t.after(() => host.close());
  await host.config.set('plugin.pluginmgr.max_install_bytes', 2048);
  // A minimal stand-in for the webui server: dispatch to the routes of the host's route table.
  const server = http.createServer(
    getRequestListener(async (req) => {
      const path = new URL(req.url).pathname;
      const routes = host.host.routes.list().filter((r) => r.method === req.method && matchPath(r.path, path));
      const r = routes.find((x) => x.path === path) ?? routes[0];
      return r ? r.handler(req, matchPath(r.path, path)!) : new Response('{"ok":false}', { status: 404 });
    }),
  );
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  t.after(() => new Promise<void>((res) => server.close(() => res())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (method: string, path: string, body?: BodyInit, init: RequestInit = {}) => {
    const res = await fetch(base + path, { method, body, ...init } as RequestInit);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    return { status: res.status, json: (await res.json()) as { ok: boolean; error?: { code: string; message: string } } };
  };

  const malformed = await call('PUT', '/api/v1/settings/plugin.pluginmgr.max_install_bytes', '{"value": 12', { headers: { 'content-type': 'application/json' } });
  assert.deepEqual([malformed.status, malformed.json.ok, malformed.json.error?.code], [400, false, 'PROTOCOL']);
  const tooBig = await call('POST', '/api/v1/plugins/install', new Uint8Array(5000));
  assert.deepEqual([tooBig.status, tooBig.json.error?.code], [413, 'PAYLOAD_TOO_LARGE']);
  // chunked: no Content-Length, so the limit is enforced while reading
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < 5; i++) c.enqueue(new Uint8Array(1000).fill(0x50));
      c.close();
    },
  });
  const chunked = await call('POST', '/api/v1/plugins/install', stream, { duplex: 'half' } as RequestInit);
  assert.equal(chunked.status, 413);
  const unknown = await call('POST', '/api/v1/plugins/ghost/reload');
  assert.deepEqual([unknown.status, unknown.json.error?.code], [404, 'NOT_FOUND']);
  const ok = await call('GET', '/api/v1/plugins');
  assert.equal(ok.status, 200);
  assert.equal(ok.json.ok, true);
});
