import type { LuaEngine } from 'wasmoon';
import { LuaScriptError } from '../../spec/index.js';
import { LUA_PRELUDE } from './lua-prelude.js';
import { LuaConversionError, LuaValueBridge, type RawLua } from './lua-value-bridge.js';
import { rawLua, sharedLua } from './shared-lua-factory.js';

/** A host function callable from Lua. Arguments and the result cross the boundary as JSON. */
export type HostFunction = (...args: any[]) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Log levels a script may use with `log(level, msg)`. */
export type LuaLogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LuaSandboxOptions {
  /** Name used in error messages (e.g. `adapter openai.lua`). */
  name?: string;
  /** Time budget of one `load`/`call`, including awaited host calls. Default 2000 ms. */
  timeoutMs?: number;
  /** Memory limit of the Lua state. Default 32 MiB. */
  memoryBytes?: number;
  /** Receives the script's `log(...)` / `print(...)` lines. */
  log?: (level: LuaLogLevel, message: string) => void;
  /**
   * Told when a rebuild after an out-of-memory error could not replay the loaded chunks and the
   * {@link LuaSandbox.callAndReplay} calls: the state the script set up is gone.
   */
  onRebuildFailed?: (error: Error) => void;
}

const INTERRUPT = '__sandbox_interrupted__';
/** Instructions between two checks of the deadline. */
const HOOK_EVERY = 1000;
const LUA_OK = 0;
const LUA_YIELD = 1;
const LUA_TSTRING = 4;
// Set from the wasmoon module when the first VM opens (wasmoon is imported lazily); every use
// is on a VM, so after that.
let LUA_REGISTRYINDEX = 0;
let LUA_MASKCOUNT = 0;


interface Generation {
  engine: LuaEngine;
  raw: RawLua;
  /** Set by the prelude (`__host_init`) once the json markers exist. */
  bridge: LuaValueBridge | undefined;
  /** Function-table slots of the hook and the raw C functions, freed on retire. */
  fnPtrs: number[];
  /** Registry references of the prelude's `call` / `load` trampolines (set by `__host_init`). */
  callRef: bigint;
  loadRef: bigint;
  /** 4 bytes of wasm memory for lua_resume's result count. */
  nresPtr: number;
  hookPtr: number;
  inflight: number;
  retired: boolean;
}

/** One `load`/`call` in flight, keyed by the address of its Lua thread. */
interface Running {
  deadline: number;
  fnName: string;
  /** What `__host_args` hands the trampoline: `[fnName, ...args]` or `[source, chunkName]` (cleared once pushed). */
  args: unknown[] | undefined;
  /** Set by `__host_result`. */
  result: unknown;
}

/**
 * A sandboxed Lua 5.4 VM (wasmoon, `enableProxy: false`).
 *
 * The VM has `string`, `table`, `math`, `utf8`, a reduced `os` (`time`, `clock`, `date`,
 * `difftime`) and the base library without `dofile`/`loadfile`/`require`; no `io`, `package`,
 * `debug` or `coroutine`; `load` accepts source text only. It adds `json.encode/decode`
 * (see {@link LUA_PRELUDE} for the mapping), `log(level?, msg)`, `print`, and every function
 * registered with {@link registerFunction} (sync or async on the JS side: an async host function
 * looks synchronous to the script).
 *
 * Every `load`/`call` runs on its own Lua thread under an instruction hook that raises an
 * uncatchable interrupt once the time budget is spent, so `while true do end` ends in a
 * `LuaScriptError` of kind `timeout` and the VM stays usable. After an out-of-memory error the
 * state is rebuilt from the loaded chunks and the {@link callAndReplay} calls are made again
 * (other globals the script set at run time are lost).
 *
 * @example
 * const sb = new LuaSandbox({ name: 'demo' });
 * await sb.load('function add(a, b) return a + b end', 'demo.lua');
 * await sb.call('add', 1, 2); // 3
 * sb.close();
 */
export class LuaSandbox {
  readonly name: string;
  readonly timeoutMs: number;
  readonly memoryBytes: number;
  private readonly logSink: ((level: LuaLogLevel, message: string) => void) | undefined;
  private readonly functions = new Map<string, HostFunction>();
  private readonly chunks: { source: string; chunkName: string }[] = [];
  private readonly replays: { fnName: string; args: unknown[] }[] = [];
  private readonly onRebuildFailed: ((error: Error) => void) | undefined;
  private current: Generation | undefined;
  private opening: Promise<Generation> | undefined;
  private readonly running = new Map<number, Running>();
  private closed = false;

  constructor(opts: LuaSandboxOptions = {}) {
    this.name = opts.name ?? 'lua';
    this.timeoutMs = opts.timeoutMs ?? 2000;
    this.memoryBytes = opts.memoryBytes ?? 32 * 1024 * 1024;
    this.logSink = opts.log;
    this.onRebuildFailed = opts.onRebuildFailed;
    this.functions.set('__log', (level: unknown, msg: unknown) => {
      const lv = (['debug', 'info', 'warn', 'error'] as const).find((l) => l === level) ?? 'info';
      this.logSink?.(lv, String(msg));
    });
  }

  /**
   * Makes `fn` callable from Lua as the global `name`. May be called before or after `load`.
   * Throwing (or rejecting) in `fn` raises a Lua error with the message.
   */
  registerFunction(name: string, fn: HostFunction): void {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new TypeError(`invalid Lua function name: ${name}`);
    this.functions.set(name, fn);
    const gen = this.current;
    if (gen && !gen.retired) gen.engine.global.call('__sandbox_bind', name);
  }

  /** Runs a chunk of Lua source (text only) in the VM; returns its first result. */
  async load(source: string, chunkName: string): Promise<unknown> {
    if (typeof source !== 'string') throw new LuaScriptError(chunkName, 'source must be a string', 'load');
    const result = await this.run('load', [source, `@${chunkName}`], this.timeoutMs, chunkName, true);
    this.chunks.push({ source, chunkName });
    return result;
  }

  /** Calls the global Lua function `fnName` with JSON-serialisable args; returns its first result. */
  async call(fnName: string, ...args: unknown[]): Promise<unknown> {
    return this.callWithTimeout(fnName, args, this.timeoutMs);
  }

  /**
   * Calls `fnName` like {@link call}, and once it succeeded calls it again (after the chunks are
   * replayed) whenever the state is rebuilt after an out-of-memory error: for set-up a script
   * does at run time (a plugin's `start()` filling its tool table).
   */
  async callAndReplay(fnName: string, ...args: unknown[]): Promise<unknown> {
    const result = await this.call(fnName, ...args);
    this.replays.push({ fnName, args });
    return result;
  }

  /** Like {@link call} with an explicit time budget. */
  async callWithTimeout(fnName: string, args: unknown[], timeoutMs: number): Promise<unknown> {
    // The arguments are converted straight onto the Lua stack when the trampoline asks for them
    // (`__host_args`), inside the protected call, so a conversion error or an out-of-memory
    // error while building the tables fails this call and nothing else.
    return this.run('call', [fnName, ...args], timeoutMs, this.name, false);
  }

  /** True when the VM has a global function `fnName` (false before the first `load`). */
  has(fnName: string): boolean {
    const gen = this.current;
    if (!gen || gen.retired) return false;
    const g = gen.engine.global;
    const type = g.lua.lua_getglobal(g.address, fnName);
    g.pop(1);
    return type === 6; // LUA_TFUNCTION
  }

  /** Bytes the Lua state currently uses (0 before it is opened). */
  memoryUsed(): number {
    return this.current?.engine.global.getMemoryUsed() ?? 0;
  }

  /** Frees the VM. Idempotent; later calls fail with a LuaScriptError. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const gen = this.current;
    this.current = undefined;
    if (gen) this.retire(gen);
  }

  private async generation(): Promise<Generation> {
    if (this.closed) throw new LuaScriptError(this.name, 'sandbox is closed', 'runtime');
    if (this.current && !this.current.retired) return this.current;
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async open(): Promise<Generation> {
    const shared = await sharedLua();
    LUA_REGISTRYINDEX = shared.registryIndex;
    LUA_MASKCOUNT = shared.maskCount;
    const engine = await shared.factory.createEngine({ enableProxy: false, openStandardLibs: true, traceAllocations: true, injectObjects: false });
    const g = engine.global;
    const lua = g.lua;
    const raw = rawLua(lua.module, shared.exports);
    const hookPtr = lua.module.addFunction((L: number) => {
      const r = this.running.get(L);
      if (r !== undefined && Date.now() > r.deadline) {
        lua.lua_pushstring(L, INTERRUPT);
        lua.lua_error(L);
      }
    }, 'vii');
    const gen: Generation = { engine, raw, bridge: undefined, fnPtrs: [], callRef: 0n, loadRef: 0n, nresPtr: raw._malloc(8), hookPtr, inflight: 0, retired: false };
    this.replaceAllocator(gen);
    g.set('__host_call', (name: string, argsJson: string) => this.hostCall(name, argsJson));
    this.registerBridge(gen);
    engine.doStringSync(LUA_PRELUDE);
    if (!gen.bridge) throw new LuaScriptError(this.name, 'sandbox prelude did not initialise the value bridge', 'load');
    for (const name of this.functions.keys()) g.call('__sandbox_bind', name);
    g.setMemoryMax(this.memoryBytes);
    this.current = gen;
    // Replay chunks and set-up calls after a rebuild (out of memory); the first open has none.
    try {
      for (const c of this.chunks) {
        await this.runOn(gen, 'load', [c.source, `@${c.chunkName}`], this.timeoutMs, c.chunkName, true);
      }
      for (const r of this.replays) await this.runOn(gen, 'call', [r.fnName, ...r.args], this.timeoutMs, this.name, false);
    } catch (e) {
      // A half-built state is no state: the next call tries again from scratch.
      if (this.current === gen) this.current = undefined;
      this.retire(gen);
      const why = e instanceof Error ? e : new Error(String(e));
      this.onRebuildFailed?.(new LuaScriptError(this.name, `the state could not be rebuilt after running out of memory: ${why.message}`, 'memory', why));
      throw e;
    }
    return gen;
  }

  /**
   * Installs an allocator with the same accounting as wasmoon's `traceAllocations` one (same
   * stats object, so `setMemoryMax`/`getMemoryUsed` keep working) that calls the raw wasm
   * `realloc`/`free` instead of emscripten's debug wrappers: every Lua allocation goes through
   * it. Both use the same heap, so blocks allocated before the switch are freed correctly.
   */
  private replaceAllocator(gen: Generation): void {
    const g = gen.engine.global;
    const stats = (g as unknown as { memoryStats?: { memoryUsed: number; memoryMax?: number } }).memoryStats;
    if (!stats || typeof stats.memoryUsed !== 'number') return;
    const raw = gen.raw;
    const ptr = g.lua.module.addFunction((_ud: number, p: number, osize: number, nsize: number): number => {
      if (nsize === 0) {
        if (p) {
          stats.memoryUsed -= osize;
          raw._free(p);
        }
        return 0;
      }
      // With p == NULL, osize is the kind of object being allocated, not a size.
      const end = stats.memoryUsed + (p ? nsize - osize : nsize);
      if (nsize > osize && stats.memoryMax && end > stats.memoryMax) return 0;
      const r = raw._realloc(p, nsize);
      if (r) stats.memoryUsed = end;
      return r;
    }, 'iiiii');
    gen.fnPtrs.push(ptr);
    raw._lua_setallocf(g.address, ptr, 0);
  }

  /**
   * Registers the raw C functions (implemented in JS) the prelude captures and hides:
   * `__host_init(array_mt, object_mt, null)`, `__host_args()` → the pending call's arguments,
   * `__host_result(v)` → stores the call's result. They move values with {@link LuaValueBridge}
   * directly through the C API: no JSON text, no pure-Lua codec on the call path.
   */
  private registerBridge(gen: Generation): void {
    const g = gen.engine.global;
    const lua = g.lua;
    const raw = gen.raw;
    const cfn = (name: string, body: (L: number) => number): void => {
      const ptr = lua.module.addFunction((L: number): number => {
        let msg: string;
        try {
          return body(L);
        } catch (e) {
          // Only our own conversion errors are turned into Lua errors here; anything else
          // (notably a Lua error unwinding as a JS exception) must keep propagating.
          if (!(e instanceof LuaConversionError)) throw e;
          msg = e.message;
        }
        raw._lua_settop(L, 0);
        lua.lua_pushstring(L, msg);
        return lua.lua_error(L);
      }, 'ii');
      gen.fnPtrs.push(ptr);
      lua.lua_pushcclosure(g.address, ptr, 0);
      lua.lua_setglobal(g.address, name);
    };
    cfn('__host_init', (L) => {
      if (gen.bridge) throw new LuaConversionError('__host_init: already initialised');
      const ref = (i: number): number => {
        raw._lua_pushvalue(L, i);
        return lua.luaL_ref(L, LUA_REGISTRYINDEX);
      };
      gen.bridge = new LuaValueBridge(raw, {
        registryIndex: LUA_REGISTRYINDEX,
        arrayMtRef: ref(1),
        objectMtRef: ref(2),
        nullRef: ref(3),
        arrayMtPtr: raw._lua_topointer(L, 1),
        objectMtPtr: raw._lua_topointer(L, 2),
        nullPtr: raw._lua_topointer(L, 3),
      });
      gen.callRef = BigInt(ref(4));
      gen.loadRef = BigInt(ref(5));
      return 0;
    });
    cfn('__host_args', (L) => {
      const r = this.running.get(L);
      const args = r?.args;
      if (!r || !args || !gen.bridge) return 0;
      r.args = undefined;
      raw._lua_settop(L, 0);
      if (!raw._lua_checkstack(L, args.length + 4)) throw new LuaConversionError(`too many arguments for ${r.fnName}`);
      try {
        for (const a of args) gen.bridge.push(L, a);
      } catch (e) {
        if (e instanceof LuaConversionError) throw new LuaConversionError(`arguments of ${r.fnName} cannot be converted: ${e.message}`);
        throw e;
      }
      return args.length;
    });
    cfn('__host_result', (L) => {
      const r = this.running.get(L);
      if (!r || !gen.bridge) return 0;
      r.result = gen.bridge.read(L, 1);
      return 0;
    });
  }

  private retire(gen: Generation): void {
    gen.retired = true;
    if (gen.inflight > 0) return;
    try {
      gen.engine.global.close();
    } catch {}
    try {
      gen.bridge?.dispose();
      gen.raw._free(gen.nresPtr);
    } catch {}
    for (const ptr of [gen.hookPtr, ...gen.fnPtrs]) {
      try {
        gen.engine.global.lua.module.removeFunction(ptr);
      } catch {}
    }
  }

  private hostCall(name: string, argsJson: string): string | Promise<string> {
    const ok = (v: unknown): string => {
      try {
        return JSON.stringify({ ok: true, value: v === undefined ? null : v });
      } catch {
        return JSON.stringify({ ok: false, error: `${name}: result is not JSON-serialisable` });
      }
    };
    const fail = (e: unknown): string => JSON.stringify({ ok: false, error: e instanceof Error ? e.message : String(e) });
    const fn = this.functions.get(name);
    if (!fn) return fail(new Error(`unknown host function ${name}`));
    try {
      const args = JSON.parse(argsJson) as unknown[];
      const r = fn(...args);
      if (r !== null && typeof r === 'object' && typeof (r as Promise<unknown>).then === 'function') {
        return (r as Promise<unknown>).then(ok, fail);
      }
      return ok(r);
    } catch (e) {
      return fail(e);
    }
  }

  private async run(entry: 'call' | 'load', args: unknown[], timeoutMs: number, script: string, isLoad: boolean): Promise<unknown> {
    const gen = await this.generation();
    try {
      return await this.runOn(gen, entry, args, timeoutMs, script, isLoad);
    } catch (e) {
      if (e instanceof LuaScriptError && e.details.kind === 'memory' && this.current === gen) {
        // The state may be full of garbage the script still references: start afresh.
        this.current = undefined;
        this.retire(gen);
      }
      throw e;
    }
  }

  /**
   * Runs `entry` (a trampoline from the prelude, held in the registry) on a fresh Lua thread,
   * straight through the raw C API: the thread's inputs (`args`) are fetched by the trampoline
   * itself (`__host_args`, inside the protected call) and its result stored by `__host_result`.
   * A call that finishes without yielding returns without timers or extra promises; a call that
   * awaits a host promise resumes until done, under a watchdog timer.
   */
  private async runOn(gen: Generation, entry: 'call' | 'load', args: unknown[], timeoutMs: number, script: string, isLoad: boolean): Promise<unknown> {
    const raw = gen.raw;
    const G = gen.engine.global.address;
    const L = raw._lua_newthread(G);
    // Anchor the thread in the registry (not on the shared stack, which concurrent calls would shuffle).
    const ref = raw._luaL_ref(G, LUA_REGISTRYINDEX);
    const running: Running = { deadline: Date.now() + timeoutMs, fnName: String(isLoad ? args[1] : args[0]), args, result: null };
    this.running.set(L, running);
    raw._lua_sethook(L, gen.hookPtr, LUA_MASKCOUNT, HOOK_EVERY);
    gen.inflight++;
    let cleaned = false;
    const cleanup = (): void => {
      if (cleaned) return;
      cleaned = true;
      this.running.delete(L);
      gen.inflight--;
      if (!gen.retired) {
        raw._lua_sethook(L, 0, 0, 0);
        raw._luaL_unref(G, LUA_REGISTRYINDEX, ref);
      } else if (gen.inflight === 0) {
        this.retire(gen);
      }
    };
    let status: number;
    try {
      raw._lua_rawgeti(L, LUA_REGISTRYINDEX, entry === 'call' ? gen.callRef : gen.loadRef);
      status = raw._lua_resume(L, 0, 0, gen.nresPtr);
      if (status !== LUA_YIELD) return this.finish(gen, L, status, running, script, isLoad, timeoutMs);
    } catch (e) {
      throw this.classify(e, script, timeoutMs);
    } finally {
      if (status! !== LUA_YIELD) cleanup();
    }
    // The script awaits a host promise (an async host function). Clean up only when the Lua
    // thread really ended: after a watchdog timeout a thread that was awaiting resumes later
    // and is then stopped by the hook (its deadline stays).
    const thread = gen.engine.global.stateToThread(L);
    const loop = (async (): Promise<unknown> => {
      while (status === LUA_YIELD) {
        const h = raw.HEAPU8;
        const p = gen.nresPtr;
        const n = h[p] | (h[p + 1] << 8) | (h[p + 2] << 16) | (h[p + 3] << 24);
        const last: unknown = n > 0 ? thread.getValue(-1) : undefined;
        if (n > 0) raw._lua_settop(L, -n - 1);
        if (last instanceof Promise) await last;
        else await new Promise((r) => setImmediate(r));
        status = raw._lua_resume(L, 0, 0, gen.nresPtr);
      }
      return this.finish(gen, L, status, running, script, isLoad, timeoutMs);
    })();
    loop.then(cleanup, cleanup);
    // The hook cannot fire while the script awaits a host promise; the timer covers that case.
    let timer: NodeJS.Timeout | undefined;
    const watchdog = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LuaScriptError(script, `timed out after ${timeoutMs} ms`, 'timeout')), timeoutMs + 50);
    });
    try {
      return await Promise.race([loop, watchdog]);
    } catch (e) {
      throw this.classify(e, script, timeoutMs);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Reads the outcome of a finished thread: the trampoline's tag string, or the error value. */
  private finish(gen: Generation, L: number, status: number, running: Running, script: string, isLoad: boolean, timeoutMs: number): unknown {
    const raw = gen.raw;
    const bridge = gen.bridge!;
    const top = raw._lua_gettop(L);
    const value = top > 0 && raw._lua_type(L, -1) === LUA_TSTRING ? (bridge.read(L, -1) as string) : undefined;
    if (status === LUA_OK) return this.decodeResult(value, running, script, isLoad);
    const msg = value ?? `Lua error ${status} (error object is a ${top > 0 ? raw._lua_type(L, -1) : 'missing'} value)`;
    throw this.classify(new Error(msg), script, timeoutMs);
  }

  private classify(e: unknown, script: string, timeoutMs: number): LuaScriptError {
    if (e instanceof LuaScriptError) return e;
    const msg = cleanMessage(e instanceof Error ? e.message : String(e));
    if (msg.includes(INTERRUPT)) return new LuaScriptError(script, `timed out after ${timeoutMs} ms`, 'timeout');
    if (/not enough memory/.test(msg)) return new LuaScriptError(script, `out of memory (limit ${this.memoryBytes} bytes)`, 'memory');
    return new LuaScriptError(script, msg, 'runtime', e);
  }

  private decodeResult(raw: unknown, running: Running, script: string, isLoad: boolean): unknown {
    if (typeof raw !== 'string' || raw.length === 0) throw new LuaScriptError(script, 'sandbox bridge returned no result', 'runtime');
    const tag = raw[0];
    const body = raw.slice(1);
    if (tag === '=') return running.result;
    if (tag === '?') throw new LuaScriptError(script, `returned a value that cannot be converted: ${body}`, 'bad-return');
    const msg = cleanMessage(body);
    if (msg.includes(INTERRUPT)) throw new LuaScriptError(script, `timed out after ${this.timeoutMs} ms`, 'timeout');
    if (msg === 'not enough memory') throw new LuaScriptError(script, `out of memory (limit ${this.memoryBytes} bytes)`, 'memory');
    throw new LuaScriptError(script, msg, isLoad ? 'load' : 'runtime');
  }
}

function cleanMessage(msg: string): string {
  const i = msg.indexOf('\nstack traceback:');
  return (i >= 0 ? msg.slice(0, i) : msg).trim();
}

