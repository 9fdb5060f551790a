-- Ollama /api/chat (streams NDJSON). Images go in the message's `images` list (base64); tool
-- calls carry argument objects, not JSON text; `thinking` is reasoning.
-- cfg.base_url default http://127.0.0.1:11434 (OLLAMA_HOST); cfg.options.think = true enables
-- thinking for models that support it; cfg.options.num_ctx sets the context size.

function transform_request(req, cfg)
  local opts = cfg.options or {}
  local messages = json.array()
  for _, m in ipairs(req.messages or {}) do
    local msg = { role = m.role, content = m.content or "" }
    if m.role == "assistant" and m.tool_calls and #m.tool_calls > 0 then
      msg.tool_calls = json.array()
      for _, c in ipairs(m.tool_calls) do
        msg.tool_calls[#msg.tool_calls + 1] = { ["function"] = { name = c.name, arguments = util.args_table(c.arguments) } }
      end
    elseif m.role == "tool" then
      msg.tool_name = m.name
    elseif m.attachments and #m.attachments > 0 then
      msg.images = json.array()
      for _, a in ipairs(m.attachments) do
        if util.is_image(a) then msg.images[#msg.images + 1] = a.data end
      end
    end
    messages[#messages + 1] = msg
  end
  local body = { model = req.model or cfg.model, messages = messages, stream = req.stream == true }
  if req.tools and #req.tools > 0 then
    body.tools = json.array()
    for _, t in ipairs(req.tools) do
      body.tools[#body.tools + 1] = { type = "function", ["function"] = { name = t.name, description = t.description, parameters = t.parameters } }
    end
  end
  local options = {}
  if req.temperature then options.temperature = req.temperature end
  if req.max_tokens then options.num_predict = req.max_tokens end
  if opts.num_ctx then options.num_ctx = tonumber(opts.num_ctx) end
  if next(options) then body.options = options end
  if opts.think == true or opts.think == "true" then body.think = true end
  return { url = util.join_url(cfg.base_url or "http://127.0.0.1:11434", "/api/chat"), method = "POST", body = body, stream_format = "ndjson" }
end

function headers(cfg)
  local h = { ["content-type"] = "application/json" }
  if cfg.api_key and cfg.api_key ~= "" then h["authorization"] = "Bearer " .. cfg.api_key end
  return h
end

-- The model list: GET {base_url}/api/tags → { models = { { name = "llama3.2" }, ... } }.
function models_request(cfg)
  return { url = util.join_url(cfg.base_url or "http://127.0.0.1:11434", "/api/tags"), method = "GET" }
end

function transform_models(body)
  local out = json.array()
  for _, m in ipairs((body and body.models) or {}) do
    if type(m) == "table" and type(m.name) == "string" then out[#out + 1] = m.name end
  end
  return out
end

local function finish_of(body, has_calls)
  local r = body.done_reason
  if r == "length" then return "length" end
  if has_calls then return "tool-calls" end
  if r == nil or r == "stop" then return "stop" end
  return "other"
end

local function calls_of(msg, list)
  for _, c in ipairs(msg.tool_calls or {}) do
    local fn = c["function"] or {}
    list[#list + 1] = { id = c.id, name = fn.name, arguments = util.args_string(fn.arguments) }
  end
  return list
end

function transform_response(body)
  if body.error then error("API error: " .. tostring(body.error)) end
  if type(body.message) ~= "table" then error("response has no message") end
  local msg = body.message
  local calls = calls_of(msg, json.array())
  return {
    text = msg.content or "",
    reasoning = msg.thinking or "",
    tool_calls = calls,
    usage = util.usage(body.prompt_eval_count, body.eval_count),
    finish_reason = finish_of(body, #calls > 0),
  }
end

function transform_stream_chunk(chunk, state)
  local parts = json.array()
  if type(chunk) ~= "table" then return parts end
  if chunk.error then
    parts[#parts + 1] = { type = "error", message = tostring(chunk.error), code = "upstream" }
    return parts
  end
  local msg = chunk.message or {}
  if type(msg.thinking) == "string" and msg.thinking ~= "" then parts[#parts + 1] = { type = "reasoning-delta", text = msg.thinking } end
  if type(msg.content) == "string" and msg.content ~= "" then parts[#parts + 1] = { type = "text-delta", text = msg.content } end
  local calls = calls_of(msg, {})
  for _, c in ipairs(calls) do
    state.calls = (state.calls or 0) + 1
    parts[#parts + 1] = { type = "tool-call", id = c.id, name = c.name, arguments = c.arguments }
  end
  if chunk.done then
    parts[#parts + 1] = { type = "finish", finish_reason = finish_of(chunk, (state.calls or 0) > 0), usage = util.usage(chunk.prompt_eval_count, chunk.eval_count) }
  end
  return parts
end
