import type { Hono } from 'hono';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../../sdk/index.js';
import type { ConfigValue } from '../../sdk/index.js';
import { json, readBytes, readJson, ServiceUnavailableError } from './http-json.js';
import { parseBody } from './chat-routes.js';
import type { WebuiContext } from './webui-context.js';

const orderSchema = z.object({ order: z.array(z.string().min(1).max(100)).min(1).max(100) });
const configValue: z.ZodType<ConfigValue> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(configValue), z.record(z.string(), configValue)]));
const setSchema = z.object({ value: configValue });
/** Taking a held adapter (decision 0620): the SHA-256 of the code that was shown, and the yes to replacing one here. */
const takeSchema = z.strictObject({ sha256: z.string().regex(/^[0-9a-f]{64}$/), replace: z.boolean().optional() });
/** Discarding one: the SHA-256 of the code that was shown. */
const discardSchema = z.strictObject({ sha256: z.string().regex(/^[0-9a-f]{64}$/) });

/**
 * Providers (L-3) over `host.providers`, and fallbacks for settings, plugins and the change
 * tracker over `host.config`, `host.plugins` and `changes` — used when the cfgmgr, pluginmgr or
 * files plugin (whose routes take precedence) is not loaded. The fallbacks answer in the
 * built-ins' shape `{ok:true, value}`.
 */
export function mountAdminRoutes(app: Hono, ctx: WebuiContext): void {
  const { sdk } = ctx;
  const providers = () => sdk.use('host.providers') ?? unavailable('host.providers', 'Provider management');
  const config = () => sdk.use('host.config') ?? unavailable('host.config', 'Configuration');
  const plugins = () => sdk.use('host.plugins') ?? unavailable('host.plugins', 'Plugin management');
  const changes = () => sdk.use('changes') ?? unavailable('changes', 'The change tracker');

  app.get('/api/v1/providers', () => {
    const p = providers();
    return json({ ok: true, providers: p.status(), order: p.order(), adapters: p.adapters() });
  });
  app.put('/api/v1/providers/order', async (c) => {
    const body = parseBody(orderSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    await providers().setOrder(body.order);
    return json({ ok: true, order: providers().order() });
  });
  app.post('/api/v1/providers/:name/test', async (c) => {
    const name = c.req.param('name');
    const p = providers();
    if (!p.status().some((s) => s.name === name)) throw new NotFoundError("LLM source", name);
    return json({ ok: true, name, result: await p.test(name) });
  });
  // The person's own LLM sources (issue 14): add, change, remove, and the model picker's list.
  // Bodies are validated by the provider manager (ValidationError → 400); keys come back masked.
  app.post('/api/v1/providers', async (c) => {
    const source = await providers().addSource(await readJson(c.req.raw, ctx.limits.jsonBytes));
    return json({ ok: true, source, order: providers().order() }, 201);
  });
  app.patch('/api/v1/providers/:name', async (c) => {
    const source = await providers().updateSource(c.req.param('name'), await readJson(c.req.raw, ctx.limits.jsonBytes));
    return json({ ok: true, source });
  });
  app.delete('/api/v1/providers/:name', async (c) => {
    await providers().removeSource(c.req.param('name'));
    return json({ ok: true, order: providers().order() });
  });
  app.get('/api/v1/providers/:name/models', async (c) => json({ ok: true, name: c.req.param('name'), ...(await providers().models(c.req.param('name'))) }));
  // Held Lua adapters (decision 0620): listed, read with their code, and taken into use by the
  // person — the take names the SHA-256 of the code it showed, so what is taken is what was read.
  app.get('/api/v1/adapters/held', () => json({ ok: true, held: providers().heldAdapters() }));
  app.get('/api/v1/adapters/held/:name', (c) => json({ ok: true, adapter: providers().heldAdapter(c.req.param('name')) }));
  app.post('/api/v1/adapters/held/:name/discard', async (c) => {
    const body = parseBody(discardSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    return json({ ok: true, discarded: await providers().discardHeldAdapter(c.req.param('name'), body) });
  });
  app.post('/api/v1/adapters/held/:name/take', async (c) => {
    const body = parseBody(takeSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    return json({ ok: true, taken: await providers().takeHeldAdapter(c.req.param('name'), body), adapters: providers().adapters() });
  });

  // Output channels and the owner's default channel for proactive messages; each chat
  // channel serves its own status and connection test under /api/v1/channels/<name>.
  app.get('/api/v1/channels', () => {
    const notify = sdk.use('host.notify') ?? unavailable('host.notify', 'Proactive notices');
    let preferred = 'webui';
    try {
      preferred = String(config().get('core.notify.channel').value ?? 'webui');
    } catch {}
    return json({ ok: true, value: { preferred, effective: notify.channel(), channels: notify.channels() } });
  });

  app.get('/api/v1/settings', (c) => json({ ok: true, value: config().list(c.req.query('prefix') || undefined) }));
  app.get('/api/v1/settings/:key', (c) => json({ ok: true, value: config().get(c.req.param('key')) }));
  app.put('/api/v1/settings/:key', async (c) => {
    const key = c.req.param('key');
    const body = parseBody(setSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    await config().set(key, body.value);
    return json({ ok: true, value: config().get(key) });
  });
  app.delete('/api/v1/settings/:key', async (c) => {
    const key = c.req.param('key');
    await config().reset(key);
    return json({ ok: true, value: config().get(key) });
  });

  app.get('/api/v1/plugins', () => json({ ok: true, value: plugins().list() }));
  app.post('/api/v1/plugins/install', async (c) => {
    const bytes = await readBytes(c.req.raw, ctx.limits.uploadBytes);
    return json({ ok: true, value: await plugins().stage(bytes) }, 202);
  });
  app.get('/api/v1/plugin-installs', () => json({ ok: true, value: plugins().pending() }));
  app.post('/api/v1/plugin-installs/:name/confirm', async (c) => json({ ok: true, value: await plugins().confirmInstall(c.req.param('name')) }, 201));
  app.delete('/api/v1/plugin-installs/:name', async (c) => {
    await plugins().discardInstall(c.req.param('name'));
    return json({ ok: true, value: { discarded: c.req.param('name') } });
  });
  // Plugin and skill folders added while the daemon runs are started as a restart would.
  app.post('/api/v1/plugins/rescan', async () => json({ ok: true, value: { found: await plugins().rescan(), plugins: plugins().list() } }));
  for (const action of ['enable', 'disable', 'reload'] as const) {
    app.post(`/api/v1/plugins/:name/${action}`, async (c) => {
      const name = c.req.param('name');
      const p = plugins();
      // A reload of an unknown name looks for a folder of that name added since the start.
      if (action !== 'reload' && !p.get(name)) throw new NotFoundError("plugin", name);
      await p[action](name);
      return json({ ok: true, value: p.get(name) });
    });
  }

  app.delete('/api/v1/plugins/:name', async (c) => {
    const name = c.req.param('name');
    const p = plugins();
    const info = p.get(name);
    if (!info) throw new NotFoundError('plugin', name);
    if (info.kind === 'builtin') throw new ValidationError(`${name} is built in and cannot be removed (disable it instead)`);
    await p.uninstall(name);
    return json({ ok: true, value: { removed: name } });
  });

  app.get('/api/v1/changes', (c) => json({ ok: true, value: changes().list({ limit: Math.min(Number(c.req.query('limit') ?? 200) || 200, 2000) }) }));
  app.post('/api/v1/changes/:id/undo', async (c) => json({ ok: true, value: await changes().undo(c.req.param('id')) }));
}

function unavailable(service: string, what: string): never {
  throw new ServiceUnavailableError(service, what);
}
