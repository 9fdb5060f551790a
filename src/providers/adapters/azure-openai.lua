-- Azure OpenAI chat completions:
--   POST {base_url}/openai/deployments/{deployment}/chat/completions?api-version={api_version}
-- with an `api-key` header. cfg.options.deployment defaults to cfg.model; cfg.api_version (or
-- cfg.options.api_version) defaults to 2024-10-21.

local base = import_adapter("openai-compatible")

function transform_request(req, cfg)
  local opts = cfg.options or {}
  local deployment = opts.deployment or cfg.model
  local version = cfg.api_version or opts.api_version or "2024-10-21"
  local body = base.openai_chat.build_body(req, cfg)
  body.model = nil
  local url = util.join_url(cfg.base_url, "/openai/deployments/" .. deployment .. "/chat/completions") .. "?api-version=" .. version
  return { url = url, method = "POST", body = body }
end

function headers(cfg)
  return { ["content-type"] = "application/json", ["api-key"] = cfg.api_key }
end

transform_response = base.transform_response
transform_stream_chunk = base.transform_stream_chunk
transform_stream_end = base.transform_stream_end
