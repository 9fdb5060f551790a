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

function fail(status: number, code: string, error: string, details: Record<string, unknown> = {}): Response {
  return reply(status, false, { error, code, details });
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
 * Protocol errors (too large 413, malformed JSON / envelope / unknown op 400) and business
 * errors (200, `ok:false`) all answer with the same envelope `{ok:false, value:{error, code}}`.
 */
export function createApiRoutes(m: MemoryManager): HttpRoute[] {
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
          return fail(400, 'PROTOCOL', `could not read the request body: ${(e as Error).message}`);
        }
        if (text === undefined) return fail(413, 'PAYLOAD_TOO_LARGE', `request body is larger than ${BODY_LIMIT} bytes`, { limitBytes: BODY_LIMIT });
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch (e) {
          return fail(400, 'PROTOCOL', `malformed JSON: ${(e as Error).message}`);
        }
        const env = envelopeSchema.safeParse(body);
        if (!env.success) {
          const issue = env.error.issues[0];
          return fail(400, 'PROTOCOL', `bad request envelope: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'} (expected {op, sessionId?, args?})`);
        }
        if (!Object.hasOwn(API_OPS, env.data.op)) return fail(400, 'UNKNOWN_OP', `unknown op: ${env.data.op}`, { ops: Object.keys(API_OPS) });
        try {
          const value = await runOp(m, { op: env.data.op, sessionId: env.data.sessionId, args: env.data.args ?? {} });
          return reply(200, true, value ?? null);
        } catch (e) {
          const j = errorToJSON(e);
          if (j.code === 'INTERNAL') m.logBoot('error', `op ${env.data.op} failed`, { error: j, stack: (e as Error)?.stack });
          // Business errors answer 200 (M-11): absolute paths leave here, not in the webui's net.
          const roots = [{ path: m.sdk.homeDir, label: '<data>' }, { path: m.libraryRoot(), label: '<library>' }];
          return reply(200, false, { error: redactPaths(j.message, roots), code: j.code, details: JSON.parse(redactPaths(JSON.stringify(j.details ?? {}), roots)) as Record<string, unknown> });
        }
      },
    },
  ];
}
