-- DeepSeek (api.deepseek.com): OpenAI-style chat completions where deepseek-reasoner streams its
-- chain of thought as `reasoning_content` deltas (mapped to reasoning-delta parts). Reasoning of
-- earlier turns is never sent back (the API rejects it); temperature is dropped for the reasoner.

local base = import_adapter("openai-compatible")

function transform_request(req, cfg)
  local body = base.openai_chat.build_body(req, cfg)
  if tostring(body.model):find("reasoner", 1, true) then body.temperature = nil end
  return { url = util.join_url(cfg.base_url or "https://api.deepseek.com", "/chat/completions"), method = "POST", body = body }
end

headers = base.headers
transform_response = base.transform_response
transform_stream_chunk = base.transform_stream_chunk
transform_stream_end = base.transform_stream_end

function models_request(cfg)
  return { url = util.join_url(cfg.base_url or "https://api.deepseek.com", "/models"), method = "GET" }
end
transform_models = base.transform_models
