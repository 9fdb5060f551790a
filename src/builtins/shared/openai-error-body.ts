/** The `type` of an OpenAI-style error body. */
export type OpenAiErrorType = 'invalid_request_error' | 'authentication_error' | 'permission_error' | 'not_found_error' | 'rate_limit_error' | 'server_error' | 'api_error';

/** The body OpenAI answers an error with; `homeagent_code` (ours, UPPER_SNAKE) only where it says more than `code`. */
export interface OpenAiErrorBody {
  error: { message: string; type: OpenAiErrorType; param: string | null; code: string | null; homeagent_code?: string };
}

/** The paths answered the way OpenAI answers (the OpenAI-compatible API): every error there has OpenAI's shape. */
export function isOpenAiPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}

/** The OpenAI error type of an HTTP status, as OpenAI's own API and SDKs group them. */
export function openAiErrorType(status: number): OpenAiErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** One of our UPPER_SNAKE error codes as an OpenAI-style snake_case code (`NO_PROVIDER_CONFIGURED` → `no_provider_configured`). */
export function snakeCode(code: string): string {
  return code.toLowerCase().replace(/[^a-z0-9]+/g, '_');
}

/**
 * An OpenAI-style error response: `{"error": {"message", "type", "param", "code"}}` with the
 * status. OpenAI clients (the `openai` package, Open WebUI, Chatbox …) show `message` and branch on
 * the status; our own code, where it names the cause better, rides along as `homeagent_code`.
 */
export function openAiErrorJson(
  status: number,
  e: { message: string; type?: OpenAiErrorType; code: string | null; param?: string | null; homeagentCode?: string },
  headers: Record<string, string> = {},
): Response {
  const body: OpenAiErrorBody = { error: { message: e.message, type: e.type ?? openAiErrorType(status), param: e.param ?? null, code: e.code } };
  if (e.homeagentCode && e.homeagentCode !== e.code) body.error.homeagent_code = e.homeagentCode;
  // Headers go in at construction: the node server behind hono sends a Response's first headers.
  return new Response(JSON.stringify(body), { status, headers: { ...headers, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } });
}
