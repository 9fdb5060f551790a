-- Generic OpenAI-compatible Chat Completions adapter (Qwen/DashScope, Zhipu GLM, Moonshot,
-- vLLM, LM Studio, OpenRouter, ...). Other chat-completions adapters build on this one with
-- import_adapter("openai-compatible").
--
-- cfg: base_url (including the version path, e.g. https://api.moonshot.cn/v1), model, api_key,
-- options: stream_usage = false to omit stream_options, max_tokens_field to rename max_tokens.

local M = {}

local function map_message(m, out)
  if m.role == "tool" then
    out[#out + 1] = { role = "tool", tool_call_id = m.tool_call_id, content = m.content or "" }
  elseif m.role == "assistant" then
    local msg = { role = "assistant", content = m.content or "" }
    if m.tool_calls and #m.tool_calls > 0 then
      msg.tool_calls = json.array()
      for _, c in ipairs(m.tool_calls) do
        msg.tool_calls[#msg.tool_calls + 1] = { id = c.id, type = "function", ["function"] = { name = c.name, arguments = util.args_string(c.arguments) } }
      end
      if msg.content == "" then msg.content = json.null end
    end
    out[#out + 1] = msg
  elseif m.role == "user" and m.attachments and #m.attachments > 0 then
    local parts = json.array()
    if m.content and m.content ~= "" then parts[#parts + 1] = { type = "text", text = m.content } end
    for _, a in ipairs(m.attachments) do
      if util.is_image(a) then parts[#parts + 1] = { type = "image_url", image_url = { url = util.data_url(a) } } end
    end
    out[#out + 1] = { role = "user", content = parts }
  else
    out[#out + 1] = { role = m.role, content = m.content or "" }
  end
end

function M.map_messages(messages)
  local out = json.array()
  for _, m in ipairs(messages or {}) do map_message(m, out) end
  return out
end

function M.map_tools(tools)
  if not tools or #tools == 0 then return nil end
  local out = json.array()
  for _, t in ipairs(tools) do
    out[#out + 1] = { type = "function", ["function"] = { name = t.name, description = t.description, parameters = t.parameters } }
  end
  return out
end

function M.build_body(req, cfg)
  local opts = cfg.options or {}
  local body = { model = req.model or cfg.model, messages = M.map_messages(req.messages), stream = req.stream == true }
  body.tools = M.map_tools(req.tools)
  if req.temperature then body.temperature = req.temperature end
  if req.max_tokens then body[opts.max_tokens_field or "max_tokens"] = req.max_tokens end
  if req.stream and opts.stream_usage ~= false and opts.stream_usage ~= "false" then body.stream_options = { include_usage = true } end
  return body
end

local finish_map = { stop = "stop", tool_calls = "tool-calls", function_call = "tool-calls", length = "length", content_filter = "content-filter" }
function M.finish(reason)
  if reason == nil then return nil end
  return finish_map[reason] or "other"
end

function M.usage(u)
  if type(u) ~= "table" then return nil end
  return util.usage(u.prompt_tokens, u.completion_tokens)
end

function transform_request(req, cfg)
  return { url = util.join_url(cfg.base_url, "/chat/completions"), method = "POST", body = M.build_body(req, cfg) }
end

function headers(cfg)
  local h = { ["content-type"] = "application/json" }
  if cfg.api_key and cfg.api_key ~= "" then h["authorization"] = "Bearer " .. cfg.api_key end
  return h
end

-- The model list: GET {base_url}/models → { data = { { id = "..." }, ... } }.
function models_request(cfg)
  return { url = util.join_url(cfg.base_url, "/models"), method = "GET" }
end

function transform_models(body)
  local out = json.array()
  for _, m in ipairs((body and body.data) or {}) do
    if type(m) == "table" and type(m.id) == "string" then out[#out + 1] = m.id end
  end
  return out
end

function transform_response(body)
  local choice = body.choices and body.choices[1]
  if not choice then error("response has no choices") end
  local msg = choice.message or {}
  local out = {
    text = util.text_of(msg.content),
    reasoning = msg.reasoning_content or msg.reasoning or "",
    tool_calls = json.array(),
    usage = M.usage(body.usage),
    finish_reason = M.finish(choice.finish_reason),
  }
  for _, c in ipairs(msg.tool_calls or {}) do
    local fn = c["function"] or {}
    out.tool_calls[#out.tool_calls + 1] = { id = c.id, name = fn.name, arguments = util.args_string(fn.arguments) }
  end
  return out
end

local function flush_calls(state, parts)
  if state.calls_done then return end
  state.calls_done = true
  for _, idx in ipairs(state.order or {}) do
    local c = state.calls[idx]
    parts[#parts + 1] = { type = "tool-call", id = c.id, name = c.name, arguments = c.arguments }
  end
end

-- A finish only when the wire said the answer ended (a choice's finish_reason, or a usage
-- report): a stream of which nothing was understood must not read as an empty answer — the host
-- makes "no part and no finish" a bad-response error.
local function flush_finish(state, parts)
  flush_calls(state, parts)
  if state.finished then return end
  state.finished = true
  if state.finish or state.usage then
    parts[#parts + 1] = { type = "finish", finish_reason = state.finish, usage = state.usage }
  end
end

function transform_stream_chunk(chunk, state)
  local parts = json.array()
  if chunk == "[DONE]" then
    -- The wire's own end of an answer it has sent choices of: an empty reply without a
    -- finish_reason is still an answer (a stream of nothing understood is not).
    if state.saw_choice then state.finish = state.finish or "stop" end
    flush_finish(state, parts)
    return parts
  end
  if type(chunk) ~= "table" then return parts end
  if chunk.error then
    local e = chunk.error
    parts[#parts + 1] = { type = "error", message = type(e) == "table" and (e.message or json.encode(e)) or tostring(e), code = "upstream" }
    return parts
  end
  if type(chunk.usage) == "table" then state.usage = M.usage(chunk.usage) end
  local choice = chunk.choices and chunk.choices[1]
  if not choice then return parts end
  state.saw_choice = true
  local d = choice.delta or {}
  local r = d.reasoning_content or d.reasoning
  if type(r) == "string" and r ~= "" then parts[#parts + 1] = { type = "reasoning-delta", text = r } end
  if type(d.content) == "string" and d.content ~= "" then parts[#parts + 1] = { type = "text-delta", text = d.content } end
  for _, tc in ipairs(d.tool_calls or {}) do
    state.calls = state.calls or {}
    state.order = state.order or {}
    local idx = tc.index or #state.order
    local c = state.calls[idx]
    if not c then
      c = { id = "", name = "", arguments = "" }
      state.calls[idx] = c
      state.order[#state.order + 1] = idx
    end
    if type(tc.id) == "string" and tc.id ~= "" then c.id = tc.id end
    local fn = tc["function"]
    if fn then
      if type(fn.name) == "string" and fn.name ~= "" then c.name = fn.name end
      if type(fn.arguments) == "string" then c.arguments = c.arguments .. fn.arguments end
    end
  end
  if choice.finish_reason then
    state.finish = M.finish(choice.finish_reason)
    flush_calls(state, parts)
  end
  return parts
end

function transform_stream_end(state)
  local parts = json.array()
  flush_finish(state, parts)
  return parts
end

-- Exported for adapters that import this one.
openai_chat = M
