import type { Hono } from 'hono';
import { z } from 'zod';
import { json, readJson } from './http-json.js';
import { parseBody } from './chat-routes.js';
import type { WebuiContext } from './webui-context.js';

const answerSchema = z.object({ approved: z.boolean() });
const ID = /^[0-9a-f-]{36}$/;

/**
 * `host.confirm` over HTTP: `GET /api/v1/confirm` lists the questions still waiting,
 * `POST /api/v1/confirm/:id {approved}` answers one (404 when unknown, answered or timed out).
 */
export function mountConfirmRoutes(app: Hono, ctx: WebuiContext): void {
  app.get('/api/v1/confirm', () => json({ ok: true, pending: ctx.confirm.list() }));
  app.post('/api/v1/confirm/:id', async (c) => {
    const body = parseBody(answerSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    const id = c.req.param('id');
    ctx.confirm.answer(ID.test(id) ? id : `invalid:${id.slice(0, 60)}`, body.approved);
    return json({ ok: true, id, approved: body.approved });
  });
}
