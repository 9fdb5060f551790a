-- OpenAI Responses API: POST {base_url}/responses (base_url includes /v1). System messages become
-- `instructions`; tool calls and results are function_call / function_call_output items.
-- Streams typed events: response.output_text.delta, response.reasoning_summary_text.delta,
-- response.output_item.added/done (function_call), response.function_call_arguments.delta,
-- response.completed / response.incomplete / response.failed / error.
-- cfg.options.reasoning_effort sets reasoning = { effort, summary = "auto" }.

function transform_request(req, cfg)
  local opts = cfg.options or {}
  local input, instructions = json.array(), {}
  for _, m in ipairs(req.messages or {}) do
    if m.role == "system" then
      instructions[#instructions + 1] = m.content
    elseif m.role == "tool" then
      input[#input + 1] = { type = "function_call_output", call_id = m.tool_call_id, output = m.content or "" }
    elseif m.role == "assistant" then
      if m.content and m.content ~= "" then input[#input + 1] = { role = "assistant", content = m.content } end
      for _, c in ipairs(m.tool_calls or {}) do
        input[#input + 1] = { type = "function_call", call_id = c.id, name = c.name, arguments = util.args_string(c.arguments) }
      end
    else
      local content = json.array()
      if m.content and m.content ~= "" then content[#content + 1] = { type = "input_text", text = m.content } end
      for _, a in ipairs(m.attachments or {}) do
        if util.is_image(a) then content[#content + 1] = { type = "input_image", image_url = util.data_url(a) } end
      end
      input[#input + 1] = { role = "user", content = content }
    end
  end
  local body = { model = req.model or cfg.model, input = input, stream = req.stream == true, store = false }
  if #instructions > 0 then body.instructions = table.concat(instructions, "\n\n") end
  if req.tools and #req.tools > 0 then
    body.tools = json.array()
    for _, t in ipairs(req.tools) do
      body.tools[#body.tools + 1] = { type = "function", name = t.name, description = t.description, parameters = t.parameters }
    end
  end
  if req.temperature then body.temperature = req.temperature end
  if req.max_tokens then body.max_output_tokens = req.max_tokens end
  if opts.reasoning_effort then body.reasoning = { effort = opts.reasoning_effort, summary = "auto" } end
  return { url = util.join_url(cfg.base_url or "https://api.openai.com/v1", "/responses"), method = "POST", body = body }
end

function headers(cfg)
  return { ["content-type"] = "application/json", ["authorization"] = "Bearer " .. (cfg.api_key or "") }
end

local function usage_of(u)
  if type(u) ~= "table" then return nil end
  return util.usage(u.input_tokens, u.output_tokens)
end

local function finish_of(resp, has_calls)
  if resp.status == "incomplete" then
    local why = resp.incomplete_details and resp.incomplete_details.reason
    return why == "content_filter" and "content-filter" or "length"
  end
  if resp.status == "failed" then return "error" end
  return has_calls and "tool-calls" or "stop"
end

function transform_response(body)
  if body.error and body.status ~= "completed" then error("API error: " .. tostring(body.error.message)) end
  if type(body.output) ~= "table" then error("response has no output") end
  local text, reasoning, calls = {}, {}, json.array()
  for _, item in ipairs(body.output or {}) do
    if item.type == "message" then
      for _, c in ipairs(item.content or {}) do
        if c.type == "output_text" then text[#text + 1] = c.text end
      end
    elseif item.type == "reasoning" then
      for _, s in ipairs(item.summary or {}) do reasoning[#reasoning + 1] = s.text end
      for _, s in ipairs(item.content or {}) do if s.text then reasoning[#reasoning + 1] = s.text end end
    elseif item.type == "function_call" then
      calls[#calls + 1] = { id = item.call_id, name = item.name, arguments = item.arguments }
    end
  end
  return { text = table.concat(text), reasoning = table.concat(reasoning), tool_calls = calls, usage = usage_of(body.usage), finish_reason = finish_of(body, #calls > 0) }
end

function transform_stream_chunk(chunk, state)
  local parts = json.array()
  if type(chunk) ~= "table" then return parts end
  local t = chunk.type
  if t == "response.output_text.delta" then
    parts[#parts + 1] = { type = "text-delta", text = chunk.delta }
  elseif t == "response.reasoning_summary_text.delta" or t == "response.reasoning_text.delta" then
    parts[#parts + 1] = { type = "reasoning-delta", text = chunk.delta }
  elseif t == "response.output_item.added" and chunk.item and chunk.item.type == "function_call" then
    state.calls = state.calls or {}
    state.calls[chunk.item.id] = { call_id = chunk.item.call_id, name = chunk.item.name, arguments = "" }
  elseif t == "response.function_call_arguments.delta" then
    local c = state.calls and state.calls[chunk.item_id]
    if c then c.arguments = c.arguments .. (chunk.delta or "") end
  elseif t == "response.output_item.done" and chunk.item and chunk.item.type == "function_call" then
    local item = chunk.item
    local c = state.calls and state.calls[item.id] or {}
    state.n = (state.n or 0) + 1
    parts[#parts + 1] = { type = "tool-call", id = item.call_id or c.call_id, name = item.name or c.name, arguments = item.arguments or c.arguments or "{}" }
  elseif t == "response.completed" or t == "response.incomplete" or t == "response.failed" then
    local resp = chunk.response or {}
    if t == "response.failed" then
      local e = resp.error or {}
      parts[#parts + 1] = { type = "error", message = e.message or "response failed", code = e.code or "upstream" }
    end
    parts[#parts + 1] = { type = "finish", finish_reason = finish_of(resp, (state.n or 0) > 0), usage = usage_of(resp.usage) }
  elseif t == "error" then
    parts[#parts + 1] = { type = "error", message = chunk.message or "stream error", code = chunk.code or "upstream" }
  end
  return parts
end

function models_request(cfg)
  return { url = util.join_url(cfg.base_url or "https://api.openai.com/v1", "/models"), method = "GET" }
end
transform_models = import_adapter("openai-compatible").transform_models
