import { z } from 'zod';
import { definePlugin, HomeAgentError, NotFoundError, ValidationError, PluginError } from '../../sdk/index.js';
import type { ConfigKeyDef, PluginSDK } from '../../sdk/index.js';
import type { PluginAdminService, PluginInfo } from '../../spec/index.js';
import { jsonOk, readRawBody, safeHandler, toolParameters } from '../shared/index.js';

const NAME_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const settings: Record<string, ConfigKeyDef> = {
  max_install_bytes: { default: 20 * 1024 * 1024, description: 'Largest .hmap archive accepted by POST /api/v1/plugins/install', schema: z.number().int().min(1024).max(1024 * 1024 * 1024) },
};

function admin(sdk: PluginSDK): PluginAdminService {
  const s = sdk.use('host.plugins');
  if (!s) throw new HomeAgentError('UNAVAILABLE', 'the plugin registry is not available', { retryable: true });
  return s;
}

/** Checks a plugin name from a URL and that the plugin exists. */
function known(sdk: PluginSDK, name: string): PluginInfo {
  if (!NAME_RE.test(name)) throw new ValidationError(`invalid plugin name ${JSON.stringify(name)}`, { name });
  const p = admin(sdk).get(name);
  if (!p) throw new NotFoundError('plugin', name);
  return p;
}

function summary(p: PluginInfo): string {
  return `${p.name} (${p.kind}${p.version ? ` ${p.version}` : ''}): ${p.state}${p.enabled ? '' : ', disabled'}${p.lastError ? ` — ${p.lastError}` : ''}; tools: ${p.tools.join(', ') || 'none'}`;
}

/**
 * `pluginmgr` (P-7, P-3): the plugin manager over HTTP (`/api/v1/plugins…`) and the
 * `plugin_list` tool, on top of the host's `host.plugins` service. Errors answer
 * `{ok:false, error:{code,message}}` with 400/404/409/413/503.
 */
export const pluginmgrPlugin = definePlugin({
  name: 'pluginmgr',
  description: 'Install, enable, disable, reload and remove plugins over HTTP',
  settings,
  start(sdk) {
    const route = (method: 'GET' | 'POST' | 'DELETE', path: string, fn: (req: Request, p: Record<string, string>) => Promise<Response> | Response) =>
      sdk.registerRoute({ method, path, handler: safeHandler(fn) });
    route('GET', '/api/v1/plugins', () => jsonOk(admin(sdk).list()));
    route('GET', '/api/v1/plugins/:name', (_r, p) => jsonOk(known(sdk, p.name)));
    // Plugin and skill folders added while the daemon runs are started as a restart would.
    route('POST', '/api/v1/plugins/rescan', async () => jsonOk({ found: await admin(sdk).rescan(), plugins: admin(sdk).list() }));
    for (const action of ['enable', 'disable', 'reload'] as const) {
      route('POST', `/api/v1/plugins/:name/${action}`, async (_r, p) => {
        // A reload of an unknown name looks for a folder of that name added since the start.
        if (action !== 'reload') known(sdk, p.name);
        else if (!NAME_RE.test(p.name)) throw new ValidationError(`invalid plugin name ${JSON.stringify(p.name)}`, { name: p.name });
        await admin(sdk)[action](p.name);
        return jsonOk(admin(sdk).get(p.name) ?? null);
      });
    }
    // Upload = unpack and check only; nothing runs until the person confirms (SPEC §9).
    route('POST', '/api/v1/plugins/install', async (req) => {
      const svc = admin(sdk);
      const body = await readRawBody(req, sdk.settings().get<number>('max_install_bytes'));
      if (body.byteLength < 4 || body[0] !== 0x50 || body[1] !== 0x4b) throw new PluginError('hmap', 'the file is not a zip archive', 'HMAP_BAD_ARCHIVE', undefined, { bytes: body.byteLength });
      return jsonOk(await svc.stage(body), 202);
    });
    route('GET', '/api/v1/plugin-installs', () => jsonOk(admin(sdk).pending()));
    route('POST', '/api/v1/plugin-installs/:name/confirm', async (_r, p) => {
      if (!NAME_RE.test(p.name)) throw new ValidationError(`invalid plugin name ${JSON.stringify(p.name)}`, { name: p.name });
      return jsonOk(await admin(sdk).confirmInstall(p.name), 201);
    });
    route('DELETE', '/api/v1/plugin-installs/:name', async (_r, p) => {
      if (!NAME_RE.test(p.name)) throw new ValidationError(`invalid plugin name ${JSON.stringify(p.name)}`, { name: p.name });
      await admin(sdk).discardInstall(p.name);
      return jsonOk({ discarded: p.name });
    });
    route('DELETE', '/api/v1/plugins/:name', async (_r, p) => {
      const info = known(sdk, p.name);
      if (info.kind === 'builtin') throw new ValidationError(`${p.name} is built in and cannot be removed (disable it instead)`, { name: p.name });
      await admin(sdk).uninstall(p.name);
      return jsonOk({ removed: p.name });
    });
    sdk.registerTool({
      name: 'plugin_list',
      description: 'List the plugins: kind, state (running/failed/disabled …), last error and their tools.',
      parameters: toolParameters(z.object({})),
      handler: () => {
        const s = sdk.use('host.plugins');
        if (!s) return 'the plugin registry is not available';
        return s.list().map(summary).join('\n') || 'no plugins';
      },
    });
  },
});
