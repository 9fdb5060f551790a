import { HomeAgentError } from '../../sdk/index.js';
import { channelWords, type ChannelWords } from '../shared/index.js';
import { ProxyError } from '../../spec/index.js';
import type { TgFile, TgUpdate, TgUser, TgMessage } from './bot-types.js';

/**
 * The Bot API answered `ok: false` (https://core.telegram.org/bots/api#making-requests):
 * `errorCode` is its `error_code` (401 token rejected, 409 another poller or a webhook, 429 flood
 * control with `retryAfter` seconds, 400 bad request …).
 */
export class TelegramApiError extends HomeAgentError {
  constructor(
    readonly method: string,
    readonly errorCode: number,
    readonly description: string,
    readonly retryAfter?: number,
  ) {
    super(errorCode === 401 || errorCode === 404 ? 'TELEGRAM_TOKEN_REJECTED' : errorCode === 429 ? 'TELEGRAM_RATE_LIMITED' : 'TELEGRAM_API', `Telegram ${method} failed: ${errorCode} ${description}`, {
      retryable: errorCode === 429 || errorCode >= 500 || errorCode === 409,
      details: { method, errorCode, description, ...(retryAfter !== undefined ? { retryAfter } : {}) },
    });
  }

  /** The sentence for the page (decision 0680). */
  get words(): ChannelWords {
    if (this.tokenRejected) return channelWords('TELEGRAM_TOKEN_REJECTED', { method: this.method, errorCode: this.errorCode, description: this.description });
    if (this.errorCode === 429) return channelWords('TELEGRAM_RATE_LIMITED', { method: this.method, retryAfter: this.retryAfter });
    return channelWords('TELEGRAM_API', { method: this.method, errorCode: this.errorCode, description: this.description });
  }

  /** The token is wrong or revoked: retrying cannot help until the setting changes. */
  get tokenRejected(): boolean {
    return this.errorCode === 401 || this.errorCode === 404;
  }
}

/**
 * The Bot API could not be reached (DNS, refused, reset, timed out) or answered something that is
 * not the Bot API. When the request went through the outbound proxy and failed there, the message
 * is the proxy's ({@link ProxyError}: it names the proxy, which is what to fix) and
 * `details.proxyCode` its code.
 */
export class TelegramUnreachableError extends HomeAgentError {
  /** The sentence for the page: `reason` is the network's code (`ECONNREFUSED`) or what happened. */
  readonly words: ChannelWords;

  constructor(method: string, reason: string, cause?: unknown) {
    const proxy = cause instanceof ProxyError ? cause : undefined;
    super(
      'TELEGRAM_UNREACHABLE',
      proxy ? `Telegram ${method}: ${proxy.message}` : `Telegram ${method}: the Bot API is unreachable (${reason}). Check the network or the "Outbound proxy" setting (core.network.proxy), or the "Bot API server" setting.`,
      { retryable: true, details: { method, reason, ...(proxy ? { proxy: proxy.proxy, proxyCode: proxy.code } : {}) }, cause },
    );
    this.words = proxy ? channelWords('TELEGRAM_PROXY_FAILED', { method, proxy: proxy.proxy, proxyCode: proxy.code }) : channelWords('TELEGRAM_UNREACHABLE', { method, reason });
  }
}

export interface BotApiOptions {
  /** `https://api.telegram.org` (or a local Bot API server / a test fake). */
  apiRoot: string;
  token: string;
  /** Time limit of one request beyond its long-poll wait (default 20 s). */
  requestTimeoutMs?: number;
  /** The daemon's outbound `fetch` (`host.network`: through the person's proxy); default the global one. */
  fetch?: typeof fetch;
}

/** A network error message without the token (which is part of every Bot API URL). */
function reasonOf(e: unknown, token: string): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  const text = err?.name === 'TimeoutError' || err?.name === 'AbortError' ? 'timed out' : err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(e);
  return token ? String(text).split(token).join('<token>') : String(text);
}

/**
 * A small Bot API client over `fetch` (plain HTTP + JSON; multipart for uploads): the methods the
 * channel needs, typed; failures as {@link TelegramApiError} / {@link TelegramUnreachableError}.
 * The token never appears in an error message.
 */
export class TelegramBotApi {
  private readonly root: string;
  private readonly timeoutMs: number;
  private readonly doFetch: typeof fetch;

  constructor(private readonly opts: BotApiOptions) {
    this.root = opts.apiRoot.replace(/\/+$/, '');
    this.doFetch = opts.fetch ?? fetch;
    this.timeoutMs = opts.requestTimeoutMs ?? 20_000;
  }

  /** Calls a method with a JSON body (or multipart `FormData` for uploads). */
  async call<T>(method: string, params: Record<string, unknown> | FormData = {}, o: { signal?: AbortSignal; waitSeconds?: number } = {}): Promise<T> {
    const timeout = AbortSignal.timeout(this.timeoutMs + (o.waitSeconds ?? 0) * 1000);
    const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await this.doFetch(`${this.root}/bot${this.opts.token}/${method}`, {
        method: 'POST',
        ...(params instanceof FormData ? { body: params } : { body: JSON.stringify(params), headers: { 'content-type': 'application/json' } }),
        signal,
      });
    } catch (e) {
      if (o.signal?.aborted) throw e;
      throw new TelegramUnreachableError(method, reasonOf(e, this.opts.token), e);
    }
    let body: { ok?: boolean; result?: unknown; error_code?: number; description?: string; parameters?: { retry_after?: number } };
    try {
      body = (await res.json()) as typeof body;
    } catch (e) {
      throw new TelegramUnreachableError(method, `HTTP ${res.status} without a Bot API answer`, e);
    }
    if (body?.ok === true) return body.result as T;
    const code = typeof body?.error_code === 'number' ? body.error_code : res.status;
    const retry = typeof body?.parameters?.retry_after === 'number' ? body.parameters.retry_after : undefined;
    throw new TelegramApiError(method, code, String(body?.description ?? res.statusText ?? 'error'), retry);
  }

  getMe(signal?: AbortSignal): Promise<TgUser> {
    return this.call<TgUser>('getMe', {}, { signal });
  }

  /** Long polling: waits up to `timeout` seconds for updates after `offset` (confirming those before it). */
  getUpdates(offset: number | undefined, timeout: number, signal?: AbortSignal): Promise<TgUpdate[]> {
    return this.call<TgUpdate[]>('getUpdates', { ...(offset !== undefined ? { offset } : {}), timeout, allowed_updates: ['message'] }, { signal, waitSeconds: timeout });
  }

  sendMessage(chatId: number | string, text: string, signal?: AbortSignal): Promise<TgMessage> {
    return this.call<TgMessage>('sendMessage', { chat_id: chatId, text, link_preview_options: { is_disabled: true } }, { signal });
  }

  sendChatAction(chatId: number | string, action: 'typing' | 'upload_photo' | 'upload_document'): Promise<boolean> {
    return this.call<boolean>('sendChatAction', { chat_id: chatId, action });
  }

  /**
   * Uploads a photo, document, audio or voice message: `file` is bytes (sent as multipart) or an
   * http(s) URL that Telegram fetches itself. `caption` at most 1024 characters.
   */
  sendMedia(kind: 'photo' | 'document' | 'audio' | 'voice', chatId: number | string, file: { bytes: Uint8Array; name: string; mimeType: string } | string, caption?: string): Promise<TgMessage> {
    const method = { photo: 'sendPhoto', document: 'sendDocument', audio: 'sendAudio', voice: 'sendVoice' }[kind];
    const form = new FormData();
    form.set('chat_id', String(chatId));
    if (caption) form.set('caption', caption);
    if (typeof file === 'string') form.set(kind, file);
    else form.set(kind, new Blob([new Uint8Array(file.bytes)], { type: file.mimeType }), file.name);
    return this.call<TgMessage>(method, form);
  }

  getFile(fileId: string, signal?: AbortSignal): Promise<TgFile> {
    return this.call<TgFile>('getFile', { file_id: fileId }, { signal });
  }

  /** Downloads `file_path` from getFile, refusing more than `maxBytes`. */
  async download(filePath: string, maxBytes: number, signal?: AbortSignal): Promise<Uint8Array> {
    const timeout = AbortSignal.timeout(this.timeoutMs * 3);
    const sig = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await this.doFetch(`${this.root}/file/bot${this.opts.token}/${filePath.split('/').map(encodeURIComponent).join('/')}`, { signal: sig });
    } catch (e) {
      throw new TelegramUnreachableError('file download', reasonOf(e, this.opts.token), e);
    }
    if (!res.ok || !res.body) throw new TelegramApiError('file download', res.status, res.statusText || 'download failed');
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body.cancel().catch(() => {});
      throw new HomeAgentError('TELEGRAM_FILE_TOO_LARGE', `the file is ${Math.ceil(declared / 1048576)} MB; the limit is ${Math.floor(maxBytes / 1048576)} MB`, { details: { bytes: declared, maxBytes } });
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new HomeAgentError('TELEGRAM_FILE_TOO_LARGE', `the file is larger than ${Math.floor(maxBytes / 1048576)} MB`, { details: { maxBytes } });
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks);
  }
}
