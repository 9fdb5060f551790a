import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { LuaSandbox } from './index.js';
import { LuaScriptError } from '../../spec/index.js';

// The value bridge is exercised through LuaSandbox.call: arguments go JS → Lua through the C API,
// results Lua → JS. The mapping must be the one the prelude's json module defines.

const sandboxes: LuaSandbox[] = [];
async function make(source: string, opts: ConstructorParameters<typeof LuaSandbox>[0] = {}): Promise<LuaSandbox> {
  const sb = new LuaSandbox({ name: 'bridge', ...opts });
  sandboxes.push(sb);
  await sb.load(source, 'bridge.lua');
  return sb;
}
after(() => sandboxes.forEach((s) => s.close()));

const badReturn = (re: RegExp) => (e: unknown) => e instanceof LuaScriptError && e.code === 'LUA_BAD_RETURN' && re.test(e.message);

test('round trip keeps empty arrays/objects, nested arrays, unicode and numbers', async () => {
  const sb = await make('function rt(...) return { ... } end');
  const values = [
    { a: [], o: {}, nested: [[], [[1, [2, []]]], [{}], { x: [{}] }] },
    '中文 emoji 😀 e\u0301 tab\t nul\u0000 "quote" back\\slash',
    'x'.repeat(100) + '→', // longer than the short-string fast path, not ASCII
    [0, -1, 1.5, -2.5e-7, 0.1 + 0.2, 2 ** 53, -(2 ** 53), 2 ** 62, 1e21, 1.7976931348623157e308, 5e-324, 123456789012],
    [true, false, 'a', 1],
    { deep: { er: { est: ['ok'] } } },
  ];
  for (const v of values) assert.deepEqual(await sb.call('rt', v), [v]);
});

test('Lua sees integers, floats, byte strings and markers as json.decode would produce them', async () => {
  const sb = await make(`
    function types(t)
      return { int = math.type(t.int), big = math.type(t.big), float = math.type(t.float), huge = math.type(t.huge),
               len = #t.s, nul = #t.nul, arr = json.is_array(t.arr), emptyarr = json.is_array(t.e),
               obj = getmetatable(t.obj) == getmetatable(json.object()), holes = t.holes[2] == json.null and #t.holes,
               dropped = t.gone == nil and t.undef == nil, date = t.date }
    end
    function same(t, s) return { json.encode(t), json.encode(json.decode(s)) } end`);
  const input = { int: 42, big: 2 ** 62, float: 1.5, huge: 1e300, s: '中😀', nul: 'a\u0000b', arr: [1], e: [], obj: {}, holes: [1, null, undefined], gone: null, undef: undefined, date: new Date(0) };
  assert.deepEqual(await sb.call('types', input), {
    int: 'integer',
    big: 'integer',
    float: 'float',
    huge: 'float',
    len: 7,
    nul: 3,
    arr: true,
    emptyarr: true,
    obj: true,
    holes: 3,
    dropped: true,
    date: '1970-01-01T00:00:00.000Z',
  });
  // The host conversion and the Lua json module agree on the same input.
  const probe = { a: [1, 2.5, 'x', [], {}, [null, true]], b: { c: '中', d: -0, e: 1e21 }, n: null };
  // Compared as parsed values: a Lua table's key order is not defined, so the texts may differ.
  const [viaHost, viaLua] = (await sb.call('same', probe, JSON.stringify(probe))) as [string, string];
  assert.deepEqual(JSON.parse(viaHost), JSON.parse(viaLua));
});

test('tables built in Lua convert like json.encode: empty → {}, 1..n → array, markers win', async () => {
  const sb = await make(`
    function shapes()
      return { empty = {}, arr = json.array(), list = {1, 2, 3}, sparse = {[1] = "a", [3] = "c"}, mixed = {1, x = 2},
               floatkey = {[1.5] = "f"}, forced = json.object({1, 2}), custom = setmetatable({}, { __jsontype = "array" }),
               null = json.null, withnull = json.array({1, json.null, 3}), fn_member = { keep = 1, drop = print },
               big = math.maxinteger, neg = -7, shared = nil }
    end
    function dag() local t = {1} return { a = t, b = t } end
    function proto() return { ["__proto__"] = { polluted = true }, ok = 1 } end`);
  assert.deepEqual(await sb.call('shapes'), {
    empty: {},
    arr: [],
    list: [1, 2, 3],
    sparse: { 1: 'a', 3: 'c' },
    mixed: { 1: 1, x: 2 },
    floatkey: { '1.5': 'f' },
    forced: { 1: 1, 2: 2 },
    custom: [],
    null: null,
    withnull: [1, null, 3],
    fn_member: { keep: 1 },
    big: 2 ** 63, // math.maxinteger as the nearest double
    neg: -7,
  });
  assert.deepEqual(await sb.call('dag'), { a: [1], b: [1] });
  const p = (await sb.call('proto')) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(p), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(p, '__proto__')?.value, { polluted: true });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('results that JSON cannot express are bad-return errors; the VM stays usable', async () => {
  const sb = await make(`
    function nan() return { x = 0/0 } end
    function inf() return { math.huge } end
    function fn_item() return { 1, print } end
    function boolkey() return { [true] = 1 } end
    function cyc() local t = {} t[1] = t return t end
    function deep() local t = {} local c = t for i = 1, 1000 do c.n = {} c = c.n end return t end
    function ok() return "alive" end`);
  await assert.rejects(sb.call('nan'), badReturn(/cannot encode -?nan/));
  await assert.rejects(sb.call('inf'), badReturn(/cannot encode inf/));
  await assert.rejects(sb.call('fn_item'), badReturn(/cannot encode a function/));
  await assert.rejects(sb.call('boolkey'), badReturn(/invalid key type boolean/));
  await assert.rejects(sb.call('cyc'), badReturn(/circular/));
  await assert.rejects(sb.call('deep'), badReturn(/nested more than/));
  assert.equal(await sb.call('ok'), 'alive');
});

test('arguments that JSON cannot express fail the call clearly; the VM stays usable', async () => {
  const sb = await make('function id(x) return x end');
  const cyc: Record<string, unknown> = { a: 1 };
  cyc.self = cyc;
  await assert.rejects(sb.call('id', cyc), (e: unknown) => e instanceof LuaScriptError && /arguments of id cannot be converted: circular/.test(e.message));
  await assert.rejects(sb.call('id', { n: 10n }), (e: unknown) => e instanceof LuaScriptError && /bigint/.test(e.message));
  let deep: unknown = 'leaf';
  for (let i = 0; i < 1000; i++) deep = [deep];
  await assert.rejects(sb.call('id', deep), (e: unknown) => e instanceof LuaScriptError && /nested more than/.test(e.message));
  // Non-finite numbers and functions become null/nil, as JSON.stringify would make them.
  assert.deepEqual(await sb.call('id', { a: NaN, b: [Infinity, () => 1], c: () => 1 }), { b: [null, null] });
  assert.equal(await sb.call('id', undefined), null);
  assert.equal(await sb.call('id', 'still fine'), 'still fine');
});

test('an argument larger than the memory limit is an out-of-memory error, not a crash', async () => {
  const sb = await make('function len(s) return #s end function ok() return 1 end', { memoryBytes: 2 * 1024 * 1024 });
  await assert.rejects(sb.call('len', 'x'.repeat(4 * 1024 * 1024)), (e: unknown) => e instanceof LuaScriptError && e.code === 'LUA_MEMORY');
  assert.equal(await sb.call('ok'), 1);
  assert.equal(await sb.call('len', 'é'.repeat(1000)), 2000);
});

test('the bridge functions are not reachable from scripts', async () => {
  const sb = await make('function probe() return { type(__host_init), type(__host_args), type(__host_result), type(__host_call) } end');
  assert.deepEqual(await sb.call('probe'), ['nil', 'nil', 'nil', 'nil']);
});

test('scripts cannot replace the trampolines; an await past the budget times out and the VM stays usable', async () => {
  const sb = new LuaSandbox({ name: 'bridge', timeoutMs: 200 });
  sandboxes.push(sb);
  let release: () => void = () => {};
  sb.registerFunction('stall', () => new Promise<void>((r) => (release = r)));
  await sb.load('__sandbox_call = function() return "=" end __sandbox_load = nil function f(x) return x * 2 end function waits() stall() return 1 end', 'hijack.lua');
  assert.equal(await sb.call('f', 21), 42);
  await assert.rejects(sb.call('waits'), (e: unknown) => e instanceof LuaScriptError && e.code === 'LUA_TIMEOUT');
  release();
  assert.equal(await sb.call('f', 2), 4);
  await sb.load('function g() return "loaded after" end', 'later.lua');
  assert.equal(await sb.call('g'), 'loaded after');
});

test('memory accounting follows allocations and frees (allocator installed by the sandbox)', async () => {
  const sb = await make('keep = nil function grow() keep = {} for i = 1, 20000 do keep[i] = "v" .. i end end function drop() keep = nil collectgarbage() collectgarbage() end');
  const before = sb.memoryUsed();
  assert.ok(before > 0);
  await sb.call('grow');
  const grown = sb.memoryUsed();
  assert.ok(grown > before + 500_000, `grew from ${before} to ${grown}`);
  await sb.call('drop');
  assert.ok(sb.memoryUsed() < grown - 500_000, `dropped to ${sb.memoryUsed()} from ${grown}`);
});
