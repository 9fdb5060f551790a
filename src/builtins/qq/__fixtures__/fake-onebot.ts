import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

/**
 * A fake OneBot v11 implementation (what NapCat / Lagrange are) for tests, over loopback
 * WebSockets with the real shapes (github.com/botuniverse/onebot-11):
 * - forward: it serves `/` and checks `Authorization: Bearer <access_token>` (401 otherwise);
 * - reverse: `dial(url)` connects to HomeAgent with `X-Self-ID`, `X-Client-Role` and the token.
 * On connect it posts the `lifecycle`/`connect` meta event. Actions `{action, params, echo}` are
 * answered `{status, retcode, data, echo}`: send_private_msg, send_group_msg, send_msg,
 * get_login_info, get_msg, get_group_info (others: `failed`, retcode 1404). `pushPrivate` and
 * `pushGroup` post message events with the spec's field names (time, self_id, post_type,
 * message_type, sub_type, message_id, user_id, group_id, message, raw_message, font, sender).
 */

export interface FakeQqUser {
  user_id: number;
  nickname: string;
  card?: string;
}

export interface ActionRecord {
  action: string;
  params: Record<string, unknown>;
  echo: unknown;
  /** When it arrived (epoch ms). */
  at: number;
}

type Seg = { type: string; data: Record<string, unknown> };

export class FakeOneBot {
  readonly actions: ActionRecord[] = [];
  /** message_id of every message the bot sent, in order. */
  readonly sentIds: number[] = [];
  readonly sockets = new Set<WebSocket>();
  private server: Server | undefined;
  private wss: WebSocketServer | undefined;
  private nextMessage = 1000;
  private readonly messages = new Map<number, { sender: { user_id: number; nickname: string }; message: unknown; message_type: string }>();
  private readonly fails = new Map<string, number[]>();
  private readonly listeners = new Set<() => void>();
  /** Frames HomeAgent sent that were not JSON actions. */
  readonly junk: string[] = [];
  url = '';

  constructor(
    readonly opts: { token?: string; selfId?: number; nickname?: string; groups?: Record<number, string> } = {},
  ) {}

  get selfId(): number {
    return this.opts.selfId ?? 3000000001;
  }

  /** Forward mode: listen on 127.0.0.1 (port 0). */
  async listen(): Promise<string> {
    const server = createServer();
    const wss = new WebSocketServer({ noServer: true });
    server.on('upgrade', (req, socket, head) => {
      const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? new URL(req.url ?? '/', 'http://x').searchParams.get('access_token') ?? '';
      if (this.opts.token && token !== this.opts.token) {
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => this.adopt(ws));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    this.server = server;
    this.wss = wss;
    this.url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** Reverse mode: connect to HomeAgent as the implementation would. Resolves when open (or rejects with the HTTP status). */
  dial(url: string, o: { token?: string; role?: 'Universal' | 'API' | 'Event'; origin?: string; tokenInQuery?: boolean } = {}): Promise<WebSocket> {
    const token = o.token ?? this.opts.token;
    const headers: Record<string, string> = { 'X-Self-ID': String(this.selfId), 'X-Client-Role': o.role ?? 'Universal', 'User-Agent': 'FakeOneBot/11' };
    if (token && !o.tokenInQuery) headers.Authorization = `Bearer ${token}`;
    if (o.origin) headers.Origin = o.origin;
    const ws = new WebSocket(o.tokenInQuery && token ? `${url}?access_token=${encodeURIComponent(token)}` : url, { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => {
        this.adopt(ws);
        resolve(ws);
      });
      ws.once('unexpected-response', (_q, res) => {
        res.resume();
        ws.on('error', () => {});
        ws.terminate();
        reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode }));
      });
      ws.once('error', reject);
    });
  }

  private adopt(ws: WebSocket): void {
    this.sockets.add(ws);
    ws.on('close', () => this.sockets.delete(ws));
    ws.on('message', (data) => this.onFrame(ws, String(data)));
    ws.send(JSON.stringify({ time: Math.floor(Date.now() / 1000), self_id: this.selfId, post_type: 'meta_event', meta_event_type: 'lifecycle', sub_type: 'connect' }));
    for (const l of [...this.listeners]) l();
  }

  private reply(ws: WebSocket, echo: unknown, data: unknown, retcode = 0): void {
    ws.send(JSON.stringify({ status: retcode === 0 ? 'ok' : 'failed', retcode, data: retcode === 0 ? data : null, echo, ...(retcode ? { message: 'fake failure', wording: 'fake failure' } : {}) }));
  }

  private onFrame(ws: WebSocket, text: string): void {
    let m: { action?: unknown; params?: unknown; echo?: unknown };
    try {
      m = JSON.parse(text);
    } catch {
      this.junk.push(text);
      return;
    }
    if (typeof m.action !== 'string') return void this.junk.push(text);
    const params = (m.params ?? {}) as Record<string, unknown>;
    this.actions.push({ action: m.action, params, echo: m.echo, at: Date.now() });
    for (const l of [...this.listeners]) l();
    const fail = this.fails.get(m.action)?.shift();
    if (fail) return this.reply(ws, m.echo, null, fail);
    switch (m.action) {
      case 'get_login_info':
        return this.reply(ws, m.echo, { user_id: this.selfId, nickname: this.opts.nickname ?? 'HomeAgentBot' });
      case 'send_private_msg':
      case 'send_group_msg':
      case 'send_msg': {
        const id = this.nextMessage++;
        this.sentIds.push(id);
        this.messages.set(id, { sender: { user_id: this.selfId, nickname: this.opts.nickname ?? 'HomeAgentBot' }, message: params.message, message_type: m.action === 'send_group_msg' ? 'group' : 'private' });
        return this.reply(ws, m.echo, { message_id: id });
      }
      case 'get_msg': {
        const found = this.messages.get(Number(params.message_id));
        if (!found) return this.reply(ws, m.echo, null, 1404);
        return this.reply(ws, m.echo, { time: 0, message_type: found.message_type, message_id: Number(params.message_id), real_id: Number(params.message_id), sender: found.sender, message: found.message });
      }
      case 'get_group_info': {
        const name = this.opts.groups?.[Number(params.group_id)];
        return name ? this.reply(ws, m.echo, { group_id: Number(params.group_id), group_name: name, member_count: 3, max_member_count: 200 }) : this.reply(ws, m.echo, null, 1404);
      }
      default:
        return this.reply(ws, m.echo, null, 1404);
    }
  }

  private post(event: Record<string, unknown>): void {
    for (const ws of this.sockets) if (ws.readyState === 1) ws.send(JSON.stringify(event));
  }

  private raw(message: Seg[] | string): string {
    if (typeof message === 'string') return message;
    return message.map((s) => (s.type === 'text' ? String(s.data.text) : `[CQ:${s.type}${Object.entries(s.data).map(([k, v]) => `,${k}=${v}`).join('')}]`)).join('');
  }

  /** Posts a private message event from `user`; returns its message_id. */
  pushPrivate(user: FakeQqUser, message: Seg[] | string): number {
    const id = this.nextMessage++;
    this.messages.set(id, { sender: { user_id: user.user_id, nickname: user.nickname }, message, message_type: 'private' });
    this.post({ time: Math.floor(Date.now() / 1000), self_id: this.selfId, post_type: 'message', message_type: 'private', sub_type: 'friend', message_id: id, user_id: user.user_id, message, raw_message: this.raw(message), font: 0, sender: { user_id: user.user_id, nickname: user.nickname, sex: 'unknown', age: 0 } });
    return id;
  }

  /** Posts a group message event; returns its message_id. */
  pushGroup(groupId: number, user: FakeQqUser, message: Seg[] | string): number {
    const id = this.nextMessage++;
    this.messages.set(id, { sender: { user_id: user.user_id, nickname: user.nickname }, message, message_type: 'group' });
    this.post({ time: Math.floor(Date.now() / 1000), self_id: this.selfId, post_type: 'message', message_type: 'group', sub_type: 'normal', message_id: id, group_id: groupId, user_id: user.user_id, anonymous: null, message, raw_message: this.raw(message), font: 0, sender: { user_id: user.user_id, nickname: user.nickname, card: user.card ?? '', role: 'member' } });
    return id;
  }

  /** Posts any event (meta, notice, malformed …). */
  postRaw(event: Record<string, unknown>): void {
    this.post(event);
  }

  /** The next call(s) of `action` fail with `retcode`. */
  failNext(action: string, retcode = 100, times = 1): void {
    this.fails.set(action, [...(this.fails.get(action) ?? []), ...Array(times).fill(retcode)]);
  }

  /** Drops every connection (the implementation restarted). */
  dropAll(): void {
    for (const ws of this.sockets) ws.terminate();
  }

  /** Sent messages (send_*_msg actions), in order. */
  sent(): ActionRecord[] {
    return this.actions.filter((a) => a.action.startsWith('send_'));
  }

  /** Resolves when `cond` holds (checked on every frame and connection). */
  waitFor(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
    if (cond()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`timed out waiting for ${what}`));
      }, ms);
      const check = () => {
        if (!cond()) return;
        clearTimeout(timer);
        this.listeners.delete(check);
        resolve();
      };
      this.listeners.add(check);
    });
  }

  async close(): Promise<void> {
    for (const ws of this.sockets) ws.terminate();
    this.wss?.close();
    const s = this.server;
    if (s) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  }
}
