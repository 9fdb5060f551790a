import { timingSafeEqual } from 'node:crypto';

/** True for loopback addresses and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}

/**
 * Paths that carry the API and therefore need the token and same-origin requests: the REST API
 * (`/api/…`, where plugins' routes live too), the OpenAI-compatible API (`/v1/…`) and MCP
 * (`/mcp`). Everything else is the static SPA, which holds no secret. One definition, in the
 * contracts (`API_PATH_ROOTS`), shared with the route table that admits plugin routes.
 */
export { isApiPath } from '../../spec/index.js';

/**
 * Routes a browser reaches with an API that cannot send headers (EventSource): only these accept
 * the token as `?token=`. Everywhere else a token in the query string is ignored, so it never
 * ends up in browser history or logs of ordinary requests.
 */
export const QUERY_TOKEN_ROUTES: ReadonlySet<string> = new Set(['/api/v1/events']);

/** The token of an `Authorization: Bearer …` header value, if it is one. */
export function bearerToken(header: string | null | undefined): string | undefined {
  const m = header ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
  return m ? m[1].trim() : undefined;
}

/** The token a request carries: `Authorization: Bearer …`, or `?token=` where allowed. */
export function requestToken(req: Request, allowQuery = false): string | undefined {
  const bearer = bearerToken(req.headers.get('authorization'));
  if (bearer) return bearer;
  if (!allowQuery) return undefined;
  const q = new URL(req.url).searchParams.get('token');
  return q ?? undefined;
}

/** Constant-time comparison of a presented token with the configured one. */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (!presented || !expected) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * DNS-rebinding guard for a loopback-bound server: the Host header must name a loopback host.
 * (A page on evil.example that resolves to 127.0.0.1 sends `Host: evil.example`.)
 */
export function hostHeaderAllowed(req: Request): boolean {
  const host = req.headers.get('host');
  if (!host) return true;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return isLoopbackHost(name ?? '');
}

/** Why a request was refused (status, coded error). */
export interface Refusal {
  status: 401 | 403 | 415;
  code: 'UNAUTHORIZED' | 'CROSS_SITE_REQUEST' | 'UNSUPPORTED_MEDIA_TYPE';
  message: string;
}

/** Body types a cross-site HTML form or `fetch(…, {mode:'no-cors'})` can send without a CORS preflight. */
const SIMPLE_TYPES = new Set(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']);

/**
 * The origin the request was addressed to, from its Host header (`http://127.0.0.1:8765`);
 * undefined without a Host.
 */
function ownOrigin(req: Request): string | undefined {
  const host = req.headers.get('host');
  if (!host) return undefined;
  try {
    return new URL(`${new URL(req.url).protocol}//${host}`).origin;
  } catch {
    return undefined;
  }
}

/**
 * A request from a page of another origin. Browsers send `Sec-Fetch-Site` (same-origin, same-site,
 * cross-site, none) and `Origin` on every cross-origin and every state-changing request. Another
 * port on 127.0.0.1 is another origin but the *same site* (ports do not count for sites), so only
 * `same-origin` and `none` (typed URL, bookmark) pass; `Origin` must equal this server's origin.
 */
export function crossSiteReason(req: Request): string | undefined {
  const site = req.headers.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site: ${site}`;
  const origin = req.headers.get('origin');
  if (origin === null) return undefined;
  const own = ownOrigin(req);
  let theirs: string | undefined;
  try {
    theirs = origin === 'null' ? undefined : new URL(origin).origin;
  } catch {
    theirs = undefined;
  }
  return theirs !== undefined && own !== undefined && theirs === own ? undefined : `Origin: ${origin.slice(0, 200)}`;
}

/**
 * A request from a chat app whose origin the owner listed (`plugin.webui.app_origins`), on the
 * paths such apps use: the OpenAI-compatible API and MCP — never the WebUI's own `/api/`.
 */
export function appOriginAllowed(req: Request, path: string, origins: readonly string[]): boolean {
  const origin = req.headers.get('origin');
  if (!origin || origin === 'null' || !origins.includes(origin)) return false;
  return path.startsWith('/v1/') || path === '/mcp' || path.startsWith('/mcp/');
}

/**
 * The checks every API request passes before any route (core or plugin) sees it (SPEC §9):
 * 1. not cross-site (403 CROSS_SITE_REQUEST) — unless it comes from a chat app's origin the owner
 *    listed, on `/v1/` or `/mcp` only ({@link appOriginAllowed}),
 * 2. the per-install token as a Bearer header — or `?token=` on the event stream only (401),
 * 3. a state-changing request's body is not of a type a foreign page can send without a
 *    preflight (415): JSON APIs take `application/json`, uploads a binary type.
 * Returns the refusal, or undefined when the request may proceed.
 */
export function checkApiRequest(req: Request, path: string, token: string, appOrigins: readonly string[] = []): Refusal | undefined {
  const cross = appOriginAllowed(req, path, appOrigins) ? undefined : crossSiteReason(req);
  if (cross) {
    // A chat app in a browser (Open WebUI, LobeChat …) on the paths it may use: say how to allow it.
    const app = path.startsWith('/v1/') || path === '/mcp' || path.startsWith('/mcp/');
    const origin = req.headers.get('origin');
    // The list already kept is not echoed: this answer goes to a caller that has shown no token.
    const allow = app && origin && origin !== 'null' ? `; if ${origin.slice(0, 200)} is a chat app of yours, let it use /v1 and /mcp: list its origin in plugin.webui.app_origins (Settings, or: waiter config set plugin.webui.app_origins '${JSON.stringify([origin.slice(0, 200)])}', with any origins listed already)` : '';
    return { status: 403, code: 'CROSS_SITE_REQUEST', message: `cross-site requests are refused (${cross}); use the WebUI served by this daemon, or a client with the token${allow}` };
  }
  if (!tokenMatches(requestToken(req, req.method === 'GET' && QUERY_TOKEN_ROUTES.has(path)), token)) {
    return { status: 401, code: 'UNAUTHORIZED', message: 'a valid token is required: Authorization: Bearer <token> (run `waiter webui` for a sign-in link, or read <data folder>/auth-token)' };
  }
  if (!['GET', 'HEAD', 'OPTIONS'].includes(req.method)) {
    const type = (req.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (SIMPLE_TYPES.has(type)) return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: `${type} bodies are not accepted: send the body as JSON with the header Content-Type: application/json` };
  }
  return undefined;
}
