import { HomeAgentError, ValidationError } from '../../sdk/index.js';
import { readRawBody } from '../shared/index.js';
import { KNOWLEDGE_FILE_HTTP_STATUS, TRANSFER_HTTP_STATUS, type KnowledgeFileErrorCode, type TransferErrorCode } from '../../spec/index.js';

/** The JSON error body of every webui endpoint: `{ok:false, error:{code, message}}`. */
export interface ErrorBody {
  ok: false;
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** HTTP status for a HomeAgent error code (anything unknown is a 500). */
export function statusOf(code: string): number {
  switch (code) {
    case 'VALIDATION':
    case 'VALIDATION_ERROR':
    case 'BAD_JSON':
    case 'BAD_REQUEST':
      return 400;
    case 'UNAUTHORIZED':
      return 401;
    case 'FORBIDDEN':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'CONFLICT':
    case 'PROVIDER_NO_KEY':
    case 'PEOPLE_ID_FROM_CONFIG':
      return 409;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'PROVIDER_AUTH':
    case 'PROVIDER_FAILED':
      // The LLM API behind a provider route (model list, test) failed: a bad gateway, not us.
      return 502;
    case 'SERVICE_UNAVAILABLE':
    case 'NOT_AVAILABLE':
    case 'NO_PROVIDER_CONFIGURED':
      return 503;
    default:
      return TRANSFER_HTTP_STATUS[code as TransferErrorCode] ?? KNOWLEDGE_FILE_HTTP_STATUS[code as KnowledgeFileErrorCode] ?? 500;
  }
}

/** A JSON response with `no-store` caching. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } });
}

/** A JSON error response. */
export function jsonError(status: number, code: string, message: string, details?: Record<string, unknown>): Response {
  const body: ErrorBody = { ok: false, error: { code, message, ...(details ? { details } : {}) } };
  return json(body, status);
}

/** Maps anything thrown to a JSON error response; never leaks a stack. */
export function errorResponse(e: unknown): Response {
  if (e instanceof HomeAgentError || (typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' && e instanceof Error)) {
    const err = e as HomeAgentError;
    const details = err.details && Object.keys(err.details).length ? err.details : undefined;
    return jsonError(statusOf(err.code), err.code, err.message, details);
  }
  return jsonError(500, 'INTERNAL', e instanceof Error ? e.message : String(e));
}

/** Thrown when a service the route needs is not running (e.g. no memory subsystem). */
export class ServiceUnavailableError extends HomeAgentError {
  constructor(service: string, what: string) {
    super('SERVICE_UNAVAILABLE', `${what} is not available: the "${service}" service is not running in this daemon`, { details: { service } });
  }
}

/**
 * Reads a request body as JSON within `limit` bytes. Oversized → PayloadTooLargeError (413),
 * malformed → ValidationError with code BAD_JSON (400). An empty body reads as `{}`.
 */
export async function readJson(req: Request, limit: number): Promise<unknown> {
  const text = await readText(req, limit);
  if (!text.trim()) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new BadJsonError((e as Error).message);
  }
}

/** Reads a body as bytes, refusing anything over `limit` (the shared reader of the built-ins). */
export async function readBytes(req: Request, limit: number): Promise<Uint8Array> {
  return readRawBody(req, limit);
}

async function readText(req: Request, limit: number): Promise<string> {
  return new TextDecoder().decode(await readBytes(req, limit));
}

/** Malformed JSON in a request body. */
export class BadJsonError extends ValidationError {
  constructor(reason: string) {
    super(`request body is not valid JSON: ${reason}`);
    Object.defineProperty(this, 'code', { value: 'BAD_JSON' });
  }
}
