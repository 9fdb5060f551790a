import type { LuaFactory } from 'wasmoon';
import type { RawLua } from './lua-value-bridge.js';

/** Raw wasm exports of the Lua module (names without the emscripten `_` prefix). */
type WasmExports = Record<string, unknown> & { memory?: WebAssembly.Memory };

interface SharedLua {
  factory: LuaFactory;
  exports: WasmExports | undefined;
  /** Lua constants as wasmoon exports them (read once the module is loaded). */
  registryIndex: number;
  maskCount: number;
}

let shared: Promise<SharedLua> | undefined;

/**
 * The process-wide `LuaFactory` (one wasm module; every sandbox is its own `lua_State` in it),
 * plus the module's raw wasm exports when they could be captured.
 *
 * wasmoon exposes the C API only through emscripten's debug export wrappers (an assertion and
 * `fn.apply(null, arguments)` per call, ~10× the cost of a direct wasm call); the value bridge
 * makes a few calls per converted value, so it wants the raw exports. wasmoon offers no hook for
 * them, so while the factory instantiates its module `WebAssembly.instantiate` is wrapped to
 * note an instance that exports `lua_resume` and `lua_next`; every call is passed through
 * unchanged and the original is restored as soon as the module is ready.
 */
export function sharedLua(): Promise<SharedLua> {
  shared ??= (async () => {
    // Imported on the first Lua VM, not at daemon start: the daemon answers its first request
    // without Lua (~55 ms of module loading saved on every cold start).
    const { LuaFactory, LUA_REGISTRYINDEX, LuaEventMasks } = await import('wasmoon');
    let captured: WasmExports | undefined;
    const wasm = WebAssembly as unknown as { instantiate: (...args: unknown[]) => Promise<unknown> };
    const original = wasm.instantiate;
    const patched = async function (this: unknown, ...args: unknown[]): Promise<unknown> {
      const r = (await original.apply(this, args)) as { instance?: WebAssembly.Instance; exports?: WasmExports };
      const ex = (r.instance?.exports ?? r.exports) as WasmExports | undefined;
      if (ex && typeof ex.lua_resume === 'function' && typeof ex.lua_next === 'function') captured ??= ex;
      return r;
    };
    wasm.instantiate = patched;
    try {
      const factory = new LuaFactory();
      await factory.getLuaModule();
      return { factory, exports: captured, registryIndex: LUA_REGISTRYINDEX, maskCount: LuaEventMasks.Count };
    } finally {
      if (wasm.instantiate === patched) wasm.instantiate = original;
    }
  })();
  return shared;
}

const RAW_NAMES = [
  'malloc',
  'free',
  'lua_gettop',
  'lua_settop',
  'lua_checkstack',
  'lua_type',
  'lua_pushnil',
  'lua_pushboolean',
  'lua_pushnumber',
  'lua_pushinteger',
  'lua_pushlstring',
  'lua_pushvalue',
  'lua_createtable',
  'lua_rawseti',
  'lua_rawgeti',
  'lua_rawset',
  'lua_rawget',
  'lua_rawlen',
  'lua_setmetatable',
  'lua_getmetatable',
  'lua_next',
  'lua_toboolean',
  'lua_tonumberx',
  'lua_isinteger',
  'lua_tointegerx',
  'lua_tolstring',
  'lua_topointer',
  'lua_newthread',
  'luaL_ref',
  'luaL_unref',
  'lua_sethook',
  'lua_resume',
  'realloc',
  'lua_setallocf',
] as const;

/**
 * The C API functions the value bridge uses: the raw wasm exports when they belong to `module`
 * (same memory), else the module's `_lua_*` wrappers (slower, same behaviour).
 */
export function rawLua(module: unknown, exports: WasmExports | undefined): RawLua {
  const mod = module as Record<string, unknown> & { HEAPU8: Uint8Array };
  const direct = !!exports && exports.memory instanceof WebAssembly.Memory && exports.memory.buffer === mod.HEAPU8.buffer;
  const out: Record<string, unknown> = {};
  for (const name of RAW_NAMES) {
    const fn = direct ? exports[name] : mod[`_${name}`];
    if (typeof fn !== 'function') throw new Error(`wasmoon module does not export ${name}`);
    out[`_${name}`] = fn;
  }
  // HEAPU8 is replaced by emscripten whenever the wasm memory grows: always read it fresh.
  Object.defineProperty(out, 'HEAPU8', { get: () => mod.HEAPU8 });
  return out as unknown as RawLua;
}
