import { z } from 'zod';
import { definePlugin, HomeAgentError, ValidationError } from '../../sdk/index.js';
import type { ConfigKeyInfo, ConfigValue, PluginSDK } from '../../sdk/index.js';
import { DEFAULT_PROTECTED_KEYS, isProtectedKey, type ConfigAdminService } from '../../spec/index.js';
import { jsonOk, parseArgs, readJsonBody, safeHandler, toolParameters } from '../shared/index.js';

const KEY_RE = /^(core|plugin)(\.[A-Za-z0-9][A-Za-z0-9_-]*)+$/;

/** The default of `plugin.cfgmgr.tool_protected_keys` and its matcher live in the spec: an import applies the same rule (decision 0350). */
export { DEFAULT_PROTECTED_KEYS, isProtectedKey };

function admin(sdk: PluginSDK): ConfigAdminService {
  const s = sdk.use('host.config');
  if (!s) throw new HomeAgentError('UNAVAILABLE', 'the config registry is not available', { retryable: true });
  return s;
}

function checkKey(key: string): string {
  if (!KEY_RE.test(key)) throw new ValidationError(`invalid config key ${JSON.stringify(key)}: expected core.<name> or plugin.<plugin>.<name>`, { key });
  return key;
}

/** Re-throws a failed set with the key in its details (validation errors → 400 with key and reason). */
async function setWithKey(svc: ConfigAdminService, key: string, value: ConfigValue): Promise<void> {
  try {
    await svc.set(key, value);
  } catch (e) {
    if (e instanceof HomeAgentError && e.code === 'VALIDATION' && e.details.key === undefined) throw new ValidationError(e.message, { ...e.details, key }, e);
    throw e;
  }
}

/** A password written into a URL (`http://user:pass@host`, the outbound proxy's) is the person's: the model reads `***`. */
function maskUrlPasswords(json: string): string {
  return json.replace(/(\/\/[^\s/:@"]*):[^\s/@"]+@/g, '$1:***@');
}

function show(i: ConfigKeyInfo): string {
  return `${i.key} = ${maskUrlPasswords(JSON.stringify(i.value))}${i.origin === 'default' ? ' (default)' : i.origin === 'env' ? ` (from $${i.env})` : ''} — ${i.description}`;
}

const getArgs = z.object({ key: z.string().min(1).max(300) });
const setArgs = z.object({ key: z.string().min(1).max(300), value: z.unknown().describe('New value (JSON: string, number, boolean, array or object)') });
const listArgs = z.object({ prefix: z.string().max(300).optional().describe('e.g. "core.llm" or "plugin.cmd"') });

/**
 * `cfgmgr` (P-7, G-2): settings over HTTP (`/api/v1/settings…`) and the tools `config_get`,
 * `config_set`, `config_list`, on top of the host's `host.config` service (which masks secrets).
 */
export const cfgmgrPlugin = definePlugin({
  name: 'cfgmgr',
  description: 'Read and change settings over HTTP and tools',
  settings: {
    tool_protected_keys: {
      default: [...DEFAULT_PROTECTED_KEYS],
      description: 'Settings the agent may not change with config_set (exact keys or prefixes ending in *); secrets and settings marked privileged are always protected',
      schema: z.array(z.string().min(1).max(300)).max(500),
      // The protections themselves: only the person changes them (decision 0350).
      privileged: true,
    },
  },
  start(sdk) {
    const route = (method: 'GET' | 'PUT' | 'DELETE', path: string, fn: (req: Request, p: Record<string, string>) => Promise<Response> | Response) =>
      sdk.registerRoute({ method, path, handler: safeHandler(fn) });
    route('GET', '/api/v1/settings', (req) => jsonOk(admin(sdk).list(new URL(req.url).searchParams.get('prefix') ?? undefined)));
    route('GET', '/api/v1/settings/:key', (_r, p) => jsonOk(admin(sdk).get(checkKey(p.key))));
    route('PUT', '/api/v1/settings/:key', async (req, p) => {
      const key = checkKey(p.key);
      const body = await readJsonBody(req, 256 * 1024);
      if (!('value' in body)) throw new ValidationError('body must be {"value": …}', { key });
      const svc = admin(sdk);
      await setWithKey(svc, key, body.value as ConfigValue);
      return jsonOk(svc.get(key));
    });
    route('DELETE', '/api/v1/settings/:key', async (_r, p) => {
      const key = checkKey(p.key);
      const svc = admin(sdk);
      await svc.reset(key);
      return jsonOk(svc.get(key));
    });

    sdk.registerTool({
      name: 'config_get',
      description: 'Read one setting (secrets are masked).',
      parameters: toolParameters(getArgs),
      handler: (raw) => show(admin(sdk).get(checkKey(parseArgs(getArgs, raw, 'config_get').key))),
    });
    sdk.registerTool({
      name: 'config_set',
      description: 'Change one setting; the value is validated against the setting schema and applies at once.',
      parameters: toolParameters(setArgs),
      async handler(raw) {
        const a = parseArgs(setArgs, raw, 'config_set');
        const key = checkKey(a.key);
        const svc = admin(sdk);
        const info = svc.get(key);
        if (isProtectedKey(key, sdk.settings().get<string[]>('tool_protected_keys')) || info.secret || info.privileged) {
          throw new HomeAgentError('FORBIDDEN', `${key} can only be changed by the user (WebUI settings or \`waiter config set\`), not by a tool`, { details: { key } });
        }
        await setWithKey(svc, key, a.value as ConfigValue);
        return `set ${show(svc.get(key))}`;
      },
    });
    sdk.registerTool({
      name: 'config_list',
      description: 'List settings with their values and descriptions (optionally under a prefix).',
      parameters: toolParameters(listArgs),
      handler: (raw) => {
        const a = parseArgs(listArgs, raw, 'config_list');
        const all = admin(sdk).list(a.prefix);
        return all.length ? all.map(show).join('\n') : `no settings under ${a.prefix}`;
      },
    });
  },
});
