import type { Hono } from 'hono';
import { z } from 'zod';
import { ValidationError } from '../../sdk/index.js';
import { gatherAbout } from '../shared/index.js';
import { json, readJson, ServiceUnavailableError } from './http-json.js';
import { parseBody } from './chat-routes.js';
import type { WebuiContext } from './webui-context.js';

const speakerId = z.string().min(3).max(170);
const linkSchema = z.object({ ids: z.array(speakerId).min(1).max(50), to: z.string().min(1).max(40).optional(), name: z.string().min(1).max(100).optional(), newPerson: z.boolean().optional() }).strict();
const unlinkSchema = z.object({ id: speakerId }).strict();
const renameSchema = z.object({ name: z.string().min(1).max(100) }).strict();
/** A fact's corrected value (an entity name: the graph's limit is 200 characters). */
const correctSchema = z.object({ object: z.string().trim().min(1).max(200) }).strict();

/**
 * The people registry (decision 0090) under `/api/v1/people`: list, link, unlink, rename. These
 * routes are the person's (the token and the cross-site guard of `auth.ts` apply as to every
 * `/api/` route); no model-callable tool reaches `host.people`, because linking a stranger's id
 * to the owner would open every private memory to them.
 */
export function mountPeopleRoutes(app: Hono, ctx: WebuiContext): void {
  const people = () => ctx.sdk.use('host.people') ?? (() => {
    throw new ServiceUnavailableError('host.people', 'The people registry');
  })();

  app.get('/api/v1/people', () => json({ ok: true, people: people().list() }));
  // What HomeAgent holds about the owner or a person (issue 12 part 7): facts, memories, turns.
  app.get('/api/v1/memory/about', async (c) => {
    const person = c.req.query('person');
    if (person !== undefined && person.length > 200) throw new ValidationError('person: at most 200 characters');
    return json({ ok: true, about: await gatherAbout(ctx.sdk, person) });
  });
  app.delete('/api/v1/memory/graph/relations/:id', async (c) => {
    const id = c.req.param('id');
    if (!/^\d{1,15}$/.test(id)) throw new ValidationError(`not a fact id: ${id.slice(0, 40)}`);
    const mem = ctx.sdk.use('host.memory') ?? (() => {
      throw new ServiceUnavailableError('host.memory', 'The memory subsystem');
    })();
    await mem.deleteRelation(Number(id));
    return json({ ok: true });
  });
  // The person corrects a fact's value (About me's "Correct"): the same guard as every /api/ route.
  app.patch('/api/v1/memory/graph/relations/:id', async (c) => {
    const id = c.req.param('id');
    if (!/^\d{1,15}$/.test(id)) throw new ValidationError(`not a fact id: ${id.slice(0, 40)}`);
    const body = parseBody(correctSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    const mem = ctx.sdk.use('host.memory') ?? (() => {
      throw new ServiceUnavailableError('host.memory', 'The memory subsystem');
    })();
    return json({ ok: true, relation: await mem.correctRelation(Number(id), body.object) });
  });
  app.post('/api/v1/people/link', async (c) => {
    const body = parseBody(linkSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    return json({ ok: true, person: people().link(body.ids, { to: body.to, name: body.name, newPerson: body.newPerson }) });
  });
  app.post('/api/v1/people/unlink', async (c) => {
    const body = parseBody(unlinkSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    return json({ ok: true, ...people().unlink(body.id) });
  });
  app.patch('/api/v1/people/:id', async (c) => {
    const body = parseBody(renameSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    return json({ ok: true, person: people().rename(c.req.param('id'), body.name) });
  });
}
