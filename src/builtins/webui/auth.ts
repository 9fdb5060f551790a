import { timingSafeEqual } from 'node:crypto';

/** True for loopback addresses and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}

/** The token a request carries: `Authorization: Bearer …`, else `?token=` (EventSource cannot send headers). */
export function requestToken(req: Request): string | undefined {
  const auth = req.headers.get('authorization');
  const m = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim()) : null;
  if (m) return m[1];
  const q = new URL(req.url).searchParams.get('token');
  return q ?? undefined;
}

/** Constant-time comparison of a presented token with the configured one. */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (!presented) return false;
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
