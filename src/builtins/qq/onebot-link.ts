import type { WebSocket } from 'ws';
import { HomeAgentError } from '../../sdk/index.js';
import type { PluginLogger } from '../../sdk/index.js';
import { channelWords, type ChannelWords } from '../shared/index.js';
import { actionResponseSchema } from './onebot-types.js';

/** An action answered `status: failed` (or a retcode other than 0). */
export class OneBotActionError extends HomeAgentError {
  /** The sentence for the page (decision 0680). */
  readonly words: ChannelWords;

  constructor(action: string, retcode: number, message: string) {
    super('ONEBOT_ACTION_FAILED', `OneBot ${action} failed (retcode ${retcode}${message ? `: ${message}` : ''})`, { details: { action, retcode } });
    this.words = channelWords('ONEBOT_ACTION_FAILED', { action, retcode, message: message || undefined });
  }
}

/** No connection to the OneBot implementation (not connected, dropped, or no answer in time). */
export class OneBotUnreachableError extends HomeAgentError {
  /** The sentence for the page (decision 0680): which of the ways of not reaching it this was. */
  readonly words: ChannelWords;

  constructor(message: string, words: ChannelWords) {
    super('ONEBOT_UNREACHABLE', message, { retryable: true });
    this.words = words;
  }
}

/** What Settings shows for QQ (`GET /api/v1/channels/qq`). */
export interface LinkState {
  status: 'off' | 'connecting' | 'listening' | 'connected' | 'retrying' | 'error';
  /** Why, in English (`waiter status` prints it). */
  detail?: string;
  /** The same as a code and its parameters, for the page to word in its language (decision 0680). */
  words?: ChannelWords;
  /** The bot's QQ number and nickname (get_login_info), once connected. */
  selfId?: string;
  nickname?: string;
  /** Forward: the URL we connect to; reverse: the URL the implementation must connect to. */
  url?: string;
  retryAt?: number;
  since: number;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  timer: NodeJS.Timeout;
  action: string;
}

/**
 * The OneBot v11 conversation over WebSockets, whichever side dialled: actions go out as
 * `{action, params, echo}` on the API socket and are matched to their answer by `echo`; events
 * (JSON objects with `post_type`) arrive on the event socket. A Universal connection is both
 * (communication/ws.md, ws-reverse.md). Frames that are not JSON objects are dropped and logged.
 */
export class OneBotLink {
  private api: WebSocket | undefined;
  private readonly events = new Set<WebSocket>();
  private readonly pending = new Map<string, Pending>();
  private n = 0;

  constructor(
    private readonly o: {
      onEvent: (event: Record<string, unknown>) => void;
      log: PluginLogger;
      actionTimeoutMs?: number;
      /** Called when the last API socket went away. */
      onApiLost?: () => void;
    },
  ) {}

  /** True while actions can be sent. */
  get ready(): boolean {
    return this.api !== undefined && this.api.readyState === 1;
  }

  /** Takes a socket for `role` (Universal = API + events); a newer API socket replaces the old one. */
  attach(ws: WebSocket, role: 'Universal' | 'API' | 'Event'): void {
    if (role !== 'Event') {
      if (this.api && this.api !== ws) this.api.close(1000, 'replaced by a newer connection');
      this.api = ws;
    }
    if (role !== 'API') this.events.add(ws);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let msg: unknown;
      try {
        msg = JSON.parse(String(data));
      } catch {
        this.o.log.warn('dropped a OneBot frame that is not JSON');
        return;
      }
      if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return;
      const m = msg as Record<string, unknown>;
      if ('post_type' in m) {
        if (this.events.has(ws)) this.o.onEvent(m);
        return;
      }
      const echo = typeof m.echo === 'string' ? m.echo : undefined;
      const p = echo ? this.pending.get(echo) : undefined;
      if (!p) return;
      this.pending.delete(echo!);
      clearTimeout(p.timer);
      const r = actionResponseSchema.safeParse(m);
      if (!r.success) p.reject(new OneBotActionError(p.action, -1, 'malformed answer'));
      else if (r.data.status === 'failed' || r.data.retcode !== 0) p.reject(new OneBotActionError(p.action, r.data.retcode, r.data.wording ?? r.data.message ?? ''));
      else p.resolve(r.data.data);
    });
    ws.on('close', () => {
      this.events.delete(ws);
      if (this.api === ws) {
        this.api = undefined;
        for (const [k, p] of this.pending) {
          clearTimeout(p.timer);
          p.reject(new OneBotUnreachableError(`OneBot connection closed before ${p.action} was answered`, channelWords('ONEBOT_CONNECTION_CLOSED')));
          this.pending.delete(k);
        }
        this.o.onApiLost?.();
      }
    });
  }

  /** Sends an action and waits for its answer (`data`). */
  call<T = unknown>(action: string, params: Record<string, unknown> = {}): Promise<T> {
    const ws = this.api;
    if (!ws || ws.readyState !== 1) return Promise.reject(new OneBotUnreachableError('not connected to the OneBot implementation (NapCat, Lagrange …)', channelWords('ONEBOT_NOT_CONNECTED')));
    const echo = `ha-${++this.n}`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(echo);
        reject(new OneBotUnreachableError(`OneBot did not answer ${action} in time`, channelWords('ONEBOT_NO_ANSWER', { action })));
      }, this.o.actionTimeoutMs ?? 15_000);
      timer.unref?.();
      this.pending.set(echo, { resolve: resolve as (v: unknown) => void, reject, timer, action });
      ws.send(JSON.stringify({ action, params, echo }), (err) => {
        if (!err) return;
        clearTimeout(timer);
        this.pending.delete(echo);
        reject(new OneBotUnreachableError(`could not send ${action}: ${err.message}`, channelWords('CHANNEL_FAILED', { reason: `could not send ${action}: ${err.message}` })));
      });
    });
  }

  /** Closes every socket and fails what waits. */
  close(): void {
    for (const ws of new Set([...this.events, ...(this.api ? [this.api] : [])])) ws.close(1000, 'HomeAgent stops');
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new OneBotUnreachableError('the QQ channel stopped', channelWords('CHANNEL_STOPPED')));
    }
    this.pending.clear();
    this.events.clear();
    this.api = undefined;
  }
}
