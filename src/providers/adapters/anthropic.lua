-- Anthropic Messages API: POST {base_url}/v1/messages with x-api-key + anthropic-version.
-- System messages become the top-level `system`; tool results are user turns with tool_result
-- blocks; consecutive messages of one role are merged (the API wants alternating roles).
-- Streams: message_start / content_block_start / content_block_delta (text_delta,
-- thinking_delta, input_json_delta) / content_block_stop / message_delta / message_stop.
-- cfg.options: max_tokens (default 4096), thinking_budget (enables extended thinking).

local function push_block(out, role, block)
  local last = out[#out]
  if last and last.role == role then
    last.content[#last.content + 1] = block
  else
    out[#out + 1] = { role = role, content = json.array({ block }) }
  end
end

local function map_messages(messages)
  local system, out = {}, json.array()
  for _, m in ipairs(messages or {}) do
    if m.role == "system" then
      system[#system + 1] = m.content
    elseif m.role == "tool" then
      push_block(out, "user", { type = "tool_result", tool_use_id = m.tool_call_id, content = m.content or "" })
    elseif m.role == "assistant" then
      if m.content and m.content ~= "" then push_block(out, "assistant", { type = "text", text = m.content }) end
      for _, c in ipairs(m.tool_calls or {}) do
        push_block(out, "assistant", { type = "tool_use", id = c.id, name = c.name, input = util.args_table(c.arguments) })
      end
    else
      for _, a in ipairs(m.attachments or {}) do
        if util.is_image(a) then
          push_block(out, "user", { type = "image", source = { type = "base64", media_type = a.mime_type, data = a.data } })
        elseif a.mime_type == "application/pdf" then
          push_block(out, "user", { type = "document", source = { type = "base64", media_type = a.mime_type, data = a.data } })
        end
      end
      if m.content and m.content ~= "" then push_block(out, "user", { type = "text", text = m.content }) end
    end
  end
  return (#system > 0) and table.concat(system, "\n\n") or nil, out
end

function transform_request(req, cfg)
  local opts = cfg.options or {}
  local system, messages = map_messages(req.messages)
  local body = {
    model = req.model or cfg.model,
    max_tokens = req.max_tokens or tonumber(opts.max_tokens) or 4096,
    messages = messages,
    system = system,
    stream = req.stream == true,
    temperature = req.temperature,
  }
  if req.tools and #req.tools > 0 then
    body.tools = json.array()
    for _, t in ipairs(req.tools) do
      body.tools[#body.tools + 1] = { name = t.name, description = t.description, input_schema = t.parameters }
    end
  end
  if opts.thinking_budget then
    body.thinking = { type = "enabled", budget_tokens = tonumber(opts.thinking_budget) }
    body.temperature = nil
  end
  return { url = util.join_url(cfg.base_url or "https://api.anthropic.com", "/v1/messages"), method = "POST", body = body }
end

function headers(cfg)
  return { ["content-type"] = "application/json", ["x-api-key"] = cfg.api_key, ["anthropic-version"] = (cfg.options or {}).version or "2023-06-01" }
end

-- The model list: GET {base_url}/v1/models → { data = { { id = "claude-…", type = "model" }, ... } }.
function models_request(cfg)
  return { url = util.join_url(cfg.base_url or "https://api.anthropic.com", "/v1/models?limit=1000"), method = "GET" }
end

function transform_models(body)
  local out = json.array()
  for _, m in ipairs((body and body.data) or {}) do
    if type(m) == "table" and type(m.id) == "string" then out[#out + 1] = m.id end
  end
  return out
end

local finish_map = { end_turn = "stop", stop_sequence = "stop", tool_use = "tool-calls", max_tokens = "length", refusal = "content-filter", pause_turn = "other" }

function transform_response(body)
  if body.type == "error" then error("API error: " .. tostring(body.error and body.error.message)) end
  if type(body.content) ~= "table" then error("response has no content") end
  local out = { text = "", reasoning = "", tool_calls = json.array(), finish_reason = finish_map[body.stop_reason] or "other" }
  local text, reasoning = {}, {}
  for _, b in ipairs(body.content or {}) do
    if b.type == "text" then text[#text + 1] = b.text
    elseif b.type == "thinking" then reasoning[#reasoning + 1] = b.thinking
    elseif b.type == "tool_use" then out.tool_calls[#out.tool_calls + 1] = { id = b.id, name = b.name, arguments = util.args_string(b.input) } end
  end
  out.text, out.reasoning = table.concat(text), table.concat(reasoning)
  if body.usage then out.usage = util.usage(body.usage.input_tokens, body.usage.output_tokens) end
  return out
end

function transform_stream_chunk(chunk, state)
  local parts = json.array()
  if type(chunk) ~= "table" then return parts end
  local t = chunk.type
  state.blocks = state.blocks or {}
  if t == "message_start" then
    local u = chunk.message and chunk.message.usage or {}
    state.input_tokens = u.input_tokens or 0
    state.output_tokens = u.output_tokens or 0
  elseif t == "content_block_start" then
    local b = chunk.content_block or {}
    state.blocks[chunk.index] = { type = b.type, id = b.id, name = b.name, json = "" }
    if b.type == "text" and b.text and b.text ~= "" then parts[#parts + 1] = { type = "text-delta", text = b.text } end
  elseif t == "content_block_delta" then
    local d = chunk.delta or {}
    if d.type == "text_delta" then parts[#parts + 1] = { type = "text-delta", text = d.text }
    elseif d.type == "thinking_delta" then parts[#parts + 1] = { type = "reasoning-delta", text = d.thinking }
    elseif d.type == "input_json_delta" then
      local b = state.blocks[chunk.index]
      if b then b.json = b.json .. (d.partial_json or "") end
    end
  elseif t == "content_block_stop" then
    local b = state.blocks[chunk.index]
    if b and b.type == "tool_use" then
      parts[#parts + 1] = { type = "tool-call", id = b.id, name = b.name, arguments = (b.json ~= "" and b.json or "{}") }
    end
    state.blocks[chunk.index] = nil
  elseif t == "message_delta" then
    if chunk.delta and chunk.delta.stop_reason then state.finish = finish_map[chunk.delta.stop_reason] or "other" end
    if chunk.usage and chunk.usage.output_tokens then state.output_tokens = chunk.usage.output_tokens end
  elseif t == "message_stop" then
    parts[#parts + 1] = { type = "finish", finish_reason = state.finish, usage = util.usage(state.input_tokens, state.output_tokens) }
  elseif t == "error" then
    local e = chunk.error or {}
    parts[#parts + 1] = { type = "error", message = e.message or "stream error", code = e.type or "upstream" }
  end
  return parts
end
