/**
 * Lua source run in every sandbox before user code: the pure-Lua `json` module, the host-call
 * bridge, the safe replacements of `pcall`/`xpcall`/`load`/`print`, and the trampolines the
 * host uses to call into the VM. Values cross the JS↔Lua boundary only as JSON strings, so the
 * mapping (arrays, objects, empty tables, null) is defined in exactly one place: here.
 *
 * JSON mapping (documented in docs/decisions/0002-lua-adapters.md):
 * - decode: objects → tables with the `json.object` marker metatable, arrays → tables with the
 *   `json.array` marker; `null` members of an object are dropped (the key is absent, so
 *   `if msg.content then` works); `null` inside an array becomes `json.null` (keeps positions).
 * - encode: a marker wins; otherwise a table whose keys are exactly 1..n (n ≥ 1) is an array,
 *   any other table — including an EMPTY unmarked table — is an object `{}`. Use `json.array()`
 *   (or `json.array(t)`) for an explicit `[]`. `json.null` encodes as `null`.
 */
export const LUA_PRELUDE = String.raw`
-- ---------------------------------------------------------------- strip what a sandbox must not reach
do
  local os_time, os_clock, os_date, os_difftime = os.time, os.clock, os.date, os.difftime
  os = { time = os_time, clock = os_clock, date = os_date, difftime = os_difftime }
  local cg = collectgarbage
  collectgarbage = function(opt)
    if opt == nil or opt == "count" or opt == "collect" or opt == "step" then return cg(opt) end
    return 0
  end
  io, require, package, debug, dofile, loadfile, coroutine = nil, nil, nil, nil, nil, nil, nil
  string.dump = nil
end
local rawpcall, rawxpcall, rawload, rawerror = pcall, xpcall, load, error
local type, pairs, ipairs, tostring, tonumber, select = type, pairs, ipairs, tostring, tonumber, select
local setmetatable, getmetatable, rawget, next = setmetatable, getmetatable, rawget, next
local sfind, ssub, sbyte, schar, sformat, sgsub, concat = string.find, string.sub, string.byte, string.char, string.format, string.gsub, table.concat
local mtype, mhuge, floor = math.type, math.huge, math.floor
local utf8char = utf8.char
local INTERRUPT = "__sandbox_interrupted__"

-- ---------------------------------------------------------------- json
local json = {}
local array_mt = { __jsontype = "array" }
local object_mt = { __jsontype = "object" }
json.null = setmetatable({}, { __tostring = function() return "null" end, __jsontype = "null" })
function json.array(t) return setmetatable(t or {}, array_mt) end
function json.object(t) return setmetatable(t or {}, object_mt) end
function json.is_array(t) return type(t) == "table" and getmetatable(t) == array_mt end

local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
local function escape_char(c) return escapes[c] or sformat("\\u%04x", sbyte(c)) end
local function encode_string(s) return '"' .. sgsub(s, '[%c"\\]', escape_char) .. '"' end

local encode_value
local function kind_of(t)
  local mt = getmetatable(t)
  local k = mt and mt.__jsontype
  if k then return k end
  local n = #t
  if n == 0 then return "object" end
  local count = 0
  for key in pairs(t) do
    if type(key) ~= "number" or mtype(key) ~= "integer" or key < 1 or key > n then return "object" end
    count = count + 1
  end
  if count ~= n then return "object" end
  return "array"
end
encode_value = function(v, buf, seen)
  local tv = type(v)
  if v == nil or v == json.null then buf[#buf + 1] = "null"
  elseif tv == "string" then buf[#buf + 1] = encode_string(v)
  elseif tv == "number" then
    if v ~= v or v == mhuge or v == -mhuge then rawerror("json.encode: cannot encode " .. tostring(v), 0) end
    if mtype(v) == "integer" then buf[#buf + 1] = sformat("%d", v)
    elseif v == floor(v) and v > -1e15 and v < 1e15 then buf[#buf + 1] = sformat("%d", v)
    else
      local s = sformat("%.14g", v)
      if tonumber(s) ~= v then s = sformat("%.17g", v) end
      buf[#buf + 1] = s
    end
  elseif tv == "boolean" then buf[#buf + 1] = v and "true" or "false"
  elseif tv == "table" then
    if seen[v] then rawerror("json.encode: circular reference", 0) end
    seen[v] = true
    local kind = kind_of(v)
    if kind == "array" then
      buf[#buf + 1] = "["
      local n = #v
      for i = 1, n do
        if i > 1 then buf[#buf + 1] = "," end
        encode_value(v[i], buf, seen)
      end
      buf[#buf + 1] = "]"
    else
      buf[#buf + 1] = "{"
      local first = true
      for k, val in pairs(v) do
        local tk = type(k)
        if tk ~= "string" and tk ~= "number" then rawerror("json.encode: invalid key type " .. tk, 0) end
        local tval = type(val)
        if tval ~= "function" and tval ~= "userdata" and tval ~= "thread" then
          if not first then buf[#buf + 1] = "," end
          first = false
          buf[#buf + 1] = encode_string(tostring(k))
          buf[#buf + 1] = ":"
          encode_value(val, buf, seen)
        end
      end
      buf[#buf + 1] = "}"
    end
    seen[v] = nil
  else
    rawerror("json.encode: cannot encode a " .. tv, 0)
  end
end
function json.encode(v)
  local buf = {}
  encode_value(v, buf, {})
  return concat(buf)
end

local decode_value
local function decode_error(s, i, msg) rawerror(sformat("json.decode: %s at position %d", msg, i), 0) end
local function skip_ws(s, i)
  local _, e = sfind(s, "^[ \n\r\t]*", i)
  return e + 1
end
local function codepoint_to_utf8(n) return utf8char(n) end
local function decode_string(s, i)
  -- i points at the opening quote
  local buf, j = nil, i + 1
  while true do
    local a, b = sfind(s, '["\\]', j)
    if not a then decode_error(s, i, "unterminated string") end
    local c = sbyte(s, a)
    if c == 34 then
      if buf then buf[#buf + 1] = ssub(s, j, a - 1); return concat(buf), a + 1 end
      return ssub(s, j, a - 1), a + 1
    end
    buf = buf or {}
    buf[#buf + 1] = ssub(s, j, a - 1)
    local e = ssub(s, a + 1, a + 1)
    if e == "u" then
      local hex = ssub(s, a + 2, a + 5)
      local n = tonumber(hex, 16)
      if not n or #hex ~= 4 then decode_error(s, a, "bad unicode escape") end
      local nexti = a + 6
      if n >= 0xD800 and n <= 0xDBFF and ssub(s, nexti, nexti + 1) == "\\u" then
        local lo = tonumber(ssub(s, nexti + 2, nexti + 5), 16)
        if lo and lo >= 0xDC00 and lo <= 0xDFFF then
          n = 0x10000 + (n - 0xD800) * 0x400 + (lo - 0xDC00)
          nexti = nexti + 6
        end
      end
      buf[#buf + 1] = codepoint_to_utf8(n)
      j = nexti
    else
      local map = { b = "\b", f = "\f", n = "\n", r = "\r", t = "\t", ['"'] = '"', ["\\"] = "\\", ["/"] = "/" }
      local r = map[e]
      if not r then decode_error(s, a, "bad escape") end
      buf[#buf + 1] = r
      j = a + 2
    end
  end
end
decode_value = function(s, i, depth)
  if depth > 200 then decode_error(s, i, "too deeply nested") end
  i = skip_ws(s, i)
  local c = sbyte(s, i)
  if c == 123 then -- {
    local t = setmetatable({}, object_mt)
    i = skip_ws(s, i + 1)
    if sbyte(s, i) == 125 then return t, i + 1 end
    while true do
      if sbyte(s, i) ~= 34 then decode_error(s, i, "expected string key") end
      local k
      k, i = decode_string(s, i)
      i = skip_ws(s, i)
      if sbyte(s, i) ~= 58 then decode_error(s, i, "expected ':'") end
      local v
      v, i = decode_value(s, i + 1, depth + 1)
      if v ~= json.null then t[k] = v end
      i = skip_ws(s, i)
      local d = sbyte(s, i)
      if d == 125 then return t, i + 1 end
      if d ~= 44 then decode_error(s, i, "expected ',' or '}'") end
      i = skip_ws(s, i + 1)
    end
  elseif c == 91 then -- [
    local t = setmetatable({}, array_mt)
    i = skip_ws(s, i + 1)
    if sbyte(s, i) == 93 then return t, i + 1 end
    local n = 0
    while true do
      local v
      v, i = decode_value(s, i, depth + 1)
      n = n + 1
      t[n] = v
      i = skip_ws(s, i)
      local d = sbyte(s, i)
      if d == 93 then return t, i + 1 end
      if d ~= 44 then decode_error(s, i, "expected ',' or ']'") end
      i = i + 1
    end
  elseif c == 34 then
    return decode_string(s, i)
  elseif c == 116 and ssub(s, i, i + 3) == "true" then return true, i + 4
  elseif c == 102 and ssub(s, i, i + 4) == "false" then return false, i + 5
  elseif c == 110 and ssub(s, i, i + 3) == "null" then return json.null, i + 4
  else
    local a, b = sfind(s, "^-?%d+%.?%d*[eE]?[-+]?%d*", i)
    if not a then decode_error(s, i, "unexpected character") end
    local num = tonumber(ssub(s, a, b))
    if num == nil then decode_error(s, i, "bad number") end
    return num, b + 1
  end
end
function json.decode(s)
  if type(s) ~= "string" then rawerror("json.decode: expected a string, got " .. type(s), 2) end
  local v, i = decode_value(s, 1, 0)
  i = skip_ws(s, i)
  if i <= #s then decode_error(s, i, "trailing characters") end
  if v == json.null then return nil end
  return v
end
_G.json = json

-- ---------------------------------------------------------------- safety wrappers
-- The interrupt raised by the host's instruction hook must not be swallowed by a script's pcall.
local function rethrow_interrupt(ok, ...)
  if not ok and (...) == INTERRUPT then rawerror(INTERRUPT, 0) end
  return ok, ...
end
function pcall(f, ...) return rethrow_interrupt(rawpcall(f, ...)) end
function xpcall(f, handler, ...)
  local function h(e) if e == INTERRUPT then return e end return handler(e) end
  return rethrow_interrupt(rawxpcall(f, h, ...))
end
function load(chunk, name, _mode, env)
  if type(chunk) ~= "string" then return nil, "load: only source strings are allowed in the sandbox" end
  return rawload(chunk, name, "t", env or _G)
end

-- ---------------------------------------------------------------- host bridge
local host_call = __host_call
__host_call = nil
-- Raw C functions implemented by the host (LuaValueBridge): hidden from scripts like host_call.
-- host_init is called at the end of the prelude, with the trampolines the host runs.
local host_init, take_args, put_result = __host_init, __host_args, __host_result
__host_init, __host_args, __host_result = nil, nil, nil
local function pack_args(...)
  local n = select("#", ...)
  local args = json.array()
  for i = 1, n do
    local v = select(i, ...)
    if v == nil then v = json.null end
    args[i] = v
  end
  return args
end
local function call_host(name, ...)
  local r = host_call(name, json.encode(pack_args(...)))
  if type(r) == "userdata" then r = r:await() end
  local res = json.decode(r)
  if not res.ok then rawerror(res.error, 2) end
  return res.value
end
function __sandbox_bind(name)
  _G[name] = function(...) return call_host(name, ...) end
end
function log(level, ...)
  if select("#", ...) == 0 then return call_host("__log", "info", tostring(level)) end
  local parts = {}
  for i = 1, select("#", ...) do parts[#parts + 1] = tostring((select(i, ...))) end
  return call_host("__log", tostring(level), concat(parts, " "))
end
function print(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[#parts + 1] = tostring((select(i, ...))) end
  return call_host("__log", "info", concat(parts, "\t"))
end

-- ---------------------------------------------------------------- trampolines used by the host
-- The first result goes to the host through put_result (converted by the host with the same
-- mapping as json.encode); the string returned here only tags the outcome.
local function encode_result(ok, ...)
  if not ok then
    local e = ...
    if e == INTERRUPT then rawerror(INTERRUPT, 0) end
    return "!" .. tostring(e)
  end
  local eok, s = rawpcall(put_result, (...))
  if not eok then
    if s == INTERRUPT or s == "not enough memory" then rawerror(s, 0) end
    return "?" .. tostring(s)
  end
  return "="
end
local function traceback_handler(e)
  if e == INTERRUPT then return e end
  if type(e) ~= "string" then e = tostring(e) end
  return e
end
-- The trampolines the host runs on a fresh thread (held in the registry, not reachable from
-- scripts). Their inputs come from take_args: the host converts them inside this protected call.
local function sandbox_load()
  local source, chunkname = take_args()
  local f, err = rawload(source, chunkname, "t", _G)
  if not f then return "!" .. tostring(err) end
  return encode_result(rawxpcall(f, traceback_handler))
end
local function call_with(fname, ...)
  local f = rawget(_G, fname)
  if type(f) ~= "function" then return "!" .. tostring(fname) .. " is not a function (got " .. type(f) .. ")" end
  return encode_result(rawxpcall(f, traceback_handler, ...))
end
local function sandbox_call() return call_with(take_args()) end
host_init(array_mt, object_mt, json.null, sandbox_call, sandbox_load)
function __sandbox_has(fname) return type(rawget(_G, fname)) == "function" end
`;
