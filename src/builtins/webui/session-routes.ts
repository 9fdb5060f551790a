import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Hono } from 'hono';
import { z } from 'zod';
import { ConflictError, HomeAgentError, NotFoundError, ValidationError, type SessionEvent, type SessionsAPI } from '../../sdk/index.js';
import { json, readJson, ServiceUnavailableError } from './http-json.js';
import { checkSessionId, parseBody } from './chat-routes.js';
import { exportFileName, sessionMarkdown } from './session-markdown.js';
import { realPath, within } from './static-files.js';
import type { WebuiContext } from './webui-context.js';
import { personTimeZone } from '../shared/index.js';

/** A page of the chat: at most this many events (and 200 when the client names no limit). */
const MAX_PAGE = 10_000;
const DEFAULT_PAGE = 200;
/** `afterSeq` reads kept their old default (the first 2,000). */
const DEFAULT_FORWARD = 2000;

const TURN_ID = /^[A-Za-z0-9_.:#-]{1,300}$/;
const resendSchema = z.object({ text: z.string().max(200_000).optional() }).strict();

/** Sessions a read can page and delete in: the store with its optional page and delete methods. */
type PagedSessions = SessionsAPI & Required<Pick<SessionsAPI, 'locate' | 'deleteTurns' | 'remove'>>;

function whole(name: string, raw: string | undefined, min: number): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new ValidationError(`${name} must be a whole number ≥ ${min}`, { key: name });
  return n;
}

function checkTurnId(sessionId: string, raw: string): string {
  if (!TURN_ID.test(raw) || raw.includes('..')) throw new ValidationError(`invalid turn id "${raw.slice(0, 60)}"`, { key: 'turnId' });
  if (!raw.startsWith(`${sessionId}#`)) throw new ValidationError(`turn ${raw.slice(0, 60)} is not a turn of ${sessionId}`, { key: 'turnId' });
  return raw;
}

/**
 * Reading, deleting and exporting a session's history (W-1, decision 0050): pages from the end or
 * around a turn, delete a turn or a reply, regenerate / edit-and-resend, delete a session,
 * export it as Markdown.
 */
export function mountSessionRoutes(app: Hono, ctx: WebuiContext): void {
  const { sdk } = ctx;
  const reader = (): SessionsAPI => {
    const s = sdk.sessions?.();
    if (!s) throw new ServiceUnavailableError('sessions', 'The session store');
    return s;
  };
  /** The store with the methods that find and delete turns (the daemon's; test stores may lack them). */
  const sessions = (): PagedSessions => {
    const s = reader();
    if (!s.locate || !s.deleteTurns || !s.remove) throw new ServiceUnavailableError('sessions', 'Finding and deleting turns in the session log');
    return s as PagedSessions;
  };
  const mustExist = async (id: string) => {
    const info = await reader().get(id);
    if (!info) throw new NotFoundError('session', id);
    return info;
  };
  /** The turn running (or about to run) in a session, if any: it cannot be deleted under the agent. */
  const running = (id: string): string | undefined => {
    const current = sdk.use('host.agent')?.status().current;
    return ctx.inflight.turnOf(id) ?? (current?.sessionId === id ? current.turnId : undefined);
  };
  const refuseWhileRunning = (id: string, turnIds?: string[]) => {
    const r = running(id);
    if (r && (!turnIds || turnIds.includes(r))) throw new ConflictError('a turn of this session is still running: wait for it or interrupt it first', { turnId: r });
  };
  const published = (sessionId: string, seq: number, kind: string) => {
    try {
      sdk.publish('session_event', { sessionId, seq, kind });
    } catch {}
  };

  /**
   * A page of the session's events: the newest (no range), the ones before `before`, after
   * `afterSeq`, or around a turn or seq (`around`); `hasEarlier`/`hasLater` say whether there is more.
   */
  app.get('/api/v1/sessions/:id/events', async (c) => {
    const id = checkSessionId(c.req.param('id'));
    const afterSeq = whole('afterSeq', c.req.query('afterSeq'), 0);
    const before = whole('before', c.req.query('before'), 1);
    const around = c.req.query('around');
    const limitQ = whole('limit', c.req.query('limit'), 1);
    if (around !== undefined && (afterSeq !== undefined || before !== undefined)) throw new ValidationError('around cannot be combined with afterSeq or before', { key: 'around' });
    if (afterSeq !== undefined && before !== undefined) throw new ValidationError('afterSeq and before cannot be combined', { key: 'before' });
    const limit = Math.min(limitQ ?? (afterSeq !== undefined ? DEFAULT_FORWARD : DEFAULT_PAGE), MAX_PAGE);
    const info = await mustExist(id);
    const s = reader();
    const inflight = ctx.inflight.turnOf(id) ?? null;
    const page = async (): Promise<{ events: SessionEvent[]; hasEarlier: boolean; hasLater: boolean; anchorSeq?: number }> => {
      if (around !== undefined) {
        const anchor = /^\d+$/.test(around) ? Number(around) : await sessions().locate(id, checkTurnId(id, around));
        if (anchor === undefined || anchor < 1 || anchor > info.lastSeq) throw new NotFoundError('turn', around);
        // Half before the anchor and half from it; near either end of the history the rest
        // of the page goes to the other side.
        const earlier = await s.events(id, { beforeSeq: anchor, limit: limit + 1 });
        const later = await s.events(id, { afterSeq: anchor - 1, limit: limit + 1 });
        let e = Math.min(earlier.length, Math.floor(limit / 2));
        const l = Math.min(later.length, limit - e);
        e = Math.min(earlier.length, limit - l);
        return { events: [...earlier.slice(earlier.length - e), ...later.slice(0, l)], hasEarlier: earlier.length > e, hasLater: later.length > l, anchorSeq: anchor };
      }
      if (afterSeq !== undefined) {
        const got = await s.events(id, { afterSeq, limit: limit + 1 });
        const earlier = afterSeq > 0 ? await s.events(id, { beforeSeq: afterSeq + 1, limit: 1 }) : [];
        return { events: got.slice(0, limit), hasEarlier: earlier.length > 0, hasLater: got.length > limit };
      }
      const end = before ?? info.lastSeq + 1;
      const got = await s.events(id, { beforeSeq: end, limit: limit + 1 });
      const later = before !== undefined ? await s.events(id, { afterSeq: before - 1, limit: 1 }) : [];
      return { events: got.slice(-limit), hasEarlier: got.length > limit, hasLater: later.length > 0 };
    };
    return json({ ok: true, sessionId: id, lastSeq: info.lastSeq, inflight, ...(await page()) });
  });

  /** Deletes a whole turn: the person's message and everything it produced. */
  app.delete('/api/v1/sessions/:id/turns/:turnId', async (c) => {
    const id = checkSessionId(c.req.param('id'));
    const turnId = checkTurnId(id, c.req.param('turnId'));
    await mustExist(id);
    refuseWhileRunning(id, [turnId]);
    const marker = await sessions().deleteTurns(id, [turnId], 'turn');
    published(id, marker.seq, 'marker');
    return json({ ok: true, sessionId: id, deleted: [turnId], scope: 'turn' });
  });

  /** Deletes the reply of a turn (its rounds, tool calls and answer); the person's message stays. */
  app.delete('/api/v1/sessions/:id/turns/:turnId/reply', async (c) => {
    const id = checkSessionId(c.req.param('id'));
    const turnId = checkTurnId(id, c.req.param('turnId'));
    await mustExist(id);
    refuseWhileRunning(id, [turnId]);
    const marker = await sessions().deleteTurns(id, [turnId], 'reply');
    published(id, marker.seq, 'marker');
    return json({ ok: true, sessionId: id, deleted: [turnId], scope: 'reply' });
  });

  /**
   * Regenerate (no text) or edit-and-resend (`{text}`): the turn and every later turn of the
   * session are deleted, then the message (edited, with its files) is sent again as a new turn.
   */
  app.post('/api/v1/sessions/:id/turns/:turnId/resend', async (c) => {
    const id = checkSessionId(c.req.param('id'));
    const turnId = checkTurnId(id, c.req.param('turnId'));
    const body = parseBody(resendSchema, await readJson(c.req.raw, ctx.limits.chatBytes));
    await mustExist(id);
    refuseWhileRunning(id);
    const s = sessions();
    const first = await s.locate(id, turnId);
    if (first === undefined) throw new NotFoundError('turn', turnId);
    const from = await s.events(id, { afterSeq: first - 1 });
    const user = from.find((e) => e.turnId === turnId && e.kind === 'user');
    if (!user) throw new ValidationError('this turn has no message of the person to send again', { key: 'turnId' });
    const text = body.text ?? user.text;
    const attachments = await storedAttachments(sdk.homeDir, user, ctx.limits.chatBytes);
    if (!text.trim() && attachments.length === 0) throw new ValidationError('the message is empty');
    // This turn and the later ones (turns that started earlier keep their events that came later).
    const later: string[] = [];
    for (const e of from) if (!later.includes(e.turnId) && ((await s.locate(id, e.turnId)) ?? 0) >= first) later.push(e.turnId);
    const marker = await s.deleteTurns(id, later, 'turn');
    published(id, marker.seq, 'marker');
    const busy = sdk.use('host.agent')?.status().busy;
    const send = async (meta?: Record<string, unknown>) => {
      const ticket = sdk.injectInput({ sessionId: id, source: 'webui', channel: 'webui', text, attachments: attachments.length ? attachments : undefined, trigger: 'user', ...(meta ? { meta } : {}) });
      void ticket.done?.catch?.(() => undefined);
      await ticket.accepted;
      return ticket.turnId;
    };
    // The message is said again as a new turn: the turn it replaces leaves the memory tiers, else
    // recall holds the message twice — or, edited, its old wording beside the new (decision 0550).
    // Not an exclusion: the library memories made from it stay in the prompt. The later turns
    // stay in memory, as deleted messages do.
    const mc = sdk.use('host.memory-control');
    const replaced = mc?.replaceTurn ? await mc.replaceTurn(turnId, send, { actor: 'user', tool: 'resend' }) : undefined;
    const newTurn = replaced?.turnId ?? (await send());
    return json({ ok: true, sessionId: id, turnId: newTurn, deleted: later, ...(replaced?.replaced ? { replaced: [turnId] } : {}), delivery: busy ? 'queued' : 'new-turn' }, 202);
  });

  /** Deletes a session: out of the list, the reads and the model's timeline (the log file stays). */
  app.delete('/api/v1/sessions/:id', async (c) => {
    const id = checkSessionId(c.req.param('id'));
    const info = await mustExist(id);
    refuseWhileRunning(id);
    await sessions().remove(id);
    published(id, info.lastSeq, 'session_deleted');
    return json({ ok: true, sessionId: id });
  });

  /** The session as a Markdown file (what the chat shows, deleted turns left out). */
  app.get('/api/v1/sessions/:id/export', async (c) => {
    const id = checkSessionId(c.req.param('id'));
    const info = await mustExist(id);
    // Times on the person's wall clock (decision 0270).
    const md = sessionMarkdown(info, await reader().events(id), Date.now(), personTimeZone(sdk));
    const name = exportFileName(info);
    return new Response(md, {
      headers: {
        'content-type': 'text/markdown; charset=utf-8',
        'cache-control': 'no-store',
        'content-disposition': `attachment; filename="${name.replace(/[^\x20-\x7e]/g, '_').replace(/"/g, '')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
      },
    });
  });
}

/**
 * The files of a logged message, read back from `<home>/media/` for a resend (paths outside it
 * are ignored, as is a link inside it that leads out: the log is data, not a pointer anywhere on
 * disk). Missing files are skipped.
 */
async function storedAttachments(home: string, user: SessionEvent, limitBytes: number): Promise<{ mimeType: string; name?: string; data: string }[]> {
  const list = Array.isArray(user.data?.attachments) ? (user.data.attachments as { path?: unknown; mimeType?: unknown; name?: unknown }[]) : [];
  const media = realPath(join(home, 'media'));
  const out: { mimeType: string; name?: string; data: string }[] = [];
  let total = 0;
  for (const a of list) {
    if (typeof a?.path !== 'string' || typeof a.mimeType !== 'string') continue;
    // Where the file really is: a link inside media/ that leads elsewhere is not followed.
    const file = realPath(resolve(home, a.path));
    if (file === media || !within(file, media)) continue;
    let buf: Buffer;
    try {
      buf = await readFile(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    total += buf.length;
    if (total > limitBytes) throw new HomeAgentError('PAYLOAD_TOO_LARGE', 'the files of this message are too large to send again', { details: { limit: limitBytes } });
    out.push({ mimeType: a.mimeType, name: typeof a.name === 'string' ? a.name : undefined, data: buf.toString('base64') });
  }
  return out;
}
