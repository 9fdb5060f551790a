/**
 * Moves values between JS and a Lua stack directly through the Lua C API (the wasm exports), with
 * the same mapping the prelude's pure-Lua `json` module defines (see ADR 0002):
 *
 * JS → Lua (like `json.decode(JSON.stringify(v))`):
 * - arrays → tables with the `json.array` marker metatable; `null`/`undefined`/functions inside
 *   an array → `json.null` (positions kept);
 * - objects → tables with the `json.object` marker; members that are `null`, `undefined`, a
 *   function or a symbol are dropped; `toJSON()` is honoured (Dates become strings);
 * - integral numbers with |n| < 2^63 → Lua integers, other finite numbers → floats, NaN/±Infinity
 *   → null; `bigint` and circular structures are refused.
 *
 * Lua → JS (like `JSON.parse(json.encode(v))`):
 * - a marker metatable (or a metatable with `__jsontype = "array"`) wins; an unmarked table whose
 *   keys are exactly 1..n (n ≥ 1) is an array, every other table — an empty one too — an object;
 * - `nil` and `json.null` → `null`; functions/userdata/threads inside an object are skipped,
 *   elsewhere refused; NaN/inf, circular tables and non-string/number keys are refused.
 *
 * Strings cross as UTF-8 bytes (invalid UTF-8 from Lua becomes U+FFFD, lone surrogates from JS
 * become U+FFFD). Conversion errors are {@link LuaConversionError}s. Any other exception thrown
 * while converting (a Lua out-of-memory `longjmp` travels as a JS exception) must be left to
 * propagate: callers run the bridge inside a protected Lua call.
 */

/** The raw Lua C API as exported by wasmoon's wasm module (`lua_Integer` is an i64 → bigint). */
export interface RawLua {
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(ptr: number): void;
  _lua_gettop(L: number): number;
  _lua_settop(L: number, idx: number): void;
  _lua_checkstack(L: number, n: number): number;
  _lua_type(L: number, idx: number): number;
  _lua_pushnil(L: number): void;
  _lua_pushboolean(L: number, b: number): void;
  _lua_pushnumber(L: number, n: number): void;
  _lua_pushinteger(L: number, n: bigint): void;
  _lua_pushlstring(L: number, ptr: number, len: number): number;
  _lua_pushvalue(L: number, idx: number): void;
  _lua_createtable(L: number, narr: number, nrec: number): void;
  _lua_rawseti(L: number, idx: number, n: bigint): void;
  _lua_rawgeti(L: number, idx: number, n: bigint): number;
  _lua_rawset(L: number, idx: number): void;
  _lua_rawget(L: number, idx: number): number;
  _lua_rawlen(L: number, idx: number): number | bigint;
  _lua_setmetatable(L: number, idx: number): number;
  _lua_getmetatable(L: number, idx: number): number;
  _lua_next(L: number, idx: number): number;
  _lua_toboolean(L: number, idx: number): number;
  _lua_tonumberx(L: number, idx: number, isnum: number): number;
  _lua_isinteger(L: number, idx: number): number;
  _lua_tointegerx(L: number, idx: number, isnum: number): bigint;
  _lua_tolstring(L: number, idx: number, lenPtr: number): number;
  _lua_topointer(L: number, idx: number): number;
  _lua_newthread(L: number): number;
  _luaL_ref(L: number, t: number): number;
  _luaL_unref(L: number, t: number, ref: number): void;
  _lua_sethook(L: number, fn: number, mask: number, count: number): void;
  _lua_resume(L: number, from: number, nargs: number, nresPtr: number): number;
  _realloc(ptr: number, size: number): number;
  _lua_setallocf(L: number, fn: number, ud: number): void;
}

/** A value that cannot cross the boundary (cycle, NaN, a function where a value is needed, …). */
export class LuaConversionError extends Error {}

const T_NIL = 0;
const T_BOOLEAN = 1;
const T_NUMBER = 3;
const T_STRING = 4;
const T_TABLE = 5;
const TYPE_NAMES = ['nil', 'boolean', 'userdata', 'number', 'string', 'table', 'function', 'userdata', 'thread'];
/** Nesting deeper than this is refused in both directions (the Lua decoder stops at 200). */
export const MAX_DEPTH = 500;
const INT_LIMIT = 2 ** 63;
const SHORT = 48;

/** Registry references of the prelude's markers (set once per Lua state). */
export interface JsonMarkers {
  registryIndex: number;
  arrayMtRef: number;
  objectMtRef: number;
  nullRef: number;
  arrayMtPtr: number;
  objectMtPtr: number;
  nullPtr: number;
}

const SKIP = Symbol('skip');
/** `lua_Integer` arguments are i64 (bigint); small ones are reused instead of allocated. */
const SMALL = Array.from({ length: 1025 }, (_, i) => BigInt(i));
const big = (i: number): bigint => (i >= 0 && i <= 1024 ? SMALL[i] : BigInt(i));
type Converted = unknown;

/** One per Lua state: converts values between JS and that state's stacks. */
export class LuaValueBridge {
  private scratch = 0;
  private scratchSize = 0;
  private readonly lenPtr: number;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder('utf-8');
  private keyPtr = 0;
  private keyLen = 0;
  private readonly arrayMtRef: bigint;
  private readonly objectMtRef: bigint;
  private readonly nullRef: bigint;

  constructor(
    private readonly m: RawLua,
    private readonly markers: JsonMarkers,
  ) {
    this.arrayMtRef = BigInt(markers.arrayMtRef);
    this.objectMtRef = BigInt(markers.objectMtRef);
    this.nullRef = BigInt(markers.nullRef);
    this.lenPtr = m._malloc(8);
    // The constant key "__jsontype", kept in wasm memory for lua_rawget lookups.
    const key = this.encoder.encode('__jsontype');
    this.keyPtr = m._malloc(key.length);
    this.keyLen = key.length;
    m.HEAPU8.set(key, this.keyPtr);
  }

  /** Frees the scratch buffers (the Lua state itself is not touched). */
  dispose(): void {
    if (this.scratch) this.m._free(this.scratch);
    this.scratch = 0;
    this.scratchSize = 0;
    this.m._free(this.lenPtr);
    this.m._free(this.keyPtr);
  }

  // ------------------------------------------------------------------ JS → Lua

  /** Pushes `v` (a top-level value: `null`/`undefined` become `nil`). */
  push(L: number, v: unknown): void {
    try {
      this.pushValue(L, v, 0, false, new Set());
    } finally {
      this.shrinkScratch();
    }
  }

  private pushValue(L: number, v: unknown, depth: number, inArray: boolean, path: Set<object>): void {
    const m = this.m;
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(): unknown }).toJSON();
    switch (typeof v) {
      case 'string':
        this.pushString(L, v);
        return;
      case 'number':
        if (!Number.isFinite(v)) this.pushNull(L, inArray);
        else if (Number.isInteger(v) && v < INT_LIMIT && v > -INT_LIMIT) m._lua_pushinteger(L, big(v));
        else m._lua_pushnumber(L, v);
        return;
      case 'boolean':
        m._lua_pushboolean(L, v ? 1 : 0);
        return;
      case 'bigint':
        throw new LuaConversionError('a bigint cannot be converted');
      case 'object':
        if (v === null) break;
        if (depth >= MAX_DEPTH) throw new LuaConversionError(`nested more than ${MAX_DEPTH} levels`);
        if (path.has(v)) throw new LuaConversionError('circular structure');
        if (!m._lua_checkstack(L, 4)) throw new LuaConversionError('Lua stack overflow');
        path.add(v);
        if (Array.isArray(v)) this.pushArray(L, v, depth, path);
        else this.pushObject(L, v as Record<string, unknown>, depth, path);
        path.delete(v);
        return;
      default:
        break;
    }
    this.pushNull(L, inArray);
  }

  private pushNull(L: number, inArray: boolean): void {
    if (inArray) this.m._lua_rawgeti(L, this.markers.registryIndex, this.nullRef);
    else this.m._lua_pushnil(L);
  }

  private pushArray(L: number, a: unknown[], depth: number, path: Set<object>): void {
    const m = this.m;
    const n = a.length;
    m._lua_createtable(L, n, 0);
    m._lua_rawgeti(L, this.markers.registryIndex, this.arrayMtRef);
    m._lua_setmetatable(L, -2);
    for (let i = 0; i < n; i++) {
      this.pushValue(L, a[i], depth + 1, true, path);
      m._lua_rawseti(L, -2, big(i + 1));
    }
  }

  private pushObject(L: number, o: Record<string, unknown>, depth: number, path: Set<object>): void {
    const m = this.m;
    const keys = Object.keys(o);
    m._lua_createtable(L, 0, keys.length);
    m._lua_rawgeti(L, this.markers.registryIndex, this.objectMtRef);
    m._lua_setmetatable(L, -2);
    for (const k of keys) {
      let val = o[k];
      if (val !== null && typeof val === 'object' && typeof (val as { toJSON?: unknown }).toJSON === 'function') val = (val as { toJSON(key: string): unknown }).toJSON(k);
      const t = typeof val;
      if (val === null || t === 'undefined' || t === 'function' || t === 'symbol') continue;
      this.pushString(L, k);
      this.pushValue(L, val, depth + 1, false, path);
      m._lua_rawset(L, -3);
    }
  }

  private pushString(L: number, s: string): void {
    const m = this.m;
    const n = s.length;
    if (n <= SHORT) {
      this.ensureScratch(n * 3);
      const heap = m.HEAPU8;
      const base = this.scratch;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        heap[base + i] = c;
      }
      if (i === n) {
        m._lua_pushlstring(L, base, n);
        return;
      }
      const { written } = this.encoder.encodeInto(s, heap.subarray(base, base + n * 3));
      m._lua_pushlstring(L, base, written);
      return;
    }
    const bytes = Buffer.byteLength(s, 'utf8');
    this.ensureScratch(bytes);
    const { written } = this.encoder.encodeInto(s, m.HEAPU8.subarray(this.scratch, this.scratch + bytes));
    m._lua_pushlstring(L, this.scratch, written);
  }

  private ensureScratch(size: number): void {
    if (size <= this.scratchSize) return;
    if (this.scratch) this.m._free(this.scratch);
    const want = Math.max(size, 4096);
    this.scratch = this.m._malloc(want);
    if (!this.scratch) {
      this.scratchSize = 0;
      throw new LuaConversionError(`cannot allocate ${want} bytes`);
    }
    this.scratchSize = want;
  }

  /** Large buffers (big attachments) are not kept between calls. */
  private shrinkScratch(): void {
    if (this.scratchSize > 1 << 20) {
      this.m._free(this.scratch);
      this.scratch = 0;
      this.scratchSize = 0;
    }
  }

  // ------------------------------------------------------------------ Lua → JS

  /** Reads the value at stack index `idx` (nil → null). */
  read(L: number, idx: number): unknown {
    const abs = idx < 0 ? this.m._lua_gettop(L) + idx + 1 : idx;
    const v = this.readValue(L, abs, 0, new Set(), 'value');
    if (v === SKIP) throw new LuaConversionError(`json.encode: cannot encode a ${TYPE_NAMES[this.m._lua_type(L, abs)] ?? 'value'}`);
    return v;
  }

  private readValue(L: number, idx: number, depth: number, seen: Set<number>, where: string): Converted | typeof SKIP {
    const m = this.m;
    const t = m._lua_type(L, idx);
    switch (t) {
      case T_NIL:
        return null;
      case T_BOOLEAN:
        return m._lua_toboolean(L, idx) !== 0;
      case T_NUMBER: {
        const n = m._lua_tonumberx(L, idx, 0);
        if (!Number.isFinite(n)) throw new LuaConversionError(`json.encode: cannot encode ${Number.isNaN(n) ? 'nan' : n > 0 ? 'inf' : '-inf'} (${where})`);
        return n;
      }
      case T_STRING:
        return this.readString(L, idx);
      case T_TABLE:
        return this.readTable(L, idx, depth, seen);
      default:
        return SKIP;
    }
  }

  private readString(L: number, idx: number): string {
    const m = this.m;
    const ptr = m._lua_tolstring(L, idx, this.lenPtr);
    const heap = m.HEAPU8;
    const len = heap[this.lenPtr] | (heap[this.lenPtr + 1] << 8) | (heap[this.lenPtr + 2] << 16) | (heap[this.lenPtr + 3] << 24);
    if (len <= SHORT) {
      let s = '';
      for (let i = 0; i < len; i++) {
        const c = heap[ptr + i];
        if (c >= 0x80) return this.decoder.decode(heap.subarray(ptr, ptr + len));
        s += String.fromCharCode(c);
      }
      return s;
    }
    return this.decoder.decode(heap.subarray(ptr, ptr + len));
  }

  private readTable(L: number, idx: number, depth: number, seen: Set<number>): Converted {
    const m = this.m;
    const ptr = m._lua_topointer(L, idx);
    if (ptr === this.markers.nullPtr) return null;
    if (depth >= MAX_DEPTH) throw new LuaConversionError(`json.encode: nested more than ${MAX_DEPTH} levels`);
    if (seen.has(ptr)) throw new LuaConversionError('json.encode: circular reference');
    if (!m._lua_checkstack(L, 4)) throw new LuaConversionError('json.encode: Lua stack overflow');
    seen.add(ptr);
    let kind: 'array' | 'object' | undefined;
    if (m._lua_getmetatable(L, idx)) {
      const mp = m._lua_topointer(L, -1);
      if (mp === this.markers.arrayMtPtr) kind = 'array';
      else if (mp === this.markers.objectMtPtr) kind = 'object';
      else {
        m._lua_pushlstring(L, this.keyPtr, this.keyLen);
        if (m._lua_rawget(L, -2) === T_STRING) {
          const k = this.readString(L, -1);
          kind = k === 'array' ? 'array' : k === 'object' || k === 'null' ? 'object' : undefined;
        }
        m._lua_settop(L, -2);
      }
      m._lua_settop(L, -2);
    }
    let out: Converted;
    if (kind === 'array') out = this.readArray(L, idx, depth, seen);
    else out = this.readAuto(L, idx, depth, seen, kind === 'object');
    seen.delete(ptr);
    return out;
  }

  private readArray(L: number, idx: number, depth: number, seen: Set<number>): unknown[] {
    const m = this.m;
    const n = Number(m._lua_rawlen(L, idx));
    const out = new Array<unknown>(n);
    for (let i = 1; i <= n; i++) {
      m._lua_rawgeti(L, idx, big(i));
      const v = this.readValue(L, m._lua_gettop(L), depth + 1, seen, `item ${i}`);
      if (v === SKIP) throw new LuaConversionError(`json.encode: cannot encode a ${TYPE_NAMES[m._lua_type(L, -1)] ?? 'value'} (item ${i})`);
      out[i - 1] = v;
      m._lua_settop(L, -2);
    }
    return out;
  }

  /** An unmarked (or object-marked) table: array when its keys are exactly 1..n, else object. */
  private readAuto(L: number, idx: number, depth: number, seen: Set<number>, forceObject: boolean): Converted {
    const m = this.m;
    const n = forceObject ? 0 : Number(m._lua_rawlen(L, idx));
    const keys: (string | number)[] = [];
    const vals: unknown[] = [];
    let skipped: string | undefined;
    let arrayLike = n > 0;
    m._lua_pushnil(L);
    while (m._lua_next(L, idx) !== 0) {
      const kt = m._lua_type(L, -2);
      let key: string | number;
      if (kt === T_STRING) {
        key = this.readString(L, -2);
        arrayLike = false;
      } else if (kt === T_NUMBER) {
        if (m._lua_isinteger(L, -2)) {
          const k = Number(m._lua_tointegerx(L, -2, 0));
          if (k < 1 || k > n) arrayLike = false;
          key = k;
        } else {
          // A float key: Lua's own tostring (on a copy, so lua_next's key is left alone).
          m._lua_pushvalue(L, -2);
          key = this.readString(L, -1);
          m._lua_settop(L, -2);
          arrayLike = false;
        }
      } else {
        throw new LuaConversionError(`json.encode: invalid key type ${TYPE_NAMES[kt] ?? 'value'}`);
      }
      const top = m._lua_gettop(L);
      const v = this.readValue(L, top, depth + 1, seen, `key ${String(key)}`);
      // Skipped in an object, an error in an array (decided once all keys are known).
      if (v === SKIP) skipped ??= `${TYPE_NAMES[m._lua_type(L, top)] ?? 'value'} (item ${String(key)})`;
      keys.push(key);
      vals.push(v);
      m._lua_settop(L, -2);
    }
    if (arrayLike && keys.length === n) {
      if (skipped) throw new LuaConversionError(`json.encode: cannot encode a ${skipped}`);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) out[(keys[i] as number) - 1] = vals[i];
      return out;
    }
    const obj: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      if (vals[i] === SKIP) continue;
      const k = String(keys[i]);
      if (k === '__proto__') Object.defineProperty(obj, k, { value: vals[i], enumerable: true, writable: true, configurable: true });
      else obj[k] = vals[i];
    }
    return obj;
  }
}
