-- Google Gemini generateContent / streamGenerateContent (alt=sse) with an x-goog-api-key header.
-- System messages → systemInstruction; assistant → role "model"; tool results → functionResponse
-- parts (the tool name is looked up from the call id); images → inlineData. Parts flagged
-- `thought = true` are reasoning. Gemini gives no tool-call ids: the host assigns them.
-- cfg.options.include_thoughts = true asks thinking models for thought summaries.

local UNSUPPORTED = { ["$schema"] = true, additionalProperties = true, ["$defs"] = true, definitions = true, ["$ref"] = true, examples = true }
local function clean_schema(s)
  if type(s) ~= "table" then return s end
  local out = json.is_array(s) and json.array() or json.object()
  for k, v in pairs(s) do
    if not UNSUPPORTED[k] then out[k] = clean_schema(v) end
  end
  return out
end

local function push_part(out, role, part)
  local last = out[#out]
  if last and last.role == role then
    last.parts[#last.parts + 1] = part
  else
    out[#out + 1] = { role = role, parts = json.array({ part }) }
  end
end

function transform_request(req, cfg)
  local opts = cfg.options or {}
  local contents, system, names = json.array(), {}, {}
  for _, m in ipairs(req.messages or {}) do
    if m.role == "system" then
      system[#system + 1] = { text = m.content }
    elseif m.role == "assistant" then
      if m.content and m.content ~= "" then push_part(contents, "model", { text = m.content }) end
      for _, c in ipairs(m.tool_calls or {}) do
        if c.id then names[c.id] = c.name end
        push_part(contents, "model", { functionCall = { name = c.name, args = util.args_table(c.arguments) } })
      end
    elseif m.role == "tool" then
      local name = m.name or names[m.tool_call_id] or "tool"
      push_part(contents, "user", { functionResponse = { name = name, response = { content = m.content or "" } } })
    else
      for _, a in ipairs(m.attachments or {}) do
        push_part(contents, "user", { inlineData = { mimeType = a.mime_type, data = a.data } })
      end
      if m.content and m.content ~= "" then push_part(contents, "user", { text = m.content }) end
    end
  end
  local body = { contents = contents }
  if #system > 0 then body.systemInstruction = { parts = json.array(system) } end
  if req.tools and #req.tools > 0 then
    local decls = json.array()
    for _, t in ipairs(req.tools) do
      decls[#decls + 1] = { name = t.name, description = t.description, parameters = clean_schema(t.parameters) }
    end
    body.tools = json.array({ { functionDeclarations = decls } })
  end
  local gen = {}
  if req.temperature then gen.temperature = req.temperature end
  if req.max_tokens then gen.maxOutputTokens = req.max_tokens end
  if opts.include_thoughts == true or opts.include_thoughts == "true" then gen.thinkingConfig = { includeThoughts = true } end
  if next(gen) then body.generationConfig = gen end
  local model = req.model or cfg.model
  local action = req.stream and ":streamGenerateContent?alt=sse" or ":generateContent"
  return { url = util.join_url(cfg.base_url or "https://generativelanguage.googleapis.com", "/v1beta/models/" .. model .. action), method = "POST", body = body }
end

function headers(cfg)
  return { ["content-type"] = "application/json", ["x-goog-api-key"] = cfg.api_key }
end

-- The model list: GET {base_url}/v1beta/models → { models = { { name = "models/gemini-…" }, ... } }.
function models_request(cfg)
  return { url = util.join_url(cfg.base_url or "https://generativelanguage.googleapis.com", "/v1beta/models?pageSize=1000"), method = "GET" }
end

function transform_models(body)
  local out = json.array()
  for _, m in ipairs((body and body.models) or {}) do
    if type(m) == "table" and type(m.name) == "string" then out[#out + 1] = (m.name:gsub("^models/", "")) end
  end
  return out
end

local finish_map = { STOP = "stop", MAX_TOKENS = "length", SAFETY = "content-filter", RECITATION = "content-filter", BLOCKLIST = "content-filter", PROHIBITED_CONTENT = "content-filter", SPII = "content-filter" }

local function usage_of(u)
  if type(u) ~= "table" then return nil end
  return util.usage(u.promptTokenCount, (u.candidatesTokenCount or 0) + (u.thoughtsTokenCount or 0))
end

-- Appends the parts of one GenerateContentResponse to `out` (a list of stream parts).
local function each_part(body, on_text, on_thought, on_call)
  local cand = body.candidates and body.candidates[1]
  if not cand then return nil end
  for _, p in ipairs((cand.content and cand.content.parts) or {}) do
    if p.functionCall then on_call(p.functionCall)
    elseif type(p.text) == "string" then
      if p.thought then on_thought(p.text) else on_text(p.text) end
    end
  end
  return cand.finishReason
end

function transform_response(body)
  if body.error then error("API error: " .. tostring(body.error.message)) end
  if type(body.candidates) ~= "table" and type(body.promptFeedback) ~= "table" then error("response has no candidates") end
  local text, reasoning, calls = {}, {}, json.array()
  local reason = each_part(body,
    function(t) text[#text + 1] = t end,
    function(t) reasoning[#reasoning + 1] = t end,
    function(fc) calls[#calls + 1] = { id = fc.id, name = fc.name, arguments = util.args_string(fc.args) } end)
  if not body.candidates and body.promptFeedback then reason = "SAFETY" end
  local finish = finish_map[reason] or (reason and "other" or "stop")
  if #calls > 0 and finish == "stop" then finish = "tool-calls" end
  return { text = table.concat(text), reasoning = table.concat(reasoning), tool_calls = calls, usage = usage_of(body.usageMetadata), finish_reason = finish }
end

function transform_stream_chunk(chunk, state)
  local parts = json.array()
  if type(chunk) ~= "table" then return parts end
  if chunk.error then
    parts[#parts + 1] = { type = "error", message = chunk.error.message or "stream error", code = chunk.error.status or "upstream" }
    return parts
  end
  local reason = each_part(chunk,
    function(t) parts[#parts + 1] = { type = "text-delta", text = t } end,
    function(t) parts[#parts + 1] = { type = "reasoning-delta", text = t } end,
    function(fc)
      state.calls = (state.calls or 0) + 1
      parts[#parts + 1] = { type = "tool-call", id = fc.id, name = fc.name, arguments = util.args_string(fc.args) }
    end)
  -- A prompt blocked before any candidate: the answer is that it was filtered (an empty answer
  -- with a content-filter finish, as the non-streamed reader says), not a body nobody understood.
  if not reason and type(chunk.candidates) ~= "table" and type(chunk.promptFeedback) == "table" then reason = chunk.promptFeedback.blockReason and "SAFETY" or nil end
  if chunk.usageMetadata then state.usage = usage_of(chunk.usageMetadata) end
  if reason then
    local finish = finish_map[reason] or "other"
    if (state.calls or 0) > 0 and finish == "stop" then finish = "tool-calls" end
    parts[#parts + 1] = { type = "finish", finish_reason = finish, usage = state.usage }
  end
  return parts
end
