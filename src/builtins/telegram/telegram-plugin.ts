import { join } from 'node:path';
import { z } from 'zod';
import { Cap, definePlugin } from '../../sdk/index.js';
import { errorToJSON } from '../../spec/index.js';
import type { ConfigKeyDef, Disposer, PluginDefinition, PluginSDK } from '../../sdk/index.js';
import { channelWords, jsonOk, noticeTarget, ownerPlatformIds, platformUserId, platformUserList, safeHandler, testFailure, type NoticeTarget } from '../shared/index.js';
import { TelegramBotApi } from './bot-api.js';
import { TELEGRAM_LIMITS } from './bot-types.js';
import { handleUpdate } from './telegram-inbound.js';
import { telegramOutput } from './telegram-output.js';
import { TelegramPoller, type PollerState } from './telegram-poller.js';

/** A Telegram user id; "telegram:42", the form of owner ids, is stored as "42". */
const userId = platformUserId('telegram', '\\d{1,20}', 'a Telegram user id is a number such as "123456789" (or "telegram:123456789", as in your own ids)');

const settings: Record<string, ConfigKeyDef> = {
  bot_token: {
    default: '',
    description: 'Bot token from @BotFather ("123456:ABC…"); empty = Telegram is off',
    schema: z.string().max(200).regex(/^$|^\d{1,20}:[A-Za-z0-9_-]{20,}$/, 'a bot token looks like 123456789:AAH…'),
    secret: true,
    env: 'HOMEAGENT_TELEGRAM_BOT_TOKEN',
    privileged: true,
  },
  allowed_user_ids: {
    default: [],
    description: 'Telegram user ids allowed to talk to the agent in private chats (everyone else gets one polite refusal and nothing of theirs is kept)',
    schema: platformUserList(userId),
    privileged: true,
  },
  notify_chat_id: {
    default: '',
    description: 'Chat that proactive messages go to when Telegram is the default channel ("" = your own Telegram id, from Settings → People or core.identity.owner_ids; with none they stay in the WebUI)',
    schema: z.union([z.literal(''), userId]),
    privileged: true,
  },
  api_root: {
    default: 'https://api.telegram.org',
    description: 'Bot API server (a local telegram-bot-api server, or the official one)',
    schema: z.url({ protocol: /^https?$/ }),
    env: 'HOMEAGENT_TELEGRAM_API_ROOT',
    privileged: true,
  },
  poll_timeout_s: { default: 30, description: 'Long-polling wait of getUpdates, in seconds', schema: z.number().int().min(1).max(50) },
  max_file_mb: { default: 20, description: 'Largest photo, voice message or file downloaded from Telegram, in MB (Telegram allows bots 20)', schema: z.number().int().min(1).max(20) },
};

/** Status of the channel as Settings shows it. */
export interface TelegramStatus extends PollerState {
  configured: boolean;
  allowedUsers: number;
  /** Where notices go when Telegram is the default channel (decision 0650). */
  notices: NoticeTarget;
}

/**
 * Builds the `telegram` channel plugin: a Bot API long-polling client for private chats with
 * an allowlist, the `telegram` output channel (text, images, files, audio; push), and the routes
 * `GET /api/v1/channels/telegram` (status) and `POST /api/v1/channels/telegram/test` (getMe with
 * the saved settings). Idle until a bot token is set; a change of token or server reconnects.
 */
export function createTelegramPlugin(opts: { pollerOptions?: { conflictWaitMs?: number } } = {}): PluginDefinition & { status(): TelegramStatus | undefined } {
  let status: (() => TelegramStatus) | undefined;
  const def = definePlugin({
    name: 'telegram',
    description: 'Telegram channel: private chats with the agent through a bot',
    settings,
    start(sdk: PluginSDK) {
      const s = sdk.settings();
      const allowed = () => new Set(s.get<string[]>('allowed_user_ids'));
      const refused = new Set<string>();
      let poller: TelegramPoller | undefined;
      let api: TelegramBotApi | undefined;
      let offChannel: Disposer | undefined;
      let idle: PollerState = { status: 'idle', detail: 'no bot token: paste it into "Bot token"', words: channelWords('TELEGRAM_NO_TOKEN'), since: Date.now() };
      const makeApi = () => new TelegramBotApi({ apiRoot: s.get<string>('api_root'), token: s.get<string>('bot_token'), fetch: sdk.use('host.network')?.fetch });
      const notices = () => noticeTarget(s.get<string>('notify_chat_id'), ownerPlatformIds(sdk, 'telegram'), allowed());
      status = () => ({ ...(poller?.state ?? idle), configured: !!s.get<string>('bot_token'), allowedUsers: allowed().size, notices: notices() });

      const disconnect = async () => {
        const p = poller;
        poller = undefined;
        api = undefined;
        offChannel?.();
        offChannel = undefined;
        await p?.stop();
      };
      const connect = () => {
        if (!s.get<string>('bot_token')) {
          idle = { status: 'idle', detail: 'no bot token: paste it into "Bot token"', words: channelWords('TELEGRAM_NO_TOKEN'), since: Date.now() };
          return;
        }
        api = makeApi();
        const client = api;
        offChannel = sdk.registerOutputChannel(
          'telegram',
          Cap.Text | Cap.Image | Cap.File | Cap.Audio,
          "Telegram private chats with the owner and the people they allowed. meta {} answers the current chat (or the owner's chat).",
          telegramOutput({ api: () => api, allowed, ownerChat: () => notices().to ?? undefined, homeDir: sdk.homeDir, log: sdk.log }),
          {
            maxMessageLength: TELEGRAM_LIMITS.text,
            push: true,
            help: 'Channel "telegram": types text, image, file, audio.\nmeta: {} = the chat of this session, or the owner\'s chat; {"chatId": "<user id>"} = the private chat of an allowed user.\nimage/file/audio payload: an http(s) URL, a file inside the data folder, or base64; meta.caption (up to 1024 characters, more follows as text), meta.name, meta.mimeType.\nText longer than 4096 characters is split.',
          },
        );
        poller = new TelegramPoller({
          api: client,
          pollSeconds: s.get<number>('poll_timeout_s'),
          offsetFile: join(sdk.dataDir, 'offset.json'),
          log: sdk.log,
          ...opts.pollerOptions,
          onUpdate: (u) =>
            handleUpdate(u, {
              api: client,
              allowed,
              maxFileBytes: () => s.get<number>('max_file_mb') * 1024 * 1024,
              filesDir: join(sdk.homeDir, 'media', 'telegram'),
              refused,
              inject: (input) => sdk.injectInput(input).accepted,
              log: sdk.log,
            }),
        });
        poller.start();
      };

      let chain: Promise<void> = Promise.resolve();
      const reconnect = () => {
        chain = chain.then(async () => {
          await disconnect();
          connect();
        });
        return chain;
      };
      connect();
      sdk.onDispose(s.onChange((key) => {
        if (key === 'bot_token' || key === 'api_root' || key === 'poll_timeout_s') void reconnect();
      }));
      sdk.onDispose(() => disconnect());

      sdk.registerRoute({ method: 'GET', path: '/api/v1/channels/telegram', handler: safeHandler(() => jsonOk(status!())) });
      sdk.registerRoute({
        method: 'POST',
        path: '/api/v1/channels/telegram/test',
        handler: safeHandler(async () => {
          if (!s.get<string>('bot_token')) return jsonOk({ ok: false, error: { code: 'TELEGRAM_NOT_CONFIGURED', message: 'no bot token: paste it into "Bot token" first', words: channelWords('TELEGRAM_NOT_CONFIGURED') } });
          const started = Date.now();
          try {
            const me = await makeApi().getMe(AbortSignal.timeout(15_000));
            return jsonOk({ ok: true, latencyMs: Date.now() - started, bot: { id: me.id, username: me.username, name: me.first_name } });
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

/** The Telegram channel plugin. */
export const telegramPlugin = createTelegramPlugin();
