import { Hono } from 'hono';
import { errorResponse, jsonError } from './http-json.js';
import { appOriginAllowed, checkApiRequest, hostHeaderAllowed, isApiPath } from './auth.js';
import { mountChatRoutes } from './chat-routes.js';
import { mountSessionRoutes } from './session-routes.js';
import { mountAdminRoutes } from './admin-routes.js';
import { mountMemoryRoutes } from './memory-routes.js';
import { mountControlRoutes } from './control-routes.js';
import { mountConfirmRoutes } from './confirm-routes.js';
import { mountPeopleRoutes } from './people-routes.js';
import { mountTransferRoutes } from './transfer-routes.js';
import { homedir, tmpdir } from 'node:os';
import { redactPaths } from '../../sdk/index.js';
import { isOpenAiPath, openAiErrorJson, snakeCode } from '../shared/index.js';
import { packageRoot, serveStatic } from './static-files.js';
import type { WebuiContext } from './webui-context.js';

/** CORS headers for a chat app's origin the owner listed (`plugin.webui.app_origins`). */
function corsHeaders(origin: string, preflight: boolean): Record<string, string> {
  const h: Record<string, string> = { 'access-control-allow-origin': origin, vary: 'Origin', 'access-control-expose-headers': 'x-homeagent-session, x-homeagent-turn, mcp-session-id' };
  if (preflight) {
    h['access-control-allow-methods'] = 'GET, POST, DELETE, OPTIONS';
    h['access-control-allow-headers'] = 'authorization, content-type, accept, x-homeagent-session, idempotency-key, mcp-protocol-version, mcp-session-id, last-event-id, x-stainless-arch, x-stainless-lang, x-stainless-os, x-stainless-package-version, x-stainless-runtime, x-stainless-runtime-version, x-stainless-retry-count, x-stainless-timeout';
    h['access-control-max-age'] = '600';
  }
  return h;
}

/**
 * Headers on every answer, refusals of the guards included: never sniffed, no referrer, and never
 * framed by another page (clickjacking of the confirm and install dialogs).
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
};

function secured(res: Response): Response {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.headers.set(k, v);
  return res;
}

/**
 * The OpenAI-style code of each refusal of the API guard on `/v1/` (a wrong key is
 * `invalid_api_key` there, as OpenAI names it); our own code rides along as `homeagent_code`.
 */
const REFUSAL_OPENAI_CODE: Record<string, string> = { UNAUTHORIZED: 'invalid_api_key' };

/**
 * An error answered by the server itself (a guard, the router) on `path`: on the OpenAI-compatible
 * API (`/v1/…`) in OpenAI's shape, `{error:{message, type, param, code}}`, which its clients read;
 * everywhere else as every webui endpoint answers, `{ok:false, error:{code, message}}`.
 */
function errorFor(path: string, status: number, code: string, message: string): Response {
  if (isOpenAiPath(path)) return openAiErrorJson(status, { message, code: REFUSAL_OPENAI_CODE[code] ?? snakeCode(code), homeagentCode: code });
  return jsonError(status, code, message);
}

/** What a thrown error became, as the OpenAI-compatible API answers it. */
async function openAiShaped(res: Response): Promise<Response> {
  const body = (await res.json()) as { error?: { code?: string; message?: string } };
  return openAiErrorJson(res.status, { message: body.error?.message ?? 'the request failed', code: snakeCode(body.error?.code ?? 'INTERNAL'), homeagentCode: body.error?.code });
}

/**
 * The webui HTTP app (W-1…W-5, P-7): auth and DNS-rebinding guard, the routes plugins registered
 * (first, so cfgmgr/pluginmgr/files override the fallbacks here), the webui's own REST + SSE, the
 * built SPA, and JSON 404/405 for unknown API paths.
 */
export function createWebuiApp(ctx: WebuiContext): Hono {
  const app = new Hono();

  app.onError(async (err, c) => (isOpenAiPath(c.req.path) ? openAiShaped(errorResponse(err)) : errorResponse(err)));

  app.use('*', async (c, next) => {
    const path = c.req.path;
    if (ctx.loopback && !hostHeaderAllowed(c.req.raw)) return secured(errorFor(path, 403, 'FORBIDDEN', 'this server only answers requests addressed to localhost'));
    const appOrigin = appOriginAllowed(c.req.raw, path, ctx.appOrigins?.() ?? []) ? c.req.header('origin') : undefined;
    // A listed chat app's CORS preflight; every other preflight stays unanswered (refused below).
    if (appOrigin && c.req.method === 'OPTIONS') return new Response(null, { status: 204, headers: corsHeaders(appOrigin, true) });
    if (isApiPath(path)) {
      const refusal = checkApiRequest(c.req.raw, path, ctx.token(), ctx.appOrigins?.() ?? []);
      // On `/v1/` in OpenAI's shape: its clients report a missing token the way they report a bad key.
      if (refusal) return secured(errorFor(path, refusal.status, refusal.code, refusal.message));
    }
    await next();
    if (c.res.status >= 400) c.res = await withoutPaths(c.res, pathRoots(ctx.sdk.homeDir));
    if (appOrigin) for (const [k, v] of Object.entries(corsHeaders(appOrigin, false))) c.header(k, v);
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.header(k, v);
  });

  // Plugin routes: under any API root (`/api/…`, `/v1/…`, `/mcp`), all behind the guard above.
  app.use('*', async (c, next) => {
    if (!isApiPath(c.req.path)) return next();
    const hit = ctx.routes.match(c.req.method, c.req.path);
    if (hit && 'route' in hit) {
      try {
        return await hit.route.handler(c.req.raw, hit.params);
      } catch (e) {
        ctx.sdk.log.error(`route ${hit.route.method} ${hit.route.path} of ${hit.route.plugin ?? 'a plugin'} failed: ${(e as Error).message}`);
        return isOpenAiPath(c.req.path) ? openAiShaped(errorResponse(e)) : errorResponse(e);
      }
    }
    await next();
    if (hit && 'pathOnly' in hit && c.res.headers.get('x-webui-unmatched')) {
      c.res = errorFor(c.req.path, 405, 'METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on ${c.req.path}`);
    }
  });

  mountChatRoutes(app, ctx);
  mountSessionRoutes(app, ctx);
  mountAdminRoutes(app, ctx);
  mountMemoryRoutes(app, ctx);
  mountControlRoutes(app, ctx);
  mountConfirmRoutes(app, ctx);
  mountPeopleRoutes(app, ctx);
  mountTransferRoutes(app, ctx);

  app.all('*', (c, next) => {
    if (!isApiPath(c.req.path)) return next();
    const res = isOpenAiPath(c.req.path)
      ? openAiErrorJson(404, { message: `Invalid URL (${c.req.method} ${c.req.path}): this daemon answers GET /v1/models and POST /v1/chat/completions`, code: 'unknown_url' })
      : jsonError(404, 'NOT_FOUND', `no API route ${c.req.method} ${c.req.path}`);
    res.headers.set('x-webui-unmatched', '1');
    return res;
  });
  app.get('*', (c) => serveStatic(ctx.webRoot, c.req.path, ctx.dataDir ? [ctx.dataDir] : []));
  app.all('*', (c) => jsonError(404, 'NOT_FOUND', `no route ${c.req.method} ${c.req.path}`));
  return app;
}

/** Where this install lives, as labels for error messages (SPEC §9: no absolute paths over HTTP). */
function pathRoots(home: string): { path: string; label: string }[] {
  return [
    { path: home, label: '<data>' },
    { path: packageRoot(), label: '<app>' },
    { path: tmpdir(), label: '<tmp>' },
    { path: homedir(), label: '~' },
  ];
}

/** An error response with absolute paths removed from its (small, textual) body. */
async function withoutPaths(res: Response, roots: { path: string; label: string }[]): Promise<Response> {
  const type = res.headers.get('content-type') ?? '';
  const size = Number(res.headers.get('content-length') ?? 0);
  if (!/json|text/.test(type) || size > 256 * 1024 || !res.body) return res;
  const text = await res.text();
  const clean = redactPaths(text, roots);
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(clean, { status: res.status, statusText: res.statusText, headers });
}
