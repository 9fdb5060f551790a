-- OpenAI Chat Completions (api.openai.com). Builds on openai-compatible.lua; newer models want
-- max_completion_tokens instead of max_tokens.
-- cfg.base_url includes /v1 (OPENAI_BASE_URL convention), default https://api.openai.com/v1.

local base = import_adapter("openai-compatible")

function transform_request(req, cfg)
  local c = setmetatable({ options = setmetatable({ max_tokens_field = "max_completion_tokens" }, { __index = cfg.options or {} }) }, { __index = cfg })
  local body = base.openai_chat.build_body(req, c)
  return { url = util.join_url(cfg.base_url or "https://api.openai.com/v1", "/chat/completions"), method = "POST", body = body }
end

headers = base.headers
transform_response = base.transform_response
transform_stream_chunk = base.transform_stream_chunk
transform_stream_end = base.transform_stream_end

function models_request(cfg)
  return { url = util.join_url(cfg.base_url or "https://api.openai.com/v1", "/models"), method = "GET" }
end
transform_models = base.transform_models
