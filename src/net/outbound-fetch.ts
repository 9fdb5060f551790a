import { ProxyAgent, fetch as undiciFetch } from 'undici';
import { ProxyError, type NetworkService } from '../spec/index.js';
import { displayProxy } from './proxy-url.js';
import { proxyRoute, type ProxyChoice, type ProxyRoute } from './proxy-route.js';

/** Codes of a connection to the proxy itself that never opened: the proxy is down, unknown or too slow. */
const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** What an {@link OutboundFetch} reads on every request, so a change applies to the next one. */
export interface OutboundFetchOptions {
  /** The value of `core.network.proxy` now. */
  setting: () => string;
  env: Record<string, string | undefined>;
  /** Plain `fetch` for direct requests (default: the global one). */
  directFetch?: typeof fetch;
}

/**
 * Outbound HTTP through the person's proxy (decision 0670). A request to a destination the
 * proxy covers is sent with undici's own `fetch` over a {@link ProxyAgent} (HTTP CONNECT; the
 * proxy sees the host and port, not what an https request carries); anything else with the
 * global `fetch`, as before. One agent per proxy URL is kept while it is in use; {@link close}
 * ends them.
 */
export class OutboundFetch implements NetworkService {
  private readonly agents = new Map<string, ProxyAgent>();
  private readonly direct: typeof fetch;

  constructor(private readonly opts: OutboundFetchOptions) {
    this.direct = opts.directFetch ?? fetch;
  }

  /** The route a URL takes now. */
  route(url: string | URL): ProxyRoute | undefined {
    const choice: ProxyChoice = { setting: this.opts.setting(), env: this.opts.env };
    return proxyRoute(typeof url === 'string' ? new URL(url) : url, choice);
  }

  proxyFor = (url: string | URL): string | undefined => {
    const r = this.route(url);
    return r ? displayProxy(r.url) : undefined;
  };

  fetch: typeof fetch = async (input, init) => {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const target = new URL(href);
    const route = this.route(target);
    if (!route) return this.direct(input, init);
    const dispatcher = this.agentFor(route.url);
    const request = typeof input === 'string' || input instanceof URL ? {} : { method: input.method, headers: input.headers, body: input.body, signal: input.signal, duplex: 'half' };
    try {
      return (await undiciFetch(href, { ...request, ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1])) as unknown as Response;
    } catch (e) {
      throw this.proxyFailure(e, route, target, init?.signal ?? (input instanceof Request ? input.signal : undefined));
    }
  };

  /** Ends the proxy connections (idempotent); a later request opens new ones. */
  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.close().catch(() => {})));
  }

  private agentFor(proxy: URL): ProxyAgent {
    let agent = this.agents.get(proxy.href);
    if (!agent) {
      // A changed setting leaves the old proxy's agent idle: end it rather than keep its sockets.
      for (const [href, old] of this.agents) {
        this.agents.delete(href);
        void old.close().catch(() => {});
      }
      agent = new ProxyAgent({ uri: proxy.href });
      this.agents.set(proxy.href, agent);
    }
    return agent;
  }

  /** A failure at the proxy as a {@link ProxyError} naming it; anything else (an abort, a failure past the tunnel) as it is. */
  private proxyFailure(e: unknown, route: ProxyRoute, target: URL, signal: AbortSignal | null | undefined): unknown {
    if (signal?.aborted) return e;
    const destination = `${target.hostname}:${target.port || (target.protocol === 'https:' ? '443' : '80')}`;
    const proxy = displayProxy(route.url);
    for (let c: unknown = e, depth = 0; c && typeof c === 'object' && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
      const code = (c as { code?: unknown }).code;
      if (typeof code !== 'string') continue;
      if (CONNECT_FAILURES.has(code)) return new ProxyError('PROXY_UNREACHABLE', proxy, destination, code, c);
      // undici's ProxyAgent ends the request with this code when the CONNECT is answered with
      // anything but 200; its message carries the status ("Proxy response (502) !== 200 …").
      if (code === 'UND_ERR_ABORTED') {
        const status = /\((\d{3})\)/.exec((c as Error).message)?.[1];
        return new ProxyError('PROXY_TUNNEL_REFUSED', proxy, destination, status ? `HTTP ${status}` : (c as Error).message, c);
      }
    }
    return e;
  }
}
