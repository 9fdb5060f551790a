import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import webui, { WebuiConfigError } from './index.js';
import { authedFetch, createMiniHost, type MiniHost } from './__fixtures__/mini-host.js';
import { readSse } from './__fixtures__/read-sse.js';
import type { PluginSDK } from '../../spec/index.js';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

describe('webui server', () => {
  let host: MiniHost;
  let url: string;
  let webRoot: string;
  let sdk: PluginSDK;

  before(async () => {
    host = createMiniHost();
    webRoot = mkdtempSync(join(tmpdir(), 'ha-webroot-'));
    mkdirSync(join(webRoot, 'assets'));
    writeFileSync(join(webRoot, 'index.html'), '<!doctype html><title>HomeAgent SPA</title>');
    writeFileSync(join(webRoot, 'assets', 'app-1.js'), 'console.log(1)');
    sdk = await host.start(webui, { port: 0, web_root: webRoot, heartbeat_ms: 1000 });
    url = (sdk.use('host.agent')!.endpoints()).webui!;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  });
  after(async () => {
    await host.stop();
    rmSync(webRoot, { recursive: true, force: true });
  });

  it('reports status with the published URL', async () => {
    const res = await authedFetch(`${url}/api/v1/status`);
    assert.equal(res.status, 200);
    const j = (await res.json()) as { ok: boolean; webui: { url: string }; agent: { busy: boolean }; services: Record<string, boolean> };
    assert.equal(j.ok, true);
    assert.equal(j.webui.url, url);
    assert.equal(j.agent.busy, false);
    assert.equal(j.services.memory, false);
  });

  it('answers bad input with JSON errors: 400 malformed, 413 oversized, 404 unknown, 503 missing service', async () => {
    const bad = await authedFetch(`${url}/api/v1/chat`, { method: 'POST', body: '{"text": ', headers: { 'content-type': 'application/json' } });
    assert.equal(bad.status, 400);
    assert.deepEqual(((await bad.json()) as { error: { code: string } }).error.code, 'BAD_JSON');
    const big = await authedFetch(`${url}/api/v1/sessions`, { method: 'POST', body: JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) }) });
    assert.equal(big.status, 413);
    assert.equal(((await big.json()) as { ok: boolean }).ok, false);
    const nf = await authedFetch(`${url}/api/v1/nothing-here`);
    assert.equal(nf.status, 404);
    assert.equal(((await nf.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
    const mem = await authedFetch(`${url}/api/v1/memory/stats`);
    assert.equal(mem.status, 503);
    assert.match(((await mem.json()) as { error: { message: string } }).error.message, /memory subsystem/);
    const empty = await authedFetch(`${url}/api/v1/chat`, { method: 'POST', body: JSON.stringify({ text: '   ' }) });
    assert.equal(empty.status, 400);
    const badId = await authedFetch(`${url}/api/v1/sessions/..%2Fetc/events`);
    assert.equal(badId.status, 400);
  });

  it('creates, renames and lists sessions', async () => {
    const c = await authedFetch(`${url}/api/v1/sessions`, { method: 'POST', body: JSON.stringify({ title: 'first' }) });
    assert.equal(c.status, 201);
    const { session } = (await c.json()) as { session: { id: string } };
    assert.match(session.id, /^webui:/);
    const r = await authedFetch(`${url}/api/v1/sessions/${encodeURIComponent(session.id)}`, { method: 'PATCH', body: JSON.stringify({ title: 'renamed' }) });
    assert.equal(r.status, 200);
    const list = (await (await authedFetch(`${url}/api/v1/sessions`)).json()) as { sessions: { id: string; title: string }[] };
    assert.equal(list.sessions.find((s) => s.id === session.id)?.title, 'renamed');
    const missing = await authedFetch(`${url}/api/v1/sessions/webui:nope`, { method: 'PATCH', body: JSON.stringify({ title: 'x' }) });
    assert.equal(missing.status, 404);
  });

  it('streams a turn over SSE with ids, and a message during the turn becomes an interrupt', async () => {
    host.script({ rounds: [{ text: 'Let me look that up for you.', tool: { name: 'files_read', args: { path: 'a.txt' }, result: 'hello' } }, { text: 'The file says hello.' }], chunkMs: 30 });
    const sse = await authedFetch(`${url}/api/v1/events`);
    assert.equal(sse.headers.get('content-type')?.split(';')[0], 'text/event-stream');
    const sent = await authedFetch(`${url}/api/v1/chat`, { method: 'POST', body: JSON.stringify({ text: 'read a.txt' }) });
    assert.equal(sent.status, 202);
    const first = (await sent.json()) as { turnId: string; sessionId: string; delivery: string };
    assert.equal(first.delivery, 'new-turn');
    // While the turn streams, a second message to the same session is an interrupt.
    await new Promise((r) => setTimeout(r, 40));
    const again = (await (await authedFetch(`${url}/api/v1/chat`, { method: 'POST', body: JSON.stringify({ sessionId: first.sessionId, text: 'stop, use b.txt' }) })).json()) as { delivery: string; turnId: string };
    assert.equal(again.delivery, 'interrupt');
    assert.equal(again.turnId, first.turnId);
    assert.deepEqual(host.interrupts.at(-1), { sessionId: first.sessionId, source: 'webui', text: 'stop, use b.txt' });
    const evs = await readSse(sse, (e) => e.some((x) => x.event === 'turn_end'));
    const names = evs.map((e) => e.event);
    for (const n of ['hello', 'turn_start', 'turn_delta', 'agent_llm_chain', 'tool_start', 'tool_end', 'interrupt', 'turn_end']) assert.ok(names.includes(n), `missing ${n} in ${names.join(',')}`);
    const ids = evs.filter((e) => e.id).map((e) => Number(e.id));
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
    assert.equal(host.inputs.at(-1)?.channel, 'webui');
    const events = (await (await authedFetch(`${url}/api/v1/sessions/${encodeURIComponent(first.sessionId)}/events`)).json()) as { events: { kind: string }[] };
    assert.deepEqual(events.events.map((e) => e.kind), ['user', 'tool_call', 'tool_result', 'assistant']);
  });

  it('replays missed events after Last-Event-ID', async () => {
    host.emit('custom:test.progress', { n: 1 });
    host.emit('custom:test.progress', { n: 2 });
    const probe = await authedFetch(`${url}/api/v1/events`);
    host.emit('custom:test.progress', { n: 3 });
    const got = await readSse(probe, (e) => e.some((x) => x.event === 'custom:test.progress'));
    const lastId = Number(got.find((x) => x.event === 'custom:test.progress')!.id);
    const res = await authedFetch(`${url}/api/v1/events`, { headers: { 'last-event-id': String(lastId - 2) } });
    const replay = await readSse(res, (e) => e.filter((x) => x.event === 'custom:test.progress').length >= 2);
    assert.deepEqual(replay.filter((x) => x.event === 'custom:test.progress').map((x) => x.payload.n), [2, 3]);
  });

  it('publishes output-channel messages to SSE', async () => {
    const sse = await authedFetch(`${url}/api/v1/events`);
    const handler = sdk.use('channel:webui' as never) as unknown as (m: unknown) => void;
    handler({ sessionId: 'webui:x', turnId: 'webui:x#1', payload: 'final answer', type: 'text', meta: { status: 'ok' } });
    handler({ sessionId: 'webui:x', payload: 'reminder!', type: 'text', meta: {} });
    const evs = await readSse(sse, (e) => e.filter((x) => x.event === 'output').length >= 2);
    const outs = evs.filter((x) => x.event === 'output').map((x) => x.payload);
    assert.deepEqual(outs.map((o) => [o.payload, o.kind]), [['final answer', 'reply'], ['reminder!', 'message']]);
  });

  it('mounts plugin routes and drops them when the plugin stops', async () => {
    const disposers: (() => void)[] = [];
    const probe = { name: 'probe', start(s: PluginSDK) {
      disposers.push(s.registerRoute({ method: 'GET', path: '/api/v1/probe/:id', handler: (_req, p) => Response.json({ ok: true, id: p.id }) }));
      disposers.push(s.registerRoute({ method: 'POST', path: '/api/v1/probe/boom', handler: () => { throw new Error('kaput'); } }));
    } };
    await host.start(probe);
    const res = await authedFetch(`${url}/api/v1/probe/a%20b`);
    assert.deepEqual(await res.json(), { ok: true, id: 'a b' });
    const boom = await authedFetch(`${url}/api/v1/probe/boom`, { method: 'POST' });
    assert.equal(boom.status, 500);
    assert.equal(((await boom.json()) as { ok: boolean }).ok, false);
    const wrongMethod = await authedFetch(`${url}/api/v1/probe/x`, { method: 'DELETE' });
    assert.equal(wrongMethod.status, 405);
    for (const d of disposers) d();
    const gone = await authedFetch(`${url}/api/v1/probe/x`);
    assert.equal(gone.status, 404);
  });

  it('serves the SPA, its assets, the index for client routes, and never a file outside the root', async () => {
    const index = await fetch(`${url}/`);
    assert.match(await index.text(), /HomeAgent SPA/);
    const asset = await fetch(`${url}/assets/app-1.js`);
    assert.equal(asset.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
    const deep = await fetch(`${url}/settings/providers`);
    assert.match(await deep.text(), /HomeAgent SPA/);
    const missingAsset = await fetch(`${url}/assets/nope.js`);
    assert.equal(missingAsset.status, 404);
    const escape = await fetch(`${url}/..%2f..%2fetc%2fpasswd`);
    assert.doesNotMatch(await escape.text(), /root:/);
  });

  it('refuses requests whose Host header is not loopback (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${url}/api/v1/status`);
      const req = request({ host: u.hostname, port: u.port, path: u.pathname, headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 403);
  });
});

describe('webui auth and start-up', () => {
  it('refuses to listen on a non-loopback address without a token', async () => {
    const host = createMiniHost();
    try {
      await assert.rejects(() => host.start(webui, { host: '0.0.0.0', port: 0 }), (e: unknown) => e instanceof WebuiConfigError && /token/.test((e as Error).message));
    } finally {
      await host.stop();
    }
  });

  it('requires the token when one is set (Bearer header, or ?token= for SSE)', async () => {
    const host = createMiniHost();
    try {
      const sdk = await host.start(webui, { port: 0, token: 's3cret', web_root: join(tmpdir(), 'ha-no-such-webroot') });
      const url = sdk.use('host.agent')!.endpoints().webui!;
      assert.equal((await fetch(`${url}/api/v1/status`)).status, 401);
      assert.equal((await fetch(`${url}/api/v1/status`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
      assert.equal((await fetch(`${url}/api/v1/status`, { headers: { authorization: 'Bearer s3cret' } })).status, 200);
      const sse = await fetch(`${url}/api/v1/events?token=s3cret`);
      assert.equal(sse.status, 200);
      await sse.body!.cancel();
      // Without a build the page says how to build it.
      assert.match(await (await fetch(`${url}/`)).text(), /npm run build/);
    } finally {
      await host.stop();
    }
  });

  it('a port in use fails with one coded line that names the fix', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as AddressInfo).port;
    const host = createMiniHost();
    try {
      await assert.rejects(
        () => host.start(webui, { port }),
        (e: unknown) => {
          const err = e as { code?: string; message: string };
          assert.equal(err.code, 'WEBUI_PORT_IN_USE');
          assert.match(err.message, new RegExp(`port ${port} .*already in use`));
          assert.match(err.message, /homed --port/);
          assert.match(err.message, /plugin\.webui\.port/);
          assert.ok(err.message.indexOf('--port') < err.message.indexOf('plugin.webui.port'), 'another port for this run first, the setting to keep one');
          assert.doesNotMatch(err.message, /\n/);
          return true;
        },
      );
    } finally {
      await host.stop();
      await new Promise<void>((r) => taken.close(() => r()));
    }
  });

  it('stop is idempotent and removes the endpoint', async () => {
    const host = createMiniHost();
    const sdk = await host.start(webui, { port: 0 });
    const url = sdk.use('host.agent')!.endpoints().webui!;
    await webui.stop!();
    await webui.stop!();
    assert.equal(sdk.use('host.agent')!.endpoints().webui, undefined);
    await assert.rejects(() => fetch(`${url}/api/v1/status`));
    await host.stop();
  });
});
