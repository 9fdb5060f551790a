import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { HomeAgentError, ValidationError } from '../../sdk/index.js';
import type { OutputMessage, PluginLogger } from '../../sdk/index.js';
import { Backoff, sendableFile, sleep } from '../shared/index.js';
import { TelegramApiError, TelegramUnreachableError, type TelegramBotApi } from './bot-api.js';
import { TELEGRAM_LIMITS } from './bot-types.js';

export interface OutputDeps {
  api: () => TelegramBotApi | undefined;
  allowed: () => ReadonlySet<string>;
  /** The owner's chat for proactive messages (`notify_chat_id`, else the owner's own Telegram id; never someone else's). */
  ownerChat: () => string | undefined;
  /** The data folder: the only place a file path payload may point into. */
  homeDir: string;
  log: PluginLogger;
  /** Retries of one send on 429 / network errors (default 3). */
  retries?: number;
}

/** No chat to send to, or a target outside the allowlist. */
export class TelegramTargetError extends HomeAgentError {
  constructor(message: string) {
    super('TELEGRAM_NO_TARGET', message);
  }
}

/** Cuts `text` at a word boundary at or before `limit`: [head, rest]. */
export function cutAtWord(text: string, limit: number): [string, string] {
  if (text.length <= limit) return [text, ''];
  let i = text.lastIndexOf('\n', limit);
  if (i < limit * 0.5) i = text.lastIndexOf(' ', limit);
  if (i < limit * 0.5) i = limit;
  const code = text.charCodeAt(i - 1);
  if (code >= 0xd800 && code <= 0xdbff) i--;
  return [text.slice(0, i).trimEnd(), text.slice(i).trimStart()];
}

/**
 * The `telegram` output channel (P-6): where a message goes and how. Target: `meta.chatId`, else
 * the chat of the session (`telegram:<chatId>`), else — a proactive message or one sent from
 * another session — the owner's chat. Only private chats of allowlisted users are ever written to,
 * so a prompt-injected `output_send__telegram` cannot message strangers. Text arrives already split
 * at 4096 characters (the kernel splits by `maxMessageLength`); a caption longer than 1024 goes
 * with the media's first 1024 characters and the rest follows as text. A payload for media is an
 * http(s) URL (Telegram fetches it), a file inside the data folder, or base64.
 */
export function telegramOutput(d: OutputDeps): (msg: OutputMessage) => Promise<void> {
  const retries = d.retries ?? 3;
  const withRetry = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    const backoff = new Backoff(500, 10_000);
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (e) {
        const retryable = (e instanceof TelegramApiError && (e.errorCode === 429 || e.errorCode >= 500)) || e instanceof TelegramUnreachableError;
        if (!retryable || attempt >= retries) throw e;
        const wait = backoff.next(e instanceof TelegramApiError && e.retryAfter !== undefined ? e.retryAfter * 1000 : undefined);
        d.log.warn(`Telegram ${what} failed; retrying in ${Math.round(wait / 1000)} s`, { error: (e as Error).message });
        await sleep(wait);
      }
    }
  };

  const target = (msg: OutputMessage): string => {
    const allowed = d.allowed();
    const explicit = msg.meta.chatId;
    if (explicit !== undefined && explicit !== null && explicit !== '') {
      const id = String(explicit);
      if (!allowed.has(id)) throw new TelegramTargetError(`Telegram chat ${id.slice(0, 30)} is not an allowed user's chat (plugin.telegram.allowed_user_ids)`);
      return id;
    }
    const m = /^telegram:(\d{1,20})$/.exec(msg.sessionId);
    if (m && allowed.has(m[1])) return m[1];
    if (m && !msg.meta.proactive) throw new TelegramTargetError(`Telegram chat ${m[1]} is no longer on the allowlist`);
    const owner = d.ownerChat();
    if (!owner) throw new TelegramTargetError('no Telegram chat of yours to send to: mark your Telegram id as yours (Settings → People) or set "Chat for notices"');
    return owner;
  };

  const media = async (msg: OutputMessage): Promise<{ bytes: Uint8Array; name: string; mimeType: string } | string> => {
    const p = msg.payload.trim();
    const mimeType = typeof msg.meta.mimeType === 'string' ? msg.meta.mimeType : msg.type === 'image' ? 'image/png' : msg.type === 'audio' ? 'audio/mpeg' : 'application/octet-stream';
    const name = typeof msg.meta.name === 'string' && msg.meta.name ? basename(msg.meta.name) : `${msg.type}-${Date.now()}`;
    if (/^https?:\/\//i.test(p)) return p;
    if (p.startsWith('/') || p.startsWith('~') || /^[A-Za-z]:\\/.test(p)) {
      // A path: only inside the media folder and never a secret (decision 0360), so an injected
      // instruction cannot send ~/.ssh or the data folder's auth-token to a chat.
      const real = await sendableFile(d.homeDir, p, 'Telegram');
      return { bytes: await readFile(real), name: basename(real), mimeType };
    }
    if (!/^[A-Za-z0-9+/=\s_-]+$/.test(p)) throw new ValidationError('the payload of an image, file or audio message must be an http(s) URL, a file in the media folder, or base64');
    const bytes = Buffer.from(p, 'base64');
    if (bytes.length === 0) throw new ValidationError('the payload is empty');
    return { bytes, name, mimeType };
  };

  return async (msg) => {
    const api = d.api();
    if (!api) throw new TelegramTargetError('Telegram is not connected (no bot token)');
    const chat = target(msg);
    if (msg.type === 'text') {
      // Normally ≤ 4096 already; a direct caller may pass more.
      let rest = msg.payload;
      while (rest) {
        const [head, tail] = cutAtWord(rest, TELEGRAM_LIMITS.text);
        await withRetry('sendMessage', () => api.sendMessage(chat, head));
        rest = tail;
      }
      return;
    }
    const file = await media(msg);
    const [caption, more] = cutAtWord(typeof msg.meta.caption === 'string' ? msg.meta.caption : '', TELEGRAM_LIMITS.caption);
    const kind = msg.type === 'image' ? 'photo' : msg.type === 'audio' ? (typeof file !== 'string' && /ogg|opus/.test(file.mimeType) ? 'voice' : 'audio') : 'document';
    await withRetry(`send ${kind}`, () => api.sendMedia(kind, chat, file, caption || undefined));
    let rest = more;
    while (rest) {
      const [head, tail] = cutAtWord(rest, TELEGRAM_LIMITS.text);
      await withRetry('sendMessage', () => api.sendMessage(chat, head));
      rest = tail;
    }
  };
}
