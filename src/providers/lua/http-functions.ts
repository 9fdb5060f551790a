import type { LuaSandbox } from './lua-sandbox.js';

export interface HttpFunctionOptions {
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Per request. Default 15 s (keep it below the sandbox's time budget). */
  timeoutMs?: number;
  /** Largest response body read. Default 5 MiB. */
  maxBytes?: number;
  /** Veto a URL (e.g. to keep plugins on an allow list). Default: any http(s) URL. */
  allow?: (url: URL) => boolean;
}

/** What `http_get` / `http_post` return to Lua. */
interface LuaHttpResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/**
 * Registers `http_get(url, headers?)` and `http_post(url, body, headers?)` in a sandbox. Both
 * look synchronous to the script (the sandbox awaits the host promise) and return a table
 * `{ status = 200, body = "...", headers = { ["content-type"] = "..." } }`; a table `body` given
 * to `http_post` is sent as JSON. Network failures raise a Lua error.
 */
export function registerHttpFunctions(sandbox: LuaSandbox, opts: HttpFunctionOptions = {}): void {
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const maxBytes = opts.maxBytes ?? 5 * 1024 * 1024;
  const request = async (method: string, url: unknown, body: unknown, headers: unknown): Promise<LuaHttpResponse> => {
    if (typeof url !== 'string') throw new Error(`http_${method.toLowerCase()}: url must be a string`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`http_${method.toLowerCase()}: invalid url ${url}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`http_${method.toLowerCase()}: only http(s) URLs are allowed`);
    if (opts.allow && !opts.allow(parsed)) throw new Error(`http_${method.toLowerCase()}: ${parsed.host} is not allowed (adapter scripts cannot reach the daemon's own API)`);
    const h: Record<string, string> = {};
    if (headers && typeof headers === 'object') for (const [k, v] of Object.entries(headers)) h[k] = String(v);
    let payload: string | undefined;
    if (method === 'POST') {
      if (typeof body === 'string') payload = body;
      else if (body !== undefined && body !== null) {
        payload = JSON.stringify(body);
        if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['content-type'] = 'application/json';
      }
    }
    const res = await doFetch(parsed, { method, headers: h, body: payload, signal: AbortSignal.timeout(timeoutMs) });
    const text = await readLimited(res, maxBytes);
    const outHeaders: Record<string, string> = {};
    res.headers.forEach((v, k) => (outHeaders[k] = v));
    return { status: res.status, body: text, headers: outHeaders };
  };
  sandbox.registerFunction('http_get', (url: unknown, headers: unknown) => request('GET', url, undefined, headers));
  sandbox.registerFunction('http_post', (url: unknown, body: unknown, headers: unknown) => request('POST', url, body, headers));
}

async function readLimited(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`response larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Host names that reach this machine: localhost (and *.localhost), 127/8, ::1, the unspecified addresses, IPv4-mapped loopback. */
export function isLocalHostName(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(h) || h === '0.0.0.0' || h === '::' || h === '::1' || /^(0:){5}ffff:7f/.test(h) || /^::ffff:(127\.|7f)/.test(h) || h === '0:0:0:0:0:0:0:1';
}

/**
 * An `allow` function for {@link registerHttpFunctions} that refuses this daemon's own HTTP
 * ports on any local address (`http://127.0.0.1:8765`, `http://localhost:8765`, `http://[::1]:8765`,
 * `http://0.0.0.0:8765`, decimal forms the URL parser normalises), so an adapter script cannot
 * reach the local API. Other local services (a local Ollama) stay reachable.
 */
export function refuseOwnPorts(ports: () => Iterable<number>): (url: URL) => boolean {
  return (url) => {
    if (!isLocalHostName(url.hostname)) return true;
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    for (const p of ports()) if (p === port) return false;
    return true;
  };
}
