import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { AddressPolicy } from './address-policy.js';
import { WebError } from './web-error.js';

/** Resolves a host name to every address it has (DNS; injectable so tests can answer for names). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addrs) => (err ? reject(err) : resolve(addrs))));

/** Limits and policy of one fetch. */
export interface SafeFetchOptions {
  policy: AddressPolicy;
  /** Most bytes of the (decompressed) body kept; the rest is cut off. */
  maxBytes: number;
  /** For the whole fetch, redirects included. */
  timeoutMs: number;
  maxRedirects: number;
  userAgent: string;
  signal?: AbortSignal;
  resolver?: Resolver;
}

/** What came back. */
export interface FetchedPage {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** The body was longer than `maxBytes` and was cut. */
  truncated: boolean;
  redirects: string[];
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Parses and checks a URL the model gave: http(s) only, no credentials. */
export function parseWebUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new WebError('WEB_INVALID_URL', `"${raw.slice(0, 200)}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebError('WEB_INVALID_URL', `only http and https URLs are fetched (got ${url.protocol})`, { url: url.href.slice(0, 300) });
  if (url.username || url.password) throw new WebError('WEB_INVALID_URL', 'URLs with a user name or password are not fetched');
  return url;
}

const portOf = (u: URL) => Number(u.port || (u.protocol === 'https:' ? 443 : 80));

/**
 * GET a URL with the SSRF rules of `web_fetch` (decision 0040): every address the host name
 * resolves to must pass the policy — checked inside the connection's own DNS lookup, so the
 * socket connects to exactly the address that was checked (no rebinding between check and
 * connect) — and so must each redirect's target, hop by hop. Literal IPs in any spelling are
 * normalised by the URL parser (`2130706433`, `0x7f.1` → 127.0.0.1) and checked before a
 * connection is opened. Size and time are bounded; gzip, deflate and brotli bodies are counted
 * after decompression.
 */
export async function safeFetch(raw: string, o: SafeFetchOptions): Promise<FetchedPage> {
  const deadline = AbortSignal.timeout(o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([o.signal, deadline]) : deadline;
  const redirects: string[] = [];
  let url = parseWebUrl(raw);
  for (;;) {
    const res = await request(url, o, signal).catch((e: unknown) => {
      if (deadline.aborted) throw new WebError('WEB_TIMEOUT', `no complete answer from ${url.host} within ${o.timeoutMs} ms`, { url: url.href.slice(0, 300) });
      throw e;
    });
    if (REDIRECTS.has(res.statusCode ?? 0) && res.headers.location) {
      res.resume();
      if (redirects.length >= o.maxRedirects) throw new WebError('WEB_TOO_MANY_REDIRECTS', `more than ${o.maxRedirects} redirects`, { redirects });
      let next: URL;
      try {
        next = parseWebUrl(new URL(res.headers.location, url).href);
      } catch (e) {
        throw new WebError('WEB_INVALID_URL', `redirected to an address that is not fetched: ${(e as Error).message}`, { from: url.href.slice(0, 300) });
      }
      redirects.push(next.href);
      url = next;
      continue;
    }
    const { body, truncated } = await readBody(res, o.maxBytes, signal).catch((e: unknown) => {
      if (deadline.aborted) throw new WebError('WEB_TIMEOUT', `the body of ${url.href.slice(0, 200)} did not arrive within ${o.timeoutMs} ms`);
      throw e;
    });
    return { url: url.href, status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body, truncated, redirects };
  }
}

function request(url: URL, o: SafeFetchOptions, signal: AbortSignal): Promise<http.IncomingMessage> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = portOf(url);
  if (isIP(host)) {
    const why = o.policy.refusal(host, port);
    if (why) return Promise.reject(new WebError('WEB_ADDRESS_REFUSED', `refused ${url.host}: ${why}`, { host: url.host }));
  }
  const resolver = o.resolver ?? systemResolver;
  // The connection's own lookup: the addresses it connects to are the ones checked here.
  const lookup = (hostname: string, options: { all?: boolean; family?: number }, cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void): void => {
    resolver(hostname).then(
      (addrs) => {
        if (addrs.length === 0) return cb(new WebError('WEB_NETWORK', `${hostname} has no address`), '', 0);
        for (const a of addrs) {
          const why = o.policy.refusal(a.address, port);
          if (why) return cb(new WebError('WEB_ADDRESS_REFUSED', `refused ${hostname}: it resolves to ${a.address} — ${why}`, { host: hostname, address: a.address }), '', 0);
        }
        const usable = options.family ? addrs.filter((a) => a.family === options.family) : addrs;
        if (options.all) return cb(null, usable);
        const first = usable[0] ?? addrs[0];
        cb(null, first.address, first.family);
      },
      (e: Error) => cb(new WebError('WEB_NETWORK', `cannot resolve ${hostname}: ${(e as NodeJS.ErrnoException).code ?? e.message}`, { host: hostname }), '', 0),
    );
  };
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      url,
      {
        method: 'GET',
        agent: false,
        lookup: lookup as never,
        signal,
        headers: { 'user-agent': o.userAgent, accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5', 'accept-encoding': 'gzip, deflate, br' },
      },
      resolve,
    );
    req.on('error', (e) => {
      if (e instanceof WebError) reject(e);
      else if (signal.aborted) reject(signal.reason instanceof Error ? signal.reason : e);
      else reject(new WebError('WEB_NETWORK', `cannot fetch ${url.host}: ${(e as NodeJS.ErrnoException).code ?? e.message}`, { host: url.host }, e));
    });
    req.end();
  });
}

async function readBody(res: http.IncomingMessage, max: number, signal: AbortSignal): Promise<{ body: Buffer; truncated: boolean }> {
  const enc = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  let stream: Readable = res;
  if (enc === 'gzip' || enc === 'x-gzip') stream = res.pipe(createGunzip());
  else if (enc === 'deflate') stream = res.pipe(createInflate());
  else if (enc === 'br') stream = res.pipe(createBrotliDecompress());
  const chunks: Buffer[] = [];
  let total = 0;
  let truncated = false;
  try {
    for await (const chunk of stream) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      const b = chunk as Buffer;
      if (total + b.length > max) {
        chunks.push(b.subarray(0, max - total));
        total = max;
        truncated = true;
        break;
      }
      chunks.push(b);
      total += b.length;
    }
  } catch (e) {
    if (e instanceof WebError) throw e;
    if (signal.aborted) throw e;
    throw new WebError('WEB_NETWORK', `the body could not be read: ${(e as Error).message}`, {}, e);
  } finally {
    res.destroy();
    if (stream !== res) stream.destroy();
  }
  return { body: Buffer.concat(chunks), truncated };
}
