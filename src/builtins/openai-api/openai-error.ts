import { HomeAgentError } from '../../sdk/index.js';

/** The `type` of an OpenAI-style error body. */
export type OpenAiErrorType = 'invalid_request_error' | 'authentication_error' | 'permission_error' | 'not_found_error' | 'server_error';

/**
 * An error of the OpenAI-compatible API, answered as OpenAI does:
 * `{"error": {"message", "type", "param", "code"}}` with the HTTP status. OpenAI clients
 * (the `openai` package, Open WebUI, Chatbox …) show `message` and branch on the status.
 */
export class OpenAiApiError extends HomeAgentError {
  constructor(
    readonly status: number,
    message: string,
    readonly type: OpenAiErrorType,
    readonly apiCode: string | null,
    readonly param: string | null = null,
  ) {
    super('OPENAI_API', message, { details: { status, type, code: apiCode, param } });
  }

  /** A 400 `invalid_request_error` about one parameter. */
  static invalid(message: string, param: string | null, code = 'invalid_value'): OpenAiApiError {
    return new OpenAiApiError(400, message, 'invalid_request_error', code, param);
  }
}

/** The JSON response of an OpenAI-style error body. */
export function openAiErrorResponse(status: number, message: string, type: OpenAiErrorType, code: string | null, param: string | null = null, headers: Record<string, string> = {}): Response {
  // Headers go in at construction: the node server behind hono sends a Response's first headers.
  return new Response(JSON.stringify({ error: { message, type, param, code } }), { status, headers: { ...headers, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } });
}

/** Anything thrown by a handler or a turn as an OpenAI-style error (never a stack). */
export function toOpenAiError(e: unknown): OpenAiApiError {
  if (e instanceof OpenAiApiError) return e;
  if (e instanceof HomeAgentError) {
    const status = e.code === 'PAYLOAD_TOO_LARGE' ? 413 : e.code === 'VALIDATION' || e.code === 'VALIDATION_ERROR' ? 400 : e.code === 'NO_PROVIDER_CONFIGURED' ? 503 : 500;
    return new OpenAiApiError(status, e.message, status < 500 ? 'invalid_request_error' : 'server_error', e.code);
  }
  return new OpenAiApiError(500, e instanceof Error ? e.message : String(e), 'server_error', 'INTERNAL');
}

/** Anything thrown by a handler as an OpenAI-style error response (never a stack). */
export function toOpenAiResponse(e: unknown): Response {
  const err = toOpenAiError(e);
  return openAiErrorResponse(err.status, err.message, err.type, err.apiCode, err.param);
}
