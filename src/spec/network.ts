/**
 * Outbound HTTP for destinations on the internet (decision 0670): LLM sources and chat-app APIs
 * reach them through the person's proxy when one is set (`core.network.proxy`, else
 * `HTTPS_PROXY` / `HTTP_PROXY` with `NO_PROXY`); loopback and private addresses never do.
 */
export interface NetworkService {
  /**
   * `fetch` with the proxy applied per request. A failure at the proxy rejects with a
   * `ProxyError` (`PROXY_UNREACHABLE`, `PROXY_TUNNEL_REFUSED`) that names the proxy; anything
   * else rejects as `fetch` does.
   */
  fetch: typeof fetch;
  /** The proxy a URL would go through now (password masked), or undefined for a direct request. */
  proxyFor(url: string | URL): string | undefined;
}

declare module './plugin.js' {
  interface ServiceMap {
    'host.network': NetworkService;
  }
}
