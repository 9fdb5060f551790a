/**
 * Lua run in every adapter sandbox after the generic prelude: the `util` helpers, the
 * `import_adapter(name)` inheritance helper, and the per-request stream-state trampolines.
 * Documented for adapter authors in `src/providers/adapters/README.md`.
 */
export const ADAPTER_PRELUDE = String.raw`
util = {}
function util.join_url(base, path)
  base = (tostring(base or ""):gsub("/+$", ""))
  if path:sub(1, 1) ~= "/" then path = "/" .. path end
  if base:sub(-3) == "/v1" and path:sub(1, 4) == "/v1/" then path = path:sub(4) end
  return base .. path
end
function util.args_table(v)
  if type(v) == "table" then return v end
  if v == nil or v == "" then return json.object() end
  local ok, t = pcall(json.decode, v)
  if ok and type(t) == "table" and not json.is_array(t) then return t end
  return json.object()
end
function util.args_string(v)
  if type(v) == "string" then return v end
  if v == nil then return "{}" end
  return json.encode(v)
end
function util.is_image(a) return type(a) == "table" and type(a.mime_type) == "string" and a.mime_type:sub(1, 6) == "image/" end
function util.data_url(a) return "data:" .. a.mime_type .. ";base64," .. a.data end
function util.text_of(content)
  if type(content) == "string" then return content end
  if type(content) ~= "table" then return "" end
  local out = {}
  for _, p in ipairs(content) do
    if type(p) == "string" then out[#out + 1] = p elseif type(p) == "table" and type(p.text) == "string" then out[#out + 1] = p.text end
  end
  return table.concat(out)
end
function util.usage(input, output) return { input_tokens = tonumber(input) or 0, output_tokens = tonumber(output) or 0 } end
function util.push(list, v) list[#list + 1] = v return list end

local imported = {}
function import_adapter(name)
  if imported[name] then return imported[name] end
  local src = __adapter_source(name)
  if type(src) ~= "string" then error("import_adapter: no adapter named " .. tostring(name), 2) end
  local env = setmetatable({}, { __index = _G })
  local f, err = load(src, "@" .. name .. ".lua", "t", env)
  if not f then error(err, 2) end
  imported[name] = env
  f()
  return env
end

-- transform_request, then headers (when defined) on the same request table: one VM entry and
-- one conversion of the request per HTTP call.
function __adapter_build(req, cfg)
  local r = transform_request(req, cfg)
  local h = nil
  if type(headers) == "function" then h = headers(cfg, req) end
  return { request = r, headers = h }
end

local states = {}
function __adapter_stream_chunk(id, chunk, event)
  local s = states[id]
  if not s then s = {} states[id] = s end
  return transform_stream_chunk(chunk, s, event)
end
function __adapter_stream_end(id)
  local s = states[id] or {}
  states[id] = nil
  if type(transform_stream_end) == "function" then return transform_stream_end(s) end
  return json.array()
end
function __adapter_stream_drop(id) states[id] = nil end
`;
