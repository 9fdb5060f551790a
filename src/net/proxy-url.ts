/**
 * The proxy URL a person writes (`core.network.proxy`, `HTTPS_PROXY`): `http://host:port` or
 * `https://host:port`, optionally `user:pass@`, nothing after the port. SOCKS is not spoken by
 * the client (undici's ProxyAgent tunnels with HTTP CONNECT): Clash, V2Ray and the like offer an
 * HTTP port beside their SOCKS one (Clash's "mixed" port 7890 is both).
 */

/** Why `text` is not a proxy URL we can use, or undefined when it is (and when it is empty). */
export function proxyUrlProblem(text: string): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  let url: URL;
  try {
    url = new URL(t);
  } catch {
    return 'a proxy is an http:// or https:// URL with a host and port, such as "http://127.0.0.1:7890" ("" = none)';
  }
  if (/^socks/.test(url.protocol)) return 'a SOCKS proxy is not supported: give the HTTP port of the proxy (Clash and V2Ray offer one, such as "http://127.0.0.1:7890")';
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'a proxy is an http:// or https:// URL with a host and port, such as "http://127.0.0.1:7890" ("" = none)';
  if (!url.hostname) return 'a proxy is an http:// or https:// URL with a host and port, such as "http://127.0.0.1:7890" ("" = none)';
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) return 'a proxy URL ends after its host and port, such as "http://127.0.0.1:7890" (no path, query or #)';
  return undefined;
}

/** The proxy as a person may read it: `http://user:***@host:port` (the password never shown). */
export function displayProxy(url: URL): string {
  const auth = url.username ? `${decodeURIComponent(url.username)}${url.password ? ':***' : ''}@` : '';
  return `${url.protocol}//${auth}${url.host}`;
}
