import type { Hono } from 'hono';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../../sdk/index.js';
import { json, readJson, ServiceUnavailableError } from './http-json.js';
import type { WebuiContext } from './webui-context.js';

const SESSION_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

const attachmentSchema = z.object({
  mimeType: z.string().min(1).max(200),
  name: z.string().max(300).optional(),
  data: z.string().min(1),
});
const chatSchema = z.object({
  sessionId: z.string().regex(SESSION_ID).refine((s) => !s.includes('..'), 'invalid session id').optional(),
  text: z.string().max(200_000).default(''),
  attachments: z.array(attachmentSchema).max(10).optional(),
});
const createSchema = z.object({ title: z.string().max(200).optional() });
const renameSchema = z.object({ title: z.string().trim().min(1).max(200) });

/** Parses with a zod schema, turning failures into a ValidationError (400). */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new ValidationError(`invalid request: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`, { issues: r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) });
  }
  return r.data;
}

/** The `:id` of a session route, validated (400 otherwise). */
export function checkSessionId(id: string): string {
  if (!SESSION_ID.test(id) || id.includes('..')) throw new ValidationError(`invalid session id "${id.slice(0, 60)}"`);
  return id;
}

/** A fresh webui session id: `webui:<time><random>`. */
export function newSessionId(): string {
  return `webui:${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

/** Sessions and chat (W-1): list/create/rename sessions, read events, send a message. */
export function mountChatRoutes(app: Hono, ctx: WebuiContext): void {
  const { sdk } = ctx;
  const sessions = () => {
    const s = sdk.sessions?.();
    if (!s) throw new ServiceUnavailableError('sessions', 'The session store');
    return s;
  };

  app.get('/api/v1/status', (c) => {
    const agent = sdk.use('host.agent');
    const routes = ctx.routes;
    return c.json({
      ok: true,
      agent: agent ? agent.status() : null,
      endpoints: agent ? agent.endpoints() : {},
      webui: { url: ctx.url(), clients: ctx.hub.clientCount, bootId: ctx.hub.bootId, pluginRoutes: routes.size },
      services: {
        agent: !!agent,
        memory: !!sdk.use('host.memory'),
        providers: !!sdk.use('host.providers'),
        plugins: !!sdk.use('host.plugins'),
        config: !!sdk.use('host.config'),
        changes: !!sdk.use('changes'),
        memoryManager: !!routes.match('POST', '/api/memory-manager') && !('pathOnly' in (routes.match('POST', '/api/memory-manager') ?? {})),
        llm: (() => {
          try {
            return sdk.llm().available();
          } catch {
            return false;
          }
        })(),
      },
    });
  });

  app.get('/api/v1/sessions', async () => {
    const list = await sessions().list();
    list.sort((a, b) => b.updatedAt - a.updatedAt);
    return json({ ok: true, sessions: list });
  });

  app.post('/api/v1/sessions', async (c) => {
    const body = parseBody(createSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    const info = await sessions().create({ channel: 'webui', id: newSessionId(), title: body.title });
    return json({ ok: true, session: info }, 201);
  });

  app.get('/api/v1/sessions/:id', async (c) => {
    const id = checkSessionId(c.req.param('id'));
    const info = await sessions().get(id);
    if (!info) throw new NotFoundError("session", id);
    return json({ ok: true, session: info });
  });

  app.patch('/api/v1/sessions/:id', async (c) => {
    const id = checkSessionId(c.req.param('id'));
    const body = parseBody(renameSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    if (!(await sessions().get(id))) throw new NotFoundError("session", id);
    await sessions().rename(id, body.title);
    return json({ ok: true, session: await sessions().get(id) });
  });

  app.post('/api/v1/chat', async (c) => {
    const body = parseBody(chatSchema, await readJson(c.req.raw, ctx.limits.chatBytes));
    if (!body.text.trim() && !body.attachments?.length) throw new ValidationError('the message is empty');
    let sessionId = body.sessionId;
    if (!sessionId) {
      const info = await sessions().create({ channel: 'webui', id: newSessionId(), title: body.text.slice(0, 40) || undefined });
      sessionId = info.id;
    }
    const agentStatus = sdk.use('host.agent')?.status();
    const inflight = ctx.inflight.turnOf(sessionId) ?? (agentStatus?.current?.sessionId === sessionId ? agentStatus.current.turnId : undefined);
    if (inflight && body.text.trim()) {
      sdk.injectInterrupt({ sessionId, source: 'webui', text: body.text });
      return json({ ok: true, turnId: inflight, sessionId, delivery: 'interrupt' }, 202);
    }
    const ticket = sdk.injectInput({ sessionId, source: 'webui', channel: 'webui', text: body.text, attachments: body.attachments, trigger: 'user' });
    // As it was when the message came (the agent may start this very turn while it is written).
    const delivery = agentStatus?.busy ? 'queued' : 'new-turn';
    // The outcome is streamed over SSE; keep the promise from going unhandled.
    void ticket.done?.catch?.(() => undefined);
    // Acknowledged only once the message is in the session log: a kill right after loses nothing.
    await ticket.accepted;
    return json({ ok: true, turnId: ticket.turnId, sessionId: ticket.sessionId, delivery }, 202);
  });

  app.get('/api/v1/events', (c) => ctx.hub.response(c.req.header('last-event-id') ?? c.req.query('lastEventId') ?? null, c.req.raw.signal));
}
