import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { mcpToolName, contentToText, createMcpPlugin, serversSchema } from './index.js';
import { startFake } from '../__fixtures__/fake-sdk.js';

const require = createRequire(import.meta.url);
/** The real MCP test server from npm (`@modelcontextprotocol/server-everything`). */
const EVERYTHING = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('mcpToolName: prefix, sanitizing, 64-character cap with a distinguishing hash', () => {
  assert.equal(mcpToolName('everything', 'echo'), 'mcp__everything__echo');
  assert.equal(mcpToolName('my server', 'get.thing/v2'), 'mcp__my_server__get_thing_v2');
  const a = mcpToolName('s', 'x'.repeat(80) + 'a');
  const b = mcpToolName('s', 'x'.repeat(80) + 'b');
  assert.match(a, /^[A-Za-z0-9_-]{1,64}$/);
  assert.equal(a.length, 64);
  assert.notEqual(a, b);
});

test('contentToText: text, image note, embedded resource, link, structured content, errors', () => {
  assert.equal(contentToText({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }), 'a\nb');
  assert.equal(contentToText({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }), '[image: image/png, about 3 bytes — not shown]');
  assert.equal(contentToText({ content: [{ type: 'resource', resource: { uri: 'x://1', text: 'body' } }] }), '[resource x://1]\nbody');
  assert.equal(contentToText({ content: [{ type: 'resource_link', uri: 'x://2', name: 'doc' }] }), '[link: doc x://2]');
  assert.equal(contentToText({ content: [], structuredContent: { n: 1 } }), '{"n":1}');
  assert.equal(contentToText({ content: [{ type: 'text', text: 'boom' }], isError: true }), 'MCP tool error: boom');
  assert.equal(contentToText({}), '(no output)');
});

test('servers setting: validates transports, names, uniqueness', () => {
  assert.equal(serversSchema.safeParse([{ name: 'a', command: 'node' }, { name: 'b', url: 'http://127.0.0.1:1/mcp' }]).success, true);
  assert.equal(serversSchema.safeParse([{ name: 'a', command: 'node' }, { name: 'a', command: 'x' }]).success, false);
  assert.equal(serversSchema.safeParse([{ name: 'bad name', command: 'node' }]).success, false);
  assert.equal(serversSchema.safeParse([{ name: 'a' }]).success, false);
});

test('mcp plugin with the real server-everything over stdio: tools, call, crash → tools gone → reconnect → tools back', async (t) => {
  const plugin = createMcpPlugin();
  const h = await startFake(plugin, { settings: { servers: [{ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] }], reconnect_base_ms: 50, reconnect_max_ms: 200 } });
  t.after(() => h.cleanup());
  assert.ok(h.tools.has('mcp__everything__echo'), `tools: ${[...h.tools.keys()].join(',')}`);
  const echo = h.tools.get('mcp__everything__echo')!;
  assert.equal((echo.parameters as { type: string }).type, 'object');
  assert.ok('message' in ((echo.parameters as { properties: object }).properties));
  assert.match(await h.callTool('mcp__everything__echo', { message: 'hi there' }), /Echo: hi there/);
  assert.match(await h.callTool('mcp__everything__get-sum', { a: 2, b: 3 }), /5/);
  const st = plugin.connections()[0];
  assert.equal(st.state, 'connected');
  assert.ok(st.pid);
  process.kill(st.pid!, 'SIGKILL');
  await until(() => !h.tools.has('mcp__everything__echo'), 'tools removed after the crash');
  await until(() => h.tools.has('mcp__everything__echo') && plugin.connections()[0].state === 'connected', 'reconnect');
  assert.notEqual(plugin.connections()[0].pid, st.pid);
  assert.equal(plugin.connections()[0].reconnects >= 1, true);
  assert.match(await h.callTool('mcp__everything__echo', { message: 'back' }), /Echo: back/);
  assert.match(await h.callTool('mcp_servers'), /everything \(stdio\): connected/);
  // settings change: the server is removed → its tools go away
  await h.setSetting('servers', []);
  await until(() => !h.tools.has('mcp__everything__echo'), 'tools removed after the settings change');
  assert.equal(plugin.connections().length, 0);
});

test('mcp plugin: a server that cannot start is reported and does not stop the plugin', async (t) => {
  const plugin = createMcpPlugin();
  const h = await startFake(plugin, { settings: { servers: [{ name: 'ghost', command: '/no/such/binary' }], reconnect_base_ms: 10_000 } });
  t.after(() => h.cleanup());
  const st = plugin.connections()[0];
  assert.equal(st.state, 'disconnected');
  assert.ok(st.lastError);
  assert.match(await h.callTool('mcp_servers'), /ghost \(stdio\): disconnected/);
});

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = net.createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => res(port));
    });
  });
}

test('mcp plugin with the real server-everything over Streamable HTTP (url + headers)', async (t) => {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  t.after(() => void child.kill('SIGKILL'));
  let log = '';
  child.stderr.on('data', (b: Buffer) => (log += b.toString()));
  await until(() => /listening on port/.test(log), 'the HTTP server');
  const plugin = createMcpPlugin();
  const h = await startFake(plugin, { settings: { reconnect_base_ms: 100, reconnect_max_ms: 500, servers: [{ name: 'remote', url: `http://127.0.0.1:${port}/mcp`, headers: { 'x-test': '1' } }] } });
  t.after(() => h.cleanup());
  assert.equal(plugin.connections()[0].state, 'connected', plugin.connections()[0].lastError);
  assert.equal(plugin.connections()[0].transport, 'http');
  assert.match(await h.callTool('mcp__remote__echo', { message: 'over http' }), /Echo: over http/);

  // The HTTP server goes away: the next call fails, the tools leave, and come back with the server.
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  await assert.rejects(h.callTool('mcp__remote__echo', { message: 'x' }), /unreachable/);
  assert.equal(h.tools.has('mcp__remote__echo'), false);
  const again = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'ignore'] });
  t.after(() => void again.kill('SIGKILL'));
  await until(() => h.tools.has('mcp__remote__echo'), 'reconnect to the restarted HTTP server');
  assert.match(await h.callTool('mcp__remote__echo', { message: 'back' }), /Echo: back/);
});
