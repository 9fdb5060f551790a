import { isIP } from 'node:net';
import { proxyUrlProblem } from './proxy-url.js';

/** Where the proxy a request takes was set. */
export type ProxyOrigin = 'core.network.proxy' | 'HTTPS_PROXY' | 'HTTP_PROXY';

/** The proxy one request goes through. */
export interface ProxyRoute {
  url: URL;
  origin: ProxyOrigin;
}

/** What decides the route: the setting's value and the environment. */
export interface ProxyChoice {
  /** `core.network.proxy`: "" = follow the environment, "direct" = never a proxy, else the proxy URL. */
  setting: string;
  env: Record<string, string | undefined>;
}

/** `localhost`, `*.localhost`, 127/8, ::1 — and private, link-local and unique-local addresses written as such. */
export function isLocalDestination(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const v = isIP(host);
  if (v === 4) {
    const [a, b] = host.split('.').map(Number);
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || a === 0;
  }
  if (v === 6) {
    if (host === '::1' || host === '::') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
    if (mapped) return isLocalDestination(mapped[1]);
    return /^f[cd][0-9a-f]{2}:/.test(host) || /^fe[89ab][0-9a-f]:/.test(host);
  }
  return false;
}

/**
 * Whether `NO_PROXY` exempts a destination, as curl reads it: entries split by commas or
 * spaces; `*` exempts all; `example.com` (or `.example.com`, `*.example.com`) exempts it and its
 * subdomains; `host:port` only that port; an IP matches itself.
 */
export function noProxyMatches(noProxy: string | undefined, hostname: string, port: string): boolean {
  if (!noProxy) return false;
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const m = /^(.*?)(?::(\d+))?$/.exec(entry.replace(/^\[([^\]]+)\](?=:|$)/, '$1'))!;
    const [name, entryPort] = [m[1].replace(/^\*?\./, ''), m[2]];
    if (entryPort && entryPort !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/**
 * The proxy a request to `target` takes, or undefined for a direct one. The setting wins over
 * the environment (decision 0670); loopback and private destinations go direct whatever is set,
 * and so does what `NO_PROXY` names. An environment proxy that is not a usable URL is not used
 * ({@link envProxyProblem} says why, for the log).
 */
export function proxyRoute(target: URL, choice: ProxyChoice): ProxyRoute | undefined {
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return undefined;
  if (isLocalDestination(target.hostname)) return undefined;
  const setting = choice.setting.trim();
  if (setting === 'direct') return undefined;
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  if (noProxyMatches(choice.env.no_proxy ?? choice.env.NO_PROXY, target.hostname, port)) return undefined;
  if (setting) return proxyUrlProblem(setting) ? undefined : { url: new URL(setting), origin: 'core.network.proxy' };
  const fromEnv = envProxy(target.protocol, choice.env);
  return fromEnv && !proxyUrlProblem(fromEnv.value) ? { url: new URL(fromEnv.value), origin: fromEnv.origin } : undefined;
}

function envProxy(protocol: string, env: Record<string, string | undefined>): { value: string; origin: ProxyOrigin } | undefined {
  // curl and undici read the lower-case name first; https destinations fall back to HTTP_PROXY as undici's EnvHttpProxyAgent does.
  const https = env.https_proxy || env.HTTPS_PROXY;
  const http = env.http_proxy || env.HTTP_PROXY;
  if (protocol === 'https:' && https) return { value: https.trim(), origin: 'HTTPS_PROXY' };
  if (http) return { value: http.trim(), origin: 'HTTP_PROXY' };
  return undefined;
}

/** Why the environment's proxy is not used (for a warning at start), or undefined. */
export function envProxyProblem(env: Record<string, string | undefined>): string | undefined {
  for (const name of ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY']) {
    const v = env[name]?.trim();
    const problem = v ? proxyUrlProblem(v) : undefined;
    if (problem) return `${name} is not used: ${problem}`;
  }
  return undefined;
}
