import { errorToJSON, PayloadTooLargeError, ProtocolError } from '../../spec/index.js';

/**
 * JSON helpers shared by the built-in plugins' HTTP routes: one response shape
 * (`{ok:true, value}` / `{ok:false, error:{code,message,details}}`) and one place that
 * reads untrusted request bodies with a size limit.
 */

const STATUS_BY_CODE: Record<string, number> = {
  VALIDATION: 400,
  PROTOCOL: 400,
  BAD_REQUEST: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  FORBIDDEN: 403,
  UNAVAILABLE: 503,
};

/** HTTP status for an error code (500 when unknown). */
export function statusForCode(code: string): number {
  if (STATUS_BY_CODE[code]) return STATUS_BY_CODE[code];
  if (code.endsWith('NOT_FOUND')) return 404;
  // Plugin and package (.hmap) errors are about what the client sent or asked for.
  if (code.startsWith('PLUGIN_') || code.startsWith('HMAP_') || code.startsWith('MANIFEST_')) return 400;
  return 500;
}

/** `{ok:true, value}` with status 200 (or `status`). */
export function jsonOk(value: unknown, status = 200): Response {
  return new Response(JSON.stringify({ ok: true, value }), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
}

/** `{ok:false, error:{code,message,details}}` with the status that fits the error's code. */
export function jsonError(e: unknown, status?: number): Response {
  const err = errorToJSON(e);
  return new Response(JSON.stringify({ ok: false, error: { code: err.code, message: err.message, details: err.details } }), {
    status: status ?? statusForCode(err.code),
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

/** Reads the raw body, refusing more than `limit` bytes (checked on Content-Length and while reading). */
export async function readRawBody(req: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw new PayloadTooLargeError(limit, 'request body');
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw new PayloadTooLargeError(limit, 'request body');
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

/** Reads and parses a JSON object body (≤ `limit` bytes); malformed JSON → ProtocolError (400). */
export async function readJsonBody(req: Request, limit = 256 * 1024): Promise<Record<string, unknown>> {
  const raw = await readRawBody(req, limit);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(raw));
  } catch (e) {
    throw new ProtocolError(`malformed JSON body: ${(e as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ProtocolError('request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** Wraps a route handler so that any throw becomes a JSON error response. */
export function safeHandler<A extends unknown[]>(fn: (...args: A) => Promise<Response> | Response): (...args: A) => Promise<Response> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (e) {
      return jsonError(e);
    }
  };
}
