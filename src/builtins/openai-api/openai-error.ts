import { HomeAgentError } from '../../sdk/index.js';
import { openAiErrorJson, openAiErrorType, snakeCode, type OpenAiErrorType } from '../shared/index.js';

export type { OpenAiErrorType };

/**
 * An error of the OpenAI-compatible API, answered as OpenAI does:
 * `{"error": {"message", "type", "param", "code"}}` with the HTTP status. OpenAI clients
 * (the `openai` package, Open WebUI, Chatbox …) show `message` and branch on the status.
 * `homeagentCode` is our own code where one caused it (`NO_PROVIDER_CONFIGURED` …), sent along
 * as `homeagent_code`.
 */
export class OpenAiApiError extends HomeAgentError {
  constructor(
    readonly status: number,
    message: string,
    readonly type: OpenAiErrorType,
    readonly apiCode: string | null,
    readonly param: string | null = null,
    readonly homeagentCode?: string,
  ) {
    super('OPENAI_API', message, { details: { status, type, code: apiCode, param } });
  }

  /** A 400 `invalid_request_error` about one parameter. */
  static invalid(message: string, param: string | null, code = 'invalid_value'): OpenAiApiError {
    return new OpenAiApiError(400, message, 'invalid_request_error', code, param);
  }

  /** One of our errors (or a turn's) as OpenAI reports it: snake_case code, ours kept as `homeagent_code`. */
  static of(status: number, message: string, ourCode: string): OpenAiApiError {
    return new OpenAiApiError(status, message, openAiErrorType(status), snakeCode(ourCode), null, ourCode);
  }

  /** The `error` object of the body (also the `data: {"error": …}` event of a stream). */
  body(): { message: string; type: OpenAiErrorType; param: string | null; code: string | null; homeagent_code?: string } {
    return { message: this.message, type: this.type, param: this.param, code: this.apiCode, ...(this.homeagentCode ? { homeagent_code: this.homeagentCode } : {}) };
  }
}

/** The JSON response of an OpenAI-style error body. */
export function openAiErrorResponse(status: number, message: string, type: OpenAiErrorType, code: string | null, param: string | null = null, headers: Record<string, string> = {}, homeagentCode?: string): Response {
  return openAiErrorJson(status, { message, type, code, param, homeagentCode }, headers);
}

/** HTTP status of one of our error codes on this API. */
function statusOf(code: string): number {
  switch (code) {
    case 'VALIDATION':
    case 'VALIDATION_ERROR':
    case 'BAD_JSON':
      return 400;
    case 'NOT_FOUND':
      return 404;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'NO_PROVIDER_CONFIGURED':
    case 'SERVICE_UNAVAILABLE':
      return 503;
    case 'ALL_PROVIDERS_FAILED':
      return 502;
    default:
      return 500;
  }
}

/** Anything thrown by a handler or a turn as an OpenAI-style error (never a stack). */
export function toOpenAiError(e: unknown): OpenAiApiError {
  if (e instanceof OpenAiApiError) return e;
  if (e instanceof HomeAgentError) {
    // A refused input (too long, empty, a bad session id) is a bad value, as OpenAI names it.
    if (e.code === 'VALIDATION' || e.code === 'VALIDATION_ERROR') return new OpenAiApiError(400, e.message, 'invalid_request_error', 'invalid_value', null, e.code);
    return OpenAiApiError.of(statusOf(e.code), e.message, e.code);
  }
  return new OpenAiApiError(500, e instanceof Error ? e.message : String(e), 'server_error', 'internal_error', null, 'INTERNAL');
}

/** Anything thrown by a handler as an OpenAI-style error response (never a stack). */
export function toOpenAiResponse(e: unknown): Response {
  const err = toOpenAiError(e);
  return openAiErrorResponse(err.status, err.message, err.type, err.apiCode, err.param, {}, err.homeagentCode);
}
