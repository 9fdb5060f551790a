import type { Hono } from 'hono';
import { z } from 'zod';
import { json, readJson, ServiceUnavailableError } from './http-json.js';
import { parseBody } from './chat-routes.js';
import type { WebuiContext } from './webui-context.js';

const turnId = z.string().min(3).max(400).regex(/^[^\s#]+#\d+$/);
const targets = {
  turnIds: z.array(turnId).max(5000).optional(),
  relationIds: z.array(z.number().int().nonnegative()).max(5000).optional(),
  documents: z.array(z.object({ tier: z.enum(['document', 'archive', 'context']), id: z.string().min(1).max(200) }).strict()).max(5000).optional(),
  memoryIds: z.array(z.string().regex(/^[A-Za-z0-9_-]{3,64}$/)).max(1000).optional(),
};
const previewSchema = z.object({ query: z.string().max(2000).optional(), ...targets }).strict();
const forgetSchema = z.object({ ...targets, keepTurnIds: z.array(turnId).max(5000).optional(), keepRelationIds: z.array(z.number().int().nonnegative()).max(5000).optional() }).strict();
const turnsSchema = z.object({ turnIds: z.array(turnId).min(1).max(1000) }).strict();
const changeId = z.string().regex(/^\d{1,15}$/);

function int(v: string | undefined, def: number, min: number, max: number): number {
  const n = Number(v);
  return v === undefined || v === '' || !Number.isFinite(n) ? def : Math.min(Math.max(Math.trunc(n), min), max);
}

/**
 * Memory the user controls over HTTP (M-9, K-2, K-3; `host.memory-control`), behind the same guard
 * as every `/api/` route (token, same-origin, JSON bodies only): forget with its preview, history
 * with undo, exclusion and restore of turns.
 */
export function mountControlRoutes(app: Hono, ctx: WebuiContext): void {
  const mc = () =>
    ctx.sdk.use('host.memory-control') ??
    (() => {
      throw new ServiceUnavailableError('host.memory-control', 'Memory control');
    })();
  const who = { actor: 'user' as const, tool: 'webui' };

  app.post('/api/v1/memory/forget/preview', async (c) => json({ ok: true, plan: await mc().forgetPreview(parseBody(previewSchema, await readJson(c.req.raw, ctx.limits.chatBytes))) }));
  app.post('/api/v1/memory/forget', async (c) => json({ ok: true, result: await mc().forget(parseBody(forgetSchema, await readJson(c.req.raw, ctx.limits.chatBytes)), who) }));
  app.get('/api/v1/memory/history', async (c) => {
    const kind = c.req.query('kind');
    const history = mc().history({
      subject: c.req.query('subject')?.slice(0, 200) || undefined,
      target: c.req.query('target')?.slice(0, 400) || undefined,
      kind: kind ? (z.enum(['relation', 'entity', 'memory', 'document', 'knowledge', 'plan', 'exclusion', 'forget', 'replacement']).safeParse(kind).data ?? undefined) : undefined,
      limit: int(c.req.query('limit'), 100, 1, 1000),
      before: c.req.query('before') ? int(c.req.query('before'), 0, 0, Number.MAX_SAFE_INTEGER) : undefined,
    });
    return json({ ok: true, history });
  });
  app.post('/api/v1/memory/history/:id/undo', async (c) => json({ ok: true, change: await mc().undo(parseBody(changeId, c.req.param('id')), who) }));
  app.get('/api/v1/memory/exclusions', async () => json({ ok: true, turnIds: mc().excluded() }));
  app.post('/api/v1/memory/exclusions', async (c) => json({ ok: true, ...(await mc().exclude(parseBody(turnsSchema, await readJson(c.req.raw, ctx.limits.chatBytes)).turnIds, who)) }));
  app.post('/api/v1/memory/exclusions/restore', async (c) => json({ ok: true, ...(await mc().restore(parseBody(turnsSchema, await readJson(c.req.raw, ctx.limits.chatBytes)).turnIds, who)) }));
}
