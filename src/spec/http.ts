/**
 * The paths of the local HTTP API (SPEC §9). Every request to one of them passes the API guard
 * (same-origin only, the per-install token, no form-able bodies) before any route runs; every
 * other path is the static WebUI, which holds no secret. Plugin routes must live under one of
 * these roots, so a plugin can never add an unguarded route.
 *
 * - `/api` — the WebUI's REST API and most plugins' routes,
 * - `/v1` — the OpenAI-compatible chat API (R-1),
 * - `/mcp` — the MCP server over the memory (R-2).
 */
export const API_PATH_ROOTS = ['/api', '/v1', '/mcp'] as const;

/** True when `path` is an API root or lies under one (`/v1/models`, `/mcp`, `/api/x`; not `/v1x`). */
export function isApiPath(path: string): boolean {
  return API_PATH_ROOTS.some((root) => path === root || path.startsWith(`${root}/`));
}
