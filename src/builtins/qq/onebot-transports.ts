import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import type { WebSocket, WebSocketServer } from 'ws';
import type { PluginLogger } from '../../sdk/index.js';
import { Backoff, channelWords, sleep } from '../shared/index.js';
import type { LinkState, OneBotLink } from './onebot-link.js';

// ws is required on the first OneBot connection, not at daemon start: an unconfigured QQ channel
// costs nothing (docs/decisions/0020).
const requireLazy = createRequire(import.meta.url);
const wsLib = (): typeof import('ws') => requireLazy('ws') as typeof import('ws');

/** Largest frame accepted from the OneBot implementation (images arrive as URLs, not bytes). */
const MAX_FRAME = 16 * 1024 * 1024;

interface TransportOptions {
  link: OneBotLink;
  token: string;
  log: PluginLogger;
  /** After an API-capable socket is up: ask get_login_info, report `connected`. */
  onConnected: (selfIdHint?: string) => Promise<void>;
  onState: (s: Omit<LinkState, 'since'>) => void;
}

/** A way to reach the OneBot implementation: we dial it (forward) or it dials us (reverse). */
export interface OneBotTransport {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Compares secrets in constant time. */
function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Forward WebSocket (communication/ws.md): we connect to the implementation's `/` endpoint with
 * `Authorization: Bearer <access_token>`, and reconnect with back-off (1 s … 60 s) when it drops or
 * is not up yet. A 401/403 at the handshake is a rejected token: a clear error and no more tries
 * until the settings change. A ping every 30 s finds a dead connection.
 */
export class ForwardClient implements OneBotTransport {
  private ac: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private ws: WebSocket | undefined;
  private readonly backoff: Backoff;

  constructor(private readonly o: TransportOptions & { url: string; pingMs?: number; backoff?: Backoff }) {
    this.backoff = o.backoff ?? new Backoff(1000, 60_000);
  }

  async start(): Promise<void> {
    if (this.loop) return;
    this.ac = new AbortController();
    this.loop = this.run(this.ac.signal).catch((e) => this.o.onState({ status: 'error', url: this.o.url, detail: `stopped: ${(e as Error).message}`, words: channelWords('CHANNEL_FAILED', { reason: (e as Error).message }) }));
  }

  async stop(): Promise<void> {
    this.ac?.abort();
    this.ws?.terminate();
    await this.loop;
    this.loop = undefined;
  }

  private connectOnce(signal: AbortSignal): Promise<{ ws?: WebSocket; status?: number; error?: string }> {
    return new Promise((resolve) => {
      const ws = new (wsLib().WebSocket)(this.o.url, { headers: this.o.token ? { Authorization: `Bearer ${this.o.token}` } : {}, handshakeTimeout: 10_000, maxPayload: MAX_FRAME });
      this.ws = ws;
      const onAbort = () => ws.terminate();
      signal.addEventListener('abort', onAbort, { once: true });
      const done = (r: { ws?: WebSocket; status?: number; error?: string }) => {
        signal.removeEventListener('abort', onAbort);
        resolve(r);
      };
      ws.once('open', () => done({ ws }));
      ws.once('unexpected-response', (_req, res) => {
        res.resume();
        ws.on('error', () => {});
        ws.terminate();
        done({ status: res.statusCode });
      });
      ws.once('error', (e: Error & { code?: string }) => done({ error: e.code ?? e.message }));
    });
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      this.o.onState({ status: 'connecting', url: this.o.url, detail: `connecting to ${this.o.url}`, words: channelWords('ONEBOT_CONNECTING', { url: this.o.url }) });
      const r = await this.connectOnce(signal);
      if (signal.aborted) return;
      if (r.status === 401 || r.status === 403) {
        this.o.onState({ status: 'error', url: this.o.url, detail: `the OneBot implementation rejected the access token (HTTP ${r.status}); check plugin.qq.access_token — not retrying until it changes`, words: channelWords('ONEBOT_TOKEN_REJECTED_STOPPED', { status: r.status }) });
        this.o.log.error('OneBot rejected the access token; not reconnecting until the setting changes', { status: r.status });
        return;
      }
      if (r.ws) {
        const ws = r.ws;
        this.backoff.reset();
        ws.on('error', (e) => this.o.log.warn('OneBot connection error', { error: e.message }));
        this.o.link.attach(ws, 'Universal');
        const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
        let alive = true;
        ws.on('pong', () => (alive = true));
        const ping = setInterval(() => {
          if (!alive) return ws.terminate();
          alive = false;
          ws.ping();
        }, this.o.pingMs ?? 30_000);
        ping.unref?.();
        await this.o.onConnected().catch((e) => this.o.log.warn('get_login_info failed', { error: (e as Error).message }));
        await closed;
        clearInterval(ping);
        if (signal.aborted) return;
      }
      const wait = this.backoff.next();
      const why = r.ws ? 'the connection closed' : r.status ? `HTTP ${r.status}` : `${r.error ?? 'failed'}`;
      // The English detail says the wait as it was (the CLI prints it once); the page counts down from retryAt.
      const words = r.ws ? channelWords('ONEBOT_CLOSED_RETRYING', { url: this.o.url }) : channelWords('ONEBOT_CANNOT_REACH', { url: this.o.url, reason: why });
      this.o.onState({ status: 'retrying', url: this.o.url, detail: `cannot reach ${this.o.url} (${why}); retrying in ${Math.round(wait / 1000)} s`, words, retryAt: Date.now() + wait });
      this.o.log.warn(`OneBot ${why}; reconnecting in ${Math.round(wait / 1000)} s`, { url: this.o.url, attempt: this.backoff.attempts });
      await sleep(wait, signal);
    }
  }
}

/**
 * Reverse WebSocket (communication/ws-reverse.md): the implementation connects to us. We listen on
 * loopback by default, at one path, and take a connection only with the access token
 * (`Authorization: Bearer …`, or `?access_token=`) and without an `Origin` header — a web page in
 * the owner's browser can open WebSockets to 127.0.0.1 (no CORS), and always sends Origin; a
 * OneBot implementation does not. Roles Universal, or API + Event, per `X-Client-Role`.
 */
/** The shortest access token the reverse WebSocket takes when it listens beyond loopback. */
export const MIN_OPEN_TOKEN = 16;

/** An address only this machine reaches. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::ffff:127.0.0.1';
}

export class ReverseServer implements OneBotTransport {
  private server: Server | undefined;
  private wss: WebSocketServer | undefined;

  constructor(private readonly o: TransportOptions & { host: string; port: number; path: string }) {}

  /** The URL to give the implementation, once listening. */
  url: string | undefined;

  async start(): Promise<void> {
    if (this.server) return;
    if (!this.o.token) {
      this.o.onState({ status: 'error', detail: 'the reverse WebSocket needs an access token: set plugin.qq.access_token (and the same token in NapCat / Lagrange)', words: channelWords('ONEBOT_REVERSE_NEEDS_TOKEN') });
      return;
    }
    // Beyond this machine the token is all that stands between the network and messages "from"
    // the allowed QQ users: a guessable one is refused, not warned about.
    const open = !isLoopbackHost(this.o.host);
    if (open && this.o.token.length < MIN_OPEN_TOKEN) {
      this.o.onState({
        status: 'error',
        detail: `listening on ${this.o.host} lets other machines connect: the access token must then be at least ${MIN_OPEN_TOKEN} characters (a long random one, the same in NapCat / Lagrange), or keep plugin.qq.reverse_host at 127.0.0.1`,
        words: channelWords('ONEBOT_REVERSE_SHORT_TOKEN', { host: this.o.host, min: MIN_OPEN_TOKEN }),
      });
      return;
    }
    const wss = new (wsLib().WebSocketServer)({ noServer: true, maxPayload: MAX_FRAME });
    this.wss = wss;
    const server = createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain' });
      res.end('OneBot v11 reverse WebSocket endpoint of HomeAgent\n');
    });
    server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.o.port, this.o.host, () => resolve());
      });
    } catch (e) {
      const reason = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      this.o.onState({ status: 'error', detail: `cannot listen on ${this.o.host}:${this.o.port}: ${reason}`, words: channelWords('ONEBOT_LISTEN_FAILED', { host: this.o.host, port: this.o.port, reason }) });
      return;
    }
    server.on('error', (e) => this.o.log.warn('reverse WebSocket server error', { error: e.message }));
    this.server = server;
    const a = server.address() as AddressInfo;
    const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    this.url = `ws://${host}:${a.port}${this.o.path}`;
    this.o.onState({ status: 'listening', url: this.url, detail: `waiting for NapCat / Lagrange to connect to ${this.url}${open ? ' (reachable from other machines: only the access token keeps them out)' : ''}`, words: channelWords('ONEBOT_LISTENING', { url: this.url, open }) });
    if (open) this.o.log.warn(`the QQ reverse WebSocket listens on ${this.o.host}: other machines can reach it; the access token keeps them out`);
  }

  private refuse(socket: Duplex, status: number, text: string): void {
    socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => {});
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.replace(/\/+$/, '') !== this.o.path.replace(/\/+$/, '')) return this.refuse(socket, 404, 'Not Found');
    if (req.headers.origin !== undefined) {
      this.o.log.warn('refused a WebSocket with an Origin header (a web page, not a OneBot implementation)', { origin: String(req.headers.origin).slice(0, 100) });
      return this.refuse(socket, 403, 'Forbidden');
    }
    const auth = String(req.headers.authorization ?? '');
    const given = /^(Bearer|Token)\s+(.+)$/i.exec(auth)?.[2] ?? url.searchParams.get('access_token') ?? '';
    if (!given || !sameSecret(given, this.o.token)) {
      this.o.log.warn('refused a OneBot connection with a missing or wrong access token');
      return this.refuse(socket, 401, 'Unauthorized');
    }
    const roleHeader = String(req.headers['x-client-role'] ?? 'Universal').toLowerCase();
    const role = roleHeader === 'api' ? 'API' : roleHeader === 'event' ? 'Event' : roleHeader === 'universal' ? 'Universal' : undefined;
    if (!role) return this.refuse(socket, 400, 'Bad Request');
    const selfId = typeof req.headers['x-self-id'] === 'string' ? req.headers['x-self-id'] : undefined;
    this.wss!.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', (e) => this.o.log.warn('OneBot connection error', { error: e.message }));
      this.o.link.attach(ws, role);
      this.o.log.info(`OneBot ${role} client connected`, { selfId });
      if (role !== 'Event') void this.o.onConnected(selfId).catch((e) => this.o.log.warn('get_login_info failed', { error: (e as Error).message }));
      ws.once('close', () => {
        if (this.server && !this.o.link.ready) this.o.onState({ status: 'listening', url: this.url, detail: `the OneBot implementation disconnected; waiting for it at ${this.url}`, words: channelWords('ONEBOT_DISCONNECTED', { url: this.url }) });
      });
    });
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const c of this.wss?.clients ?? []) c.terminate();
    this.wss?.close();
    this.wss = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }
}
