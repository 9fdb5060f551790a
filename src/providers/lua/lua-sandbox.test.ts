import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LuaSandbox, registerHttpFunctions, refuseOwnPorts } from './index.js';
import { LuaScriptError } from '../../spec/index.js';

const sandboxes: LuaSandbox[] = [];
function make(opts: ConstructorParameters<typeof LuaSandbox>[0] = {}): LuaSandbox {
  const sb = new LuaSandbox({ name: 'test', ...opts });
  sandboxes.push(sb);
  return sb;
}
after(() => sandboxes.forEach((s) => s.close()));

test('load + call round-trips JSON values', async () => {
  const sb = make();
  await sb.load('function echo(...) return {...} end function add(a, b) return a + b end', 'x.lua');
  assert.equal(await sb.call('add', 2, 3), 5);
  assert.deepEqual(await sb.call('echo', 'a', { b: [1, 2, { c: null }] }, true), ['a', { b: [1, 2, {}] }, true]);
  assert.equal(sb.has('add'), true);
  assert.equal(sb.has('nope'), false);
});

test('json mapping: empty arrays and objects survive a round trip; empty unmarked table is an object', async () => {
  const sb = make();
  await sb.load(
    `function rt(v) return v end
     function fresh() return { a = {}, b = json.array(), c = json.null, d = json.object() } end
     function text(s) return json.encode(json.decode(s)) end
     function nullcheck(s) local t = json.decode(s) return { has = t.content ~= nil, arr2 = t.arr[2] == json.null } end`,
    'j.lua',
  );
  assert.deepEqual(await sb.call('rt', { x: [], y: {}, z: [[]] }), { x: [], y: {}, z: [[]] });
  assert.deepEqual(await sb.call('fresh'), { a: {}, b: [], c: null, d: {} });
  const s = '{"u":"\\u00e9\\ud83d\\ude00\\n\\"q\\"","n":-1.5e3,"i":42,"t":true}';
  assert.deepEqual(JSON.parse((await sb.call('text', s)) as string), JSON.parse(s));
  assert.equal(await sb.call('text', '[0.7,0.1,1.0,-2.5e-7,123456789012,0.30000000000000004]'), '[0.7,0.1,1,-2.5e-07,123456789012,0.30000000000000004]');
  assert.deepEqual(await sb.call('nullcheck', '{"content":null,"arr":[1,null,3]}'), { has: false, arr2: true });
});

test('json.decode of garbage raises a clear error', async () => {
  const sb = make();
  await sb.load('function bad() return json.decode("{oops") end', 'b.lua');
  await assert.rejects(sb.call('bad'), (e: unknown) => e instanceof LuaScriptError && /json.decode: expected string key/.test(e.message));
});

test('dangerous globals are absent', async () => {
  const sb = make();
  await sb.load(
    `function probe() return { io = type(io), os_exec = type(os.execute), os_time = type(os.time), require = type(require),
       dofile = type(dofile), loadfile = type(loadfile), package = type(package), debug = type(debug), dump = type(string.dump) } end
     function binload() return (load("\\27Lua")) == nil end`,
    'p.lua',
  );
  assert.deepEqual(await sb.call('probe'), { io: 'nil', os_exec: 'nil', os_time: 'function', require: 'nil', dofile: 'nil', loadfile: 'nil', package: 'nil', debug: 'nil', dump: 'nil' });
  assert.equal(await sb.call('binload'), true);
});

test('an endless loop times out, even under pcall, and the VM stays usable', async () => {
  const sb = make({ timeoutMs: 400 });
  await sb.load(
    `function spin() while true do end end
     function sneaky() while true do pcall(function() while true do end end) end end
     function ok() return "alive" end`,
    'loop.lua',
  );
  await assert.rejects(sb.call('spin'), (e: unknown) => e instanceof LuaScriptError && e.code === 'LUA_TIMEOUT');
  await assert.rejects(sb.call('sneaky'), (e: unknown) => e instanceof LuaScriptError && e.code === 'LUA_TIMEOUT');
  assert.equal(await sb.call('ok'), 'alive');
});

test('a top-level endless loop in load times out', async () => {
  const sb = make({ timeoutMs: 100 });
  await assert.rejects(sb.load('while true do end', 'top.lua'), (e: unknown) => e instanceof LuaScriptError && e.code === 'LUA_TIMEOUT');
});

test('memory limit stops a hog and the sandbox is rebuilt', async () => {
  const sb = make({ memoryBytes: 4 * 1024 * 1024 });
  await sb.load('hog = {} function grow() for i = 1, 1e8 do hog[i] = string.rep("x", 64) .. i end end function ok() return 1 end', 'mem.lua');
  await assert.rejects(sb.call('grow'), (e: unknown) => e instanceof LuaScriptError && e.code === 'LUA_MEMORY');
  assert.equal(await sb.call('ok'), 1);
});

test('after a rebuild the callAndReplay calls run again; when they fail the owner is told', async () => {
  let starts = 0;
  const failures: Error[] = [];
  const sb = make({ memoryBytes: 4 * 1024 * 1024, onRebuildFailed: (e) => void failures.push(e) });
  sb.registerFunction('next_start', () => ++starts);
  await sb.load('function setup() local n = next_start() if n == 3 then error("third start refused") end ready = n end function grow() local t = {} for i = 1, 1e8 do t[i] = string.rep("x", 64) .. i end end function state() return ready end', 'replay.lua');
  await sb.callAndReplay('setup');
  assert.equal(await sb.call('state'), 1);
  await assert.rejects(sb.call('grow'), (e: unknown) => e instanceof LuaScriptError && e.code === 'LUA_MEMORY');
  assert.equal(await sb.call('state'), 2); // set up again on the rebuilt state
  assert.equal(failures.length, 0);
  await assert.rejects(sb.call('grow'), (e: unknown) => e instanceof LuaScriptError && e.code === 'LUA_MEMORY');
  await assert.rejects(sb.call('state'), /third start refused/);
  assert.equal(failures.length, 1);
  assert.match(failures[0].message, /could not be rebuilt after running out of memory: .*third start refused/);
});

test('runtime errors name the chunk and line; syntax errors are load errors', async () => {
  const sb = make();
  await sb.load('\nfunction boom() error("kaput") end', 'boom.lua');
  await assert.rejects(sb.call('boom'), (e: unknown) => e instanceof LuaScriptError && /boom\.lua:2: kaput/.test(e.message) && !/traceback/.test(e.message));
  await assert.rejects(sb.load('function (', 'syntax.lua'), (e: unknown) => e instanceof LuaScriptError && e.code === 'LUA_LOAD' && /syntax\.lua/.test(e.message));
  await assert.rejects(sb.call('missing'), (e: unknown) => e instanceof LuaScriptError && /missing is not a function/.test(e.message));
});

test('unconvertible return values are bad-return errors', async () => {
  const sb = make();
  await sb.load('function f() return function() end end function cyc() local t = {} t.t = t return t end', 'r.lua');
  await assert.rejects(sb.call('f'), (e: unknown) => e instanceof LuaScriptError && e.code === 'LUA_BAD_RETURN');
  await assert.rejects(sb.call('cyc'), (e: unknown) => e instanceof LuaScriptError && /circular/.test(e.message));
});

test('host functions: sync, async and throwing; log reaches the sink', async () => {
  const lines: string[] = [];
  const sb = make({ log: (l, m) => lines.push(`${l}:${m}`) });
  sb.registerFunction('double', (n: number) => n * 2);
  sb.registerFunction('later', async (s: string) => {
    await new Promise((r) => setTimeout(r, 5));
    return { got: s };
  });
  sb.registerFunction('fail', () => {
    throw new Error('host said no');
  });
  await sb.load(
    `function f() log("warn", "careful") log("plain") return { d = double(21), l = later("x").got } end
     function g() return fail() end`,
    'h.lua',
  );
  assert.deepEqual(await sb.call('f'), { d: 42, l: 'x' });
  assert.deepEqual(lines, ['warn:careful', 'info:plain']);
  await assert.rejects(sb.call('g'), /host said no/);
  sb.registerFunction('late', () => 'bound after load');
  await sb.load('function h() return late() end', 'h2.lua');
  assert.equal(await sb.call('h'), 'bound after load');
});

test('concurrent calls with awaits do not interfere', async () => {
  const sb = make();
  sb.registerFunction('sleep', (ms: number) => new Promise((r) => setTimeout(r, ms)));
  await sb.load('function work(id, ms) sleep(ms) return id end', 'c.lua');
  const res = await Promise.all([sb.call('work', 'a', 30), sb.call('work', 'b', 5), sb.call('work', 'c', 15)]);
  assert.deepEqual(res, ['a', 'b', 'c']);
});

test('http_get / http_post reach a loopback server', async () => {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, body, auth: req.headers['x-k'] ?? null }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  const sb = make();
  registerHttpFunctions(sb);
  await sb.load(
    `function get(u) local r = http_get(u, { ["x-k"] = "v" }) return { status = r.status, data = json.decode(r.body) } end
     function post(u) local r = http_post(u, { a = 1 }) return json.decode(r.body) end
     function bad() return http_get("file:///etc/passwd") end`,
    'http.lua',
  );
  assert.deepEqual(await sb.call('get', url), { status: 200, data: { method: 'GET', body: '', auth: 'v' } });
  assert.deepEqual(await sb.call('post', url), { method: 'POST', body: '{"a":1}' }); // null members are dropped by json.decode
  await assert.rejects(sb.call('bad'), /only http\(s\) URLs/);
});

test('SPEC §9: http_get / http_post cannot reach the daemon\'s own port by any local address; other local ports stay reachable', async () => {
  let hits = 0;
  const own = http.createServer((_req, res) => {
    hits++;
    res.end('{}');
  });
  const other = http.createServer((_req, res) => res.end('{"ok":true}'));
  await Promise.all([new Promise<void>((r) => own.listen(0, '127.0.0.1', r)), new Promise<void>((r) => other.listen(0, '127.0.0.1', r))]);
  after(() => {
    own.close();
    other.close();
  });
  const ownPort = (own.address() as AddressInfo).port;
  const sb = make();
  registerHttpFunctions(sb, { allow: refuseOwnPorts(() => [ownPort]) });
  await sb.load(`function get(u) return http_get(u).body end
     function post(u) return http_post(u, { op = "memory.save" }).body end`, 'self.lua');
  for (const host of ['127.0.0.1', 'localhost', '[::1]', '0.0.0.0', '127.1', '2130706433', 'api.localhost', '[::ffff:127.0.0.1]']) {
    await assert.rejects(sb.call('get', `http://${host}:${ownPort}/api/v1/status`), /not allowed/, host);
    await assert.rejects(sb.call('post', `http://${host}:${ownPort}/api/memory-manager`), /not allowed/, host);
  }
  assert.equal(hits, 0);
  assert.equal(await sb.call('get', `http://127.0.0.1:${(other.address() as AddressInfo).port}/`), '{"ok":true}');
  assert.equal(refuseOwnPorts(() => [80])(new URL('http://example.com/')), true);
  assert.equal(refuseOwnPorts(() => [80])(new URL('http://localhost/')), false);
});
