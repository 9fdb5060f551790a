import type { HttpRoute } from '../../sdk/index.js';

interface Compiled {
  route: HttpRoute & { plugin?: string };
  re: RegExp;
  names: string[];
}

/** Compiles a hono-style path (`/api/v1/x/:id`, trailing `*` wildcard) to a regex. */
export function compilePath(path: string): { re: RegExp; names: string[] } {
  const names: string[] = [];
  let src = '';
  for (const part of path.split('/').filter(Boolean)) {
    if (part === '*') {
      src += '(?:/.*)?';
      continue;
    }
    if (part.startsWith(':')) {
      names.push(part.slice(1));
      src += '/([^/]+)';
    } else src += `/${part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
  }
  return { re: new RegExp(`^${src || '/'}/?$`), names };
}

/**
 * The routes plugins registered (P-7: memory-manager, cfgmgr, pluginmgr, files, healthcheck …),
 * matched by method and path. Replaced as a whole when the route table changes, so removal of
 * a plugin's routes takes effect at once.
 */
export class RouteTable {
  private compiled: Compiled[] = [];

  /** Replaces all routes. */
  set(routes: (HttpRoute & { plugin?: string })[]): void {
    this.compiled = routes.map((route) => ({ route, ...compilePath(route.path) }));
  }

  get size(): number {
    return this.compiled.length;
  }

  /** The route for a method and pathname, with decoded params; `pathOnly` when only the method differs. */
  match(method: string, pathname: string): { route: HttpRoute & { plugin?: string }; params: Record<string, string> } | { pathOnly: true } | undefined {
    let pathOnly = false;
    for (const c of this.compiled) {
      const m = c.re.exec(pathname);
      if (!m) continue;
      if (c.route.method !== method && !(method === 'HEAD' && c.route.method === 'GET')) {
        pathOnly = true;
        continue;
      }
      const params: Record<string, string> = {};
      c.names.forEach((n, i) => {
        try {
          params[n] = decodeURIComponent(m[i + 1] ?? '');
        } catch {
          params[n] = m[i + 1] ?? '';
        }
      });
      return { route: c.route, params };
    }
    return pathOnly ? { pathOnly: true } : undefined;
  }
}
