import type { HttpRoute } from '../../spec/index.js';

/** Matches a hono-style path (`/a/:id/b`) against a concrete path; returns the params. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const a = pattern.split('/');
  const b = path.split('/');
  if (a.length !== b.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i].startsWith(':')) params[a[i].slice(1)] = decodeURIComponent(b[i]);
    else if (a[i] !== b[i]) return undefined;
  }
  return params;
}

export interface RouteReply {
  status: number;
  json: Record<string, unknown> & { ok: boolean; value?: unknown; error?: { code: string; message: string; details?: Record<string, unknown> } };
}

/**
 * Calls the first route that matches, the way the webui server mounts them (literal segments
 * win over `:params` because the route table is searched for an exact match first).
 */
export async function callRoute(routes: readonly HttpRoute[], method: string, path: string, body?: BodyInit | null, headers?: Record<string, string>): Promise<RouteReply> {
  const [pathname, query] = path.split('?');
  const candidates = routes.filter((r) => r.method === method && matchPath(r.path, pathname));
  const exact = candidates.find((r) => r.path === pathname) ?? candidates[0];
  if (!exact) return { status: 404, json: { ok: false, error: { code: 'NOT_FOUND', message: 'no route' } } };
  const res = await exact.handler(new Request(`http://127.0.0.1${pathname}${query ? `?${query}` : ''}`, { method, body: body ?? undefined, headers }), matchPath(exact.path, pathname)!);
  assertJson(res);
  return { status: res.status, json: (await res.json()) as RouteReply['json'] };
}

function assertJson(res: Response): void {
  if (!(res.headers.get('content-type') ?? '').includes('application/json')) throw new Error(`route answered ${res.headers.get('content-type')}, not JSON`);
}
