import { homedir, tmpdir } from 'node:os';
import { z } from 'zod';
import { redactPaths, type HttpRoute } from '../../sdk/index.js';
import { errorToJSON, PayloadTooLargeError } from '../../spec/index.js';
import { readRawBody } from '../shared/index.js';
import { API_OPS, runOp } from './api-ops.js';
import type { MemoryManager } from './memory-manager.js';

/** The API path (M-11). */
export const API_PATH = '/api/memory-manager';
/** Request body limit: 256 KiB. */
export const BODY_LIMIT = 256 * 1024;

const envelopeSchema = z.object({
  op: z.string().min(1).max(100),
  sessionId: z.string().min(1).max(300).optional(),
  args: z.record(z.string(), z.unknown()).optional(),
});

function reply(status: number, ok: boolean, value: unknown): Response {
  return new Response(JSON.stringify({ ok, value }), { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } });
}

/**
 * The HTTP status of an error code (decision 0280): the envelope stays M-11's `{ok:false,
 * value:{error, code, details}}`, and the status says what kind of failure it is — a client
 * error 4xx, a switched-off or missing service 503, a failing LLM 502, anything else 500.
 */
export function statusOfCode(code: string): number {
  switch (code) {
    case 'VALIDATION':
    case 'PROTOCOL':
    case 'UNKNOWN_OP':
      return 400;
    case 'FORBIDDEN':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'CONFLICT':
      return 409;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'MM_DISABLED':
    case 'NO_PROVIDER_CONFIGURED':
    case 'UNAVAILABLE':
    case 'SERVICE_UNAVAILABLE':
    case 'MEMORY_UNAVAILABLE':
    case 'KNOWLEDGE_UNAVAILABLE':
      return 503;
    case 'MM_LLM_BAD_JSON':
    case 'ALL_PROVIDERS_FAILED':
      return 502;
    default:
      return code.startsWith('PROVIDER_') || code.startsWith('LUA_') ? 502 : 500;
  }
}

type Roots = { path: string; label: string }[];

/** Every string in an error's details with paths redacted (not the JSON text: escapes there hide a path's start). */
function redactDeep(v: unknown, roots: Roots, depth = 0): unknown {
  if (typeof v === 'string') return redactPaths(v, roots);
  if (depth > 20 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => redactDeep(x, roots, depth + 1));
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, redactDeep(x, roots, depth + 1)]));
}

/** An error answer: its status from the code, no absolute path in the message or details (SPEC §9). */
function fail(code: string, error: string, details: Record<string, unknown>, roots: Roots): Response {
  return reply(statusOfCode(code), false, { error: redactPaths(error, roots), code, details: redactDeep(details, roots) as Record<string, unknown> });
}

/** Reads the body up to `limit` bytes; undefined when it is larger. */
async function readLimited(req: Request, limit: number): Promise<string | undefined> {
  try {
    return Buffer.from(await readRawBody(req, limit)).toString('utf8');
  } catch (e) {
    if (e instanceof PayloadTooLargeError) return undefined;
    throw e;
  }
}

/**
 * The HTTP routes of M-11: `GET` probe and `POST {op, sessionId?, args?}` → `{ok, value}`.
 * Every error answers with the same envelope `{ok:false, value:{error, code, details}}` and a
 * 4xx/5xx status by its code (decision 0280): too large 413, malformed JSON / envelope / unknown op
 * 400, an op's own errors by what they are. No absolute path leaves here — the route is also
 * called in process (MCP, the about page), where the webui's own redaction of error bodies does
 * not apply.
 */
export function createApiRoutes(m: MemoryManager): HttpRoute[] {
  // Where this install lives, as labels (the webui's error net uses the same, plus the app's folder).
  const roots = (): Roots => [
    { path: m.sdk.homeDir, label: '<data>' },
    { path: m.libraryRoot(), label: '<library>' },
    { path: tmpdir(), label: '<tmp>' },
    { path: homedir(), label: '~' },
  ];
  return [
    {
      method: 'GET',
      path: API_PATH,
      handler: () => {
        // M-11's probe answers `{ok:true, service, enabled}` at the top level; `value` keeps the
        // same fields for clients written against the envelope.
        const probe = { ok: true, service: 'memory-manager', enabled: m.cfg().enabled };
        return new Response(JSON.stringify({ ...probe, value: probe }), { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } });
      },
    },
    {
      method: 'POST',
      path: API_PATH,
      handler: async (req) => {
        let text: string | undefined;
        try {
          text = await readLimited(req, BODY_LIMIT);
        } catch (e) {
          return fail('PROTOCOL', `could not read the request body: ${(e as Error).message}`, {}, roots());
        }
        if (text === undefined) return fail('PAYLOAD_TOO_LARGE', `request body is larger than ${BODY_LIMIT} bytes`, { limitBytes: BODY_LIMIT }, roots());
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch (e) {
          return fail('PROTOCOL', `malformed JSON: ${(e as Error).message}`, {}, roots());
        }
        const env = envelopeSchema.safeParse(body);
        if (!env.success) {
          const issue = env.error.issues[0];
          return fail('PROTOCOL', `bad request envelope: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'} (expected {op, sessionId?, args?})`, {}, roots());
        }
        if (!Object.hasOwn(API_OPS, env.data.op)) return fail('UNKNOWN_OP', `unknown op: ${env.data.op}`, { ops: Object.keys(API_OPS) }, roots());
        try {
          const value = await runOp(m, { op: env.data.op, sessionId: env.data.sessionId, args: env.data.args ?? {} });
          return reply(200, true, value ?? null);
        } catch (e) {
          const j = errorToJSON(e);
          if (j.code === 'INTERNAL') m.logBoot('error', `op ${env.data.op} failed`, { error: j, stack: (e as Error)?.stack });
          return fail(j.code, j.message, j.details ?? {}, roots());
        }
      },
    },
  ];
}
