import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake Telegram Bot API server on 127.0.0.1 for tests, speaking the real HTTP shapes
 * (https://core.telegram.org/bots/api): `POST /bot<token>/<method>` with JSON, form or multipart
 * bodies; answers `{ok:true, result}` or `{ok:false, error_code, description, parameters?}`.
 * getUpdates honours `offset` (confirming earlier updates) and `timeout` (a real long poll that
 * returns as soon as an update arrives; a second concurrent poll ends the first with 409). Sends to
 * a chat that never wrote to the bot fail with 400 "chat not found"; text over 4096 and captions
 * over 1024 characters fail like Telegram's. Files registered with `addFile` are served by getFile
 * and `GET /file/bot<token>/<path>`. `failNext` scripts a 429 with `retry_after`, a 500, or any
 * error; a wrong token gets 401.
 */

export interface FakeUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
}

export interface SentRecord {
  method: string;
  chatId: string;
  text?: string;
  caption?: string;
  file?: { name: string; type: string; bytes: Buffer } | string;
  at: number;
}

interface Waiter {
  res: ServerResponse;
  timer: NodeJS.Timeout;
  offset: number;
}

export interface FakeBotApi {
  url: string;
  token: string;
  /** Every method call, in order (method and parsed params; multipart files as summaries). */
  calls: { method: string; params: Record<string, unknown> }[];
  /** HTTP requests received, refused ones included. */
  requests(): number;
  /** Messages and media the bot sent. */
  sent: SentRecord[];
  /** Update ids confirmed by an offset so far (the highest confirmed + 1). */
  confirmedOffset(): number;
  /** Queues an update from `from` in their private chat; returns its update_id. */
  pushMessage(from: FakeUser, message: Record<string, unknown>, chat?: { id: number; type: string; title?: string }): number;
  /** Queues a raw update (malformed ones too). */
  pushRaw(update: Record<string, unknown>): void;
  /** A file Telegram would hold: getFile gives `path`, the download gives `bytes`. */
  addFile(fileId: string, bytes: Buffer, path?: string): void;
  /** The next call(s) of `method` fail with this status and body fields. */
  failNext(method: string, fail: { status: number; description?: string; retryAfter?: number }, times?: number): void;
  /** Makes the token invalid (as if revoked in BotFather): every call gets 401. */
  revokeToken(): void;
  /** Resolves when `n` calls of `method` were made. */
  waitForCalls(method: string, n: number, ms?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeBotApi(opts: { token?: string; bot?: FakeUser } = {}): Promise<FakeBotApi> {
  const token = opts.token ?? '123456789:AAFakeTokenForTestsOnly_abcdefghijkl';
  const bot = opts.bot ?? { id: 999000, first_name: 'HomeAgent Test', username: 'homeagent_test_bot' };
  let revoked = false;
  let nextUpdate = 1;
  let nextMessage = 1;
  let confirmed = 0;
  const queue: Record<string, unknown>[] = [];
  const knownChats = new Set<string>();
  const files = new Map<string, { bytes: Buffer; path: string }>();
  const fails = new Map<string, { status: number; description?: string; retryAfter?: number }[]>();
  let waiter: Waiter | undefined;
  const calls: FakeBotApi['calls'] = [];
  const sent: SentRecord[] = [];
  const listeners = new Set<() => void>();

  const send = (res: ServerResponse, status: number, body: unknown) => {
    if (res.writableEnded) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, code: number, description: string, retryAfter?: number) =>
    send(res, code, { ok: false, error_code: code, description, ...(retryAfter !== undefined ? { parameters: { retry_after: retryAfter } } : {}) });
  const ok = (res: ServerResponse, result: unknown) => send(res, 200, { ok: true, result });

  const pending = (offset: number) => {
    // An offset confirms every update before it (Telegram forgets them).
    if (offset > confirmed) confirmed = offset;
    while (queue.length && Number(queue[0].update_id) < confirmed) queue.shift();
    return queue.filter((u) => Number(u.update_id) >= offset).slice(0, 100);
  };
  const wake = () => {
    const w = waiter;
    if (!w) return;
    const list = pending(w.offset);
    if (!list.length) return;
    waiter = undefined;
    clearTimeout(w.timer);
    ok(w.res, list);
  };

  async function params(req: IncomingMessage, url: URL): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const out: Record<string, unknown> = Object.fromEntries(url.searchParams);
    const type = req.headers['content-type'] ?? '';
    if (type.startsWith('application/json') && body.length) Object.assign(out, JSON.parse(body.toString('utf8')));
    else if (type.startsWith('application/x-www-form-urlencoded')) Object.assign(out, Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
    else if (type.startsWith('multipart/form-data')) {
      const form = await new Response(body, { headers: { 'content-type': type } }).formData();
      const entries: [string, FormDataEntryValue][] = [];
      form.forEach((v, k) => void entries.push([k, v]));
      for (const [k, v] of entries) out[k] = typeof v === 'string' ? v : { name: v.name, type: v.type, bytes: Buffer.from(await v.arrayBuffer()) };
    }
    return out;
  }

  const message = (chatId: string, extra: Record<string, unknown>) => ({ message_id: nextMessage++, date: Math.floor(Date.now() / 1000), chat: { id: Number(chatId), type: 'private' }, from: { id: bot.id, is_bot: true, first_name: bot.first_name, username: bot.username }, ...extra });

  let requests = 0;
  const server = createServer(async (req, res) => {
    requests++;
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (fileMatch) {
      if (fileMatch[1] !== token || revoked) return error(res, 401, 'Unauthorized');
      const f = [...files.values()].find((x) => x.path === decodeURIComponent(fileMatch[2]));
      if (!f) return error(res, 404, 'Not Found');
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(f.bytes.length) });
      return res.end(f.bytes);
    }
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!m) return error(res, 404, 'Not Found');
    if (m[1] !== token || revoked) return error(res, 401, 'Unauthorized');
    const method = m[2];
    let p: Record<string, unknown>;
    try {
      p = await params(req, url);
    } catch {
      return error(res, 400, "Bad Request: can't parse request body");
    }
    calls.push({ method, params: p });
    for (const l of [...listeners]) l();
    const f = fails.get(method)?.shift();
    if (f) return error(res, f.status, f.description ?? (f.status === 429 ? `Too Many Requests: retry after ${f.retryAfter ?? 1}` : 'Internal Server Error'), f.retryAfter);
    const chatId = p.chat_id === undefined ? '' : String(p.chat_id);
    const needChat = () => {
      if (!knownChats.has(chatId)) {
        error(res, 400, 'Bad Request: chat not found');
        return false;
      }
      return true;
    };
    switch (method) {
      case 'getMe':
        return ok(res, { id: bot.id, is_bot: true, first_name: bot.first_name, username: bot.username, can_join_groups: true });
      case 'getUpdates': {
        const offset = Number(p.offset ?? 0);
        const timeout = Math.min(Number(p.timeout ?? 0), 50);
        if (waiter) {
          const old = waiter;
          waiter = undefined;
          clearTimeout(old.timer);
          error(old.res, 409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running');
        }
        const list = pending(offset);
        if (list.length || timeout <= 0) return ok(res, list);
        const w: Waiter = { res, offset, timer: setTimeout(() => waiter === w && ((waiter = undefined), ok(res, [])), timeout * 1000) };
        waiter = w;
        res.on('close', () => {
          if (waiter === w) {
            clearTimeout(w.timer);
            waiter = undefined;
          }
        });
        return;
      }
      case 'sendMessage': {
        const text = String(p.text ?? '');
        if (!needChat()) return;
        if (!text.trim()) return error(res, 400, 'Bad Request: message text is empty');
        if (text.length > 4096) return error(res, 400, 'Bad Request: message is too long');
        sent.push({ method, chatId, text, at: Date.now() });
        return ok(res, message(chatId, { text }));
      }
      case 'sendPhoto':
      case 'sendDocument':
      case 'sendAudio':
      case 'sendVoice': {
        if (!needChat()) return;
        const field = method.slice(4).toLowerCase();
        const file = p[field] as SentRecord['file'] | undefined;
        if (!file) return error(res, 400, `Bad Request: there is no ${field} in the request`);
        const caption = typeof p.caption === 'string' ? p.caption : undefined;
        if (caption && caption.length > 1024) return error(res, 400, 'Bad Request: message caption is too long');
        sent.push({ method, chatId, caption, file, at: Date.now() });
        return ok(res, message(chatId, { caption, [field === 'photo' ? 'photo' : field]: field === 'photo' ? [{ file_id: `sent-${nextMessage}`, width: 1, height: 1 }] : { file_id: `sent-${nextMessage}` } }));
      }
      case 'sendChatAction':
        if (!needChat()) return;
        return ok(res, true);
      case 'getFile': {
        const f = files.get(String(p.file_id ?? ''));
        if (!f) return error(res, 400, 'Bad Request: invalid file_id');
        return ok(res, { file_id: p.file_id, file_unique_id: `u-${p.file_id}`, file_size: f.bytes.length, file_path: f.path });
      }
      default:
        return error(res, 404, 'Not Found');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    token,
    calls,
    sent,
    requests: () => requests,
    confirmedOffset: () => confirmed,
    pushMessage(from, msg, chat) {
      const c = chat ?? { id: from.id, type: 'private', first_name: from.first_name };
      if (c.type === 'private') knownChats.add(String(c.id));
      const id = nextUpdate++;
      queue.push({ update_id: id, message: { message_id: nextMessage++, date: Math.floor(Date.now() / 1000), from: { is_bot: false, ...from }, chat: c, ...msg } });
      wake();
      return id;
    },
    pushRaw(update) {
      queue.push({ update_id: nextUpdate++, ...update });
      wake();
    },
    addFile(fileId, bytes, path) {
      files.set(fileId, { bytes, path: path ?? `documents/${fileId}.bin` });
    },
    failNext(method, fail, times = 1) {
      const list = fails.get(method) ?? [];
      for (let i = 0; i < times; i++) list.push(fail);
      fails.set(method, list);
    },
    revokeToken() {
      revoked = true;
    },
    waitForCalls(method, n, ms = 15_000) {
      const count = () => calls.filter((c) => c.method === method).length;
      if (count() >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${n} ${method} calls (got ${count()})`));
        }, ms);
        const check = () => {
          if (count() >= n) {
            clearTimeout(timer);
            listeners.delete(check);
            resolve();
          }
        };
        listeners.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (waiter) clearTimeout(waiter.timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
