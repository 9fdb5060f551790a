import type { Disposer, HttpRoute, RouteTableService } from '../spec/index.js';
import { API_PATH_ROOTS, ConflictError, isApiPath, ValidationError } from '../spec/index.js';

type Route = HttpRoute & { plugin: string };

/**
 * HTTP routes contributed by plugins (`sdk.registerRoute`), offered to the webui server as the
 * service `host.routes`. Paths start with `/api/`; the same method + path may be registered only once.
 */
export class RouteTable implements RouteTableService {
  private readonly routes: Route[] = [];
  private readonly listeners = new Set<() => void>();

  add(plugin: string, route: HttpRoute): Disposer {
    if (!route || typeof route.handler !== 'function' || typeof route.path !== 'string' || !route.path.startsWith('/')) {
      throw new ValidationError(`plugin ${plugin}: a route needs a method, a path starting with "/" and a handler`, { plugin });
    }
    if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method)) throw new ValidationError(`plugin ${plugin}: unsupported route method ${String(route.method)}`, { plugin });
    // Plugin routes live under an API root so that every one of them passes the API's checks
    // (token, same-origin, content type) before its handler runs (SPEC §9). The roots are the
    // ones the guard covers (`isApiPath`), defined once in the contracts.
    if (!isApiPath(route.path) || route.path.split('/').includes('..')) {
      throw new ValidationError(`plugin ${plugin}: route paths must lie under ${API_PATH_ROOTS.join('/, ')} (got ${route.path})`, { plugin, path: route.path });
    }
    const clash = this.routes.find((r) => r.method === route.method && r.path === route.path);
    if (clash) throw new ConflictError(`route ${route.method} ${route.path} is already registered by plugin "${clash.plugin}"`, { plugin, owner: clash.plugin, path: route.path });
    const entry: Route = { ...route, plugin };
    this.routes.push(entry);
    this.changed();
    return () => {
      const i = this.routes.indexOf(entry);
      if (i < 0) return;
      this.routes.splice(i, 1);
      this.changed();
    };
  }

  list(): Route[] {
    return [...this.routes];
  }

  onChange(fn: () => void): Disposer {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  private changed(): void {
    for (const fn of [...this.listeners]) {
      try {
        fn();
      } catch {}
    }
  }
}
