import { z } from 'zod';
import { createRequire } from 'node:module';
import { Cap, definePlugin } from '../../sdk/index.js';
import type { ConfigKeyDef, Disposer, PluginDefinition, PluginSDK } from '../../sdk/index.js';
import { errorToJSON } from '../../spec/index.js';
import { channelWords, jsonOk, noticeTarget, ownerPlatformIds, platformUserId, platformUserList, safeHandler, testFailure, type NoticeTarget } from '../shared/index.js';
import { OneBotLink, OneBotUnreachableError, type LinkState } from './onebot-link.js';
import { OneBotTokenRejectedError } from './onebot-token-rejected-error.js';
import { ForwardClient, ReverseServer, type OneBotTransport } from './onebot-transports.js';
import { handleEvent, RecentIds, type Trigger } from './qq-inbound.js';
import { qqOutput } from './qq-output.js';
import { SendPacer, SlidingWindowLimiter } from './rate-limit.js';

const qqId = z.string().regex(/^\d{5,12}$/, 'a QQ number or group number such as "123456789"');
/** A person's QQ number; "qq:10001", the form of owner ids, is stored as "10001". */
const qqUser = platformUserId('qq', '\\d{5,12}', 'a QQ number such as "123456789" (or "qq:123456789", as in your own ids)');

const settings: Record<string, ConfigKeyDef> = {
  mode: {
    default: 'off',
    description: 'How HomeAgent reaches the OneBot v11 implementation (NapCat, Lagrange): off; forward = we connect to its WebSocket server; reverse = it connects to ours',
    schema: z.enum(['off', 'forward', 'reverse']),
    privileged: true,
  },
  ws_url: { default: 'ws://127.0.0.1:3001', description: 'Forward mode: the WebSocket server of NapCat / Lagrange (its "/" endpoint)', schema: z.url({ protocol: /^wss?$/, error: 'a WebSocket URL, ws:// or wss://, such as "ws://127.0.0.1:3001"' }), privileged: true },
  reverse_host: { default: '127.0.0.1', description: 'Reverse mode: address HomeAgent listens on for the implementation (keep loopback unless it runs on another machine)', schema: z.string().min(1).max(255), privileged: true },
  reverse_port: { default: 8766, description: 'Reverse mode: port HomeAgent listens on (0 = any free port)', schema: z.number().int().min(0).max(65_535), privileged: true },
  reverse_path: { default: '/onebot/v11/ws', description: 'Reverse mode: path of the WebSocket URL', schema: z.string().regex(/^\/[A-Za-z0-9/_.-]{0,200}$/), privileged: true },
  access_token: {
    default: '',
    description: 'OneBot access token, the same as in NapCat / Lagrange (required in reverse mode)',
    schema: z.string().max(500),
    secret: true,
    env: 'HOMEAGENT_QQ_ACCESS_TOKEN',
    privileged: true,
  },
  allowed_user_ids: { default: [], description: 'QQ numbers allowed to chat with the agent privately (others get one polite refusal and nothing of theirs is kept)', schema: platformUserList(qqUser), privileged: true },
  allowed_group_ids: { default: [], description: 'Groups where the agent answers when @-mentioned or replied to (it ignores and keeps nothing of the rest)', schema: z.array(qqId).max(1000), privileged: true },
  notify_target: { default: '', description: 'Where proactive messages go when QQ is the default channel: "private:<QQ>" or "group:<group>" ("" = your own QQ number, from Settings → People or core.identity.owner_ids; with none they stay in the WebUI)', schema: z.string().regex(/^$|^(private|group):\d{5,12}$/, '"private:<QQ number>" or "group:<group number>", such as "private:123456789", or "" for your own QQ number'), privileged: true },
  max_message_chars: { default: 3000, description: 'Longest QQ message; longer replies are split', schema: z.number().int().min(100).max(10_000) },
  send_interval_ms: { default: 1000, description: 'Least time between two messages sent to QQ (risk control)', schema: z.number().int().min(0).max(60_000) },
  messages_per_minute: { default: 20, description: 'Messages per chat per minute the agent takes; more are dropped', schema: z.number().int().min(1).max(1000) },
  max_image_mb: { default: 10, description: 'Largest image downloaded from QQ, in MB', schema: z.number().int().min(1).max(50) },
};

/** Status of the channel as Settings shows it. */
export interface QqStatus extends LinkState {
  mode: string;
  allowedUsers: number;
  allowedGroups: number;
  /** Where notices go when QQ is the default channel (decision 0650): "private:<QQ>" / "group:<group>". */
  notices: NoticeTarget;
}

/**
 * Builds the `qq` channel plugin (R-4, the seed's qq plugin): OneBot v11 over a forward or reverse
 * WebSocket, private chats (allowlist) and groups (allowlist; only when @-mentioned or replied
 * to), segments in and out, per-chat limits and paced sends, reconnect with back-off; the `qq`
 * output channel (push); `GET /api/v1/channels/qq` and `POST /api/v1/channels/qq/test`.
 * Off by default; an unreachable implementation never holds up the daemon.
 */
export function createQqPlugin(): PluginDefinition & { status(): QqStatus | undefined } {
  let status: (() => QqStatus) | undefined;
  const def = definePlugin({
    name: 'qq',
    description: 'QQ channel through OneBot v11 (NapCat, Lagrange)',
    settings,
    start(sdk: PluginSDK) {
      const s = sdk.settings();
      const allowedUsers = () => new Set(s.get<string[]>('allowed_user_ids'));
      const allowedGroups = () => new Set(s.get<string[]>('allowed_group_ids'));
      const refused = new Set<string>();
      const sentIds = new RecentIds();
      const triggers = new Map<string, Trigger>();
      const groupNames = new Map<string, string | undefined>();
      const limiter = new SlidingWindowLimiter();
      const pacer = new SendPacer(() => s.get<number>('send_interval_ms'));
      let link: OneBotLink | undefined;
      let transport: OneBotTransport | undefined;
      let offChannel: Disposer | undefined;
      let state: LinkState = { status: 'off', detail: '"Connection mode" is off', words: channelWords('QQ_OFF'), since: Date.now() };
      const setState = (st: Omit<LinkState, 'since'>) => {
        state = { ...st, selfId: st.selfId ?? (st.status === 'connected' ? state.selfId : undefined), nickname: st.nickname ?? (st.status === 'connected' ? state.nickname : undefined), since: Date.now() };
      };
      const notices = (): NoticeTarget => {
        const t = noticeTarget(s.get<string>('notify_target'), ownerPlatformIds(sdk, 'qq'), allowedUsers());
        return t.by === 'owner' ? { to: `private:${t.to}`, by: 'owner' } : t;
      };
      status = () => ({ ...state, mode: s.get<string>('mode'), allowedUsers: allowedUsers().size, allowedGroups: allowedGroups().size, notices: notices() });
      sdk.onDispose(sdk.subscribe('turn_end', (e) => void triggers.delete(e.turnId)));

      const connect = async () => {
        const mode = s.get<string>('mode');
        if (mode === 'off') {
          setState({ status: 'off', detail: '"Connection mode" is off', words: channelWords('QQ_OFF') });
          return;
        }
        const l = new OneBotLink({
          log: sdk.log,
          onEvent: (ev) =>
            void handleEvent(ev, {
              link: l,
              allowedUsers,
              allowedGroups,
              limiter,
              perMinute: () => s.get<number>('messages_per_minute'),
              refused,
              sentIds,
              maxImageBytes: () => s.get<number>('max_image_mb') * 1024 * 1024,
              inject: (input) => sdk.injectInput(input),
              onTurn: (turnId, t) => {
                triggers.set(turnId, t);
                if (triggers.size > 1000) triggers.delete(triggers.keys().next().value!);
              },
              refuse: (userId) =>
                pacer.run(() => l.call('send_private_msg', { user_id: Number(userId), message: [{ type: 'text', data: { text: `Sorry — this is a private assistant and only talks with the people its owner allowed.\n抱歉，这是私人助理，只和主人允许的人对话。\n(Your QQ number: ${userId}. If this is your own HomeAgent, add it under Settings → Channels → QQ. 如果这是你自己的 HomeAgent，请在 设置 → 渠道 → QQ 中添加这个号码。)` } }] })).then(() => {}),
              groupTitle: async (gid) => {
                if (!groupNames.has(gid)) groupNames.set(gid, (await l.call<{ group_name?: string }>('get_group_info', { group_id: Number(gid) }).catch(() => undefined))?.group_name);
                return groupNames.get(gid);
              },
              log: sdk.log,
            }).catch((e) => sdk.log.error('handling a OneBot event failed', { error: (e as Error).message })),
          onApiLost: () => {
            if (state.status === 'connected') setState({ status: 'connecting', url: state.url, detail: 'the OneBot connection closed', words: channelWords('ONEBOT_CONNECTION_CLOSED') });
          },
        });
        link = l;
        const onConnected = async (hint?: string) => {
          const info = await l.call<{ user_id?: number | string; nickname?: string }>('get_login_info');
          const selfId = String(info?.user_id ?? hint ?? '');
          setState({ status: 'connected', url: state.url, selfId, nickname: info?.nickname, detail: `connected as ${info?.nickname ?? ''} (${selfId})`, words: channelWords('ONEBOT_CONNECTED', { nickname: info?.nickname ?? '', selfId }) });
          sdk.log.info(`QQ connected as ${selfId}`);
        };
        const token = s.get<string>('access_token');
        transport =
          mode === 'forward'
            ? new ForwardClient({ link: l, token, log: sdk.log, onConnected, onState: setState, url: s.get<string>('ws_url') })
            : new ReverseServer({ link: l, token, log: sdk.log, onConnected, onState: setState, host: s.get<string>('reverse_host'), port: s.get<number>('reverse_port'), path: s.get<string>('reverse_path') });
        offChannel = sdk.registerOutputChannel(
          'qq',
          Cap.Text | Cap.Image | Cap.Audio,
          'QQ private chats and groups (through NapCat / Lagrange). meta {} answers the current chat (or the owner).',
          qqOutput({ link: () => link, allowedUsers, allowedGroups, notifyTarget: () => notices().to ?? '', pacer, triggers, sentIds, homeDir: sdk.homeDir, log: sdk.log }),
          {
            maxMessageLength: s.get<number>('max_message_chars'),
            push: true,
            help: 'Channel "qq": types text, image, audio.\nmeta: {} = the chat of this session, or the owner; {"userId": "<QQ>"} = an allowed user\'s private chat; {"groupId": "<group>"} = an allowed group.\nIn text, [face:ID] sends a QQ face and [at:QQ] mentions someone.\nimage/audio payload: an http(s) URL, a file inside the data folder, or base64; meta.caption goes with an image.',
          },
        );
        await transport.start();
      };
      const disconnect = async () => {
        offChannel?.();
        offChannel = undefined;
        const t = transport;
        transport = undefined;
        await t?.stop();
        link?.close();
        link = undefined;
      };
      const failed = (e: unknown) => setState({ status: 'error', detail: (e as Error).message, words: channelWords('CHANNEL_FAILED', { reason: (e as Error).message }) });
      let chain: Promise<void> = connect().catch(failed);
      const reconnect = () => {
        chain = chain.then(async () => {
          await disconnect();
          await connect().catch(failed);
        });
      };
      const RECONNECT_KEYS = new Set(['mode', 'ws_url', 'reverse_host', 'reverse_port', 'reverse_path', 'access_token', 'max_message_chars']);
      sdk.onDispose(s.onChange((key) => RECONNECT_KEYS.has(key) && reconnect()));
      sdk.onDispose(async () => {
        await chain;
        await disconnect();
      });

      sdk.registerRoute({ method: 'GET', path: '/api/v1/channels/qq', handler: safeHandler(() => jsonOk(status!())) });
      sdk.registerRoute({
        method: 'POST',
        path: '/api/v1/channels/qq/test',
        handler: safeHandler(async () => {
          const mode = s.get<string>('mode');
          if (mode === 'off') return jsonOk({ ok: false, error: { code: 'QQ_NOT_CONFIGURED', message: '"Connection mode" is off: choose forward or reverse first', words: channelWords('QQ_NOT_CONFIGURED') } });
          const started = Date.now();
          try {
            let info: { user_id?: number | string; nickname?: string } | undefined;
            if (link?.ready) info = await link.call('get_login_info');
            else if (mode === 'forward') info = await probeForward(s.get<string>('ws_url'), s.get<string>('access_token'));
            else return jsonOk({ ok: false, error: { code: 'ONEBOT_UNREACHABLE', message: `no OneBot implementation is connected; point NapCat / Lagrange's reverse WebSocket at ${state.url ?? 'the address in these settings'} with the same access token`, words: channelWords('ONEBOT_REVERSE_WAITING', { url: state.url }) } });
            return jsonOk({ ok: true, latencyMs: Date.now() - started, selfId: String(info?.user_id ?? ''), nickname: info?.nickname });
          } catch (e) {
            const j = errorToJSON(e);
            return jsonOk({ ok: false, latencyMs: Date.now() - started, error: testFailure(e, j.code, j.message) });
          }
        }),
      });
    },
  });
  return Object.assign(def, { status: () => status?.() });
}

/** One connection to a forward WebSocket: get_login_info, then close (the connection test). */
function probeForward(url: string, token: string): Promise<{ user_id?: number | string; nickname?: string }> {
  return new Promise((resolve, reject) => {
    // ws is required here, on a connection test, not at daemon start (docs/decisions/0020).
    const { WebSocket } = createRequire(import.meta.url)('ws') as typeof import('ws');
    const ws = new WebSocket(url, { headers: token ? { Authorization: `Bearer ${token}` } : {}, handshakeTimeout: 10_000 });
    const fail = (e: Error) => {
      ws.terminate();
      reject(e);
    };
    const timer = setTimeout(() => fail(new OneBotUnreachableError('no answer to get_login_info within 10 s', channelWords('ONEBOT_NO_ANSWER', { action: 'get_login_info' }))), 10_000);
    ws.once('unexpected-response', (_q, res) => {
      clearTimeout(timer);
      res.resume();
      ws.on('error', () => {});
      const rejected = res.statusCode === 401 || res.statusCode === 403;
      fail(rejected ? new OneBotTokenRejectedError(res.statusCode ?? 401) : new OneBotUnreachableError(`HTTP ${res.statusCode} from ${url}`, channelWords('ONEBOT_CANNOT_REACH', { url, reason: `HTTP ${res.statusCode}` })));
    });
    ws.once('error', (e: Error & { code?: string }) => {
      clearTimeout(timer);
      reject(new OneBotUnreachableError(`cannot reach ${url} (${e.code ?? e.message})`, channelWords('ONEBOT_CANNOT_REACH', { url, reason: e.code ?? e.message })));
    });
    ws.once('open', () => ws.send(JSON.stringify({ action: 'get_login_info', params: {}, echo: 'ha-test' })));
    ws.on('message', (data) => {
      try {
        const m = JSON.parse(String(data)) as { echo?: unknown; data?: { user_id?: number; nickname?: string } };
        if (m.echo !== 'ha-test') return;
        clearTimeout(timer);
        ws.close();
        resolve(m.data ?? {});
      } catch {}
    });
  });
}

/** The QQ channel plugin. */
export const qqPlugin = createQqPlugin();
