import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigKeyDef, Disposer, PluginDefinition, PluginInfo, PluginSDK } from '../spec/index.js';
import { PluginError } from '../spec/index.js';
import { LuaSandbox } from '../providers/lua/index.js';

export interface LuaPluginOptions {
  /** Time budget of `start()` and of one tool call. Default 5000 ms. */
  timeoutMs?: number;
  /** Memory limit of the VM. Default 32 MiB. */
  memoryBytes?: number;
}

/** Lua run before main.lua: `register_tool` keeps the handler in Lua and tells the host the rest. */
const LUA_PLUGIN_PRELUDE = `
local __tools = {}
function register_tool(name, description, params, handler)
  if type(name) ~= "string" then error("register_tool: name must be a string", 2) end
  if type(handler) ~= "function" then error("register_tool: handler must be a function", 2) end
  if __tools[name] then error("register_tool: tool " .. name .. " is registered twice", 2) end
  __tools[name] = handler
  __host_register_tool(name, description or "", params or json.object({ type = "object", properties = json.object() }))
end
function __call_tool(name, args)
  local h = __tools[name]
  if not h then error("unknown tool " .. tostring(name)) end
  return h(args or json.object())
end
`;

/** How a running Lua plugin is doing, beyond its start: `failed` once its state is lost for good. */
export interface LuaPluginHealth {
  state: PluginInfo['state'];
  lastError?: string;
}

/** A Lua plugin's definition, with its {@link LuaPluginHealth}. */
export interface LuaPluginDefinition extends PluginDefinition<PluginSDK> {
  health(): LuaPluginHealth;
}

/**
 * A Lua script plugin (P-4): `<dir>/main.lua` defines `start()`, which registers tools with
 * `register_tool(name, description, params_table, handler_fn)`; `handler_fn(args)` returns a
 * string or a table (JSON). It runs in the same sandbox as the LLM adapters (no files, no
 * processes; time and memory limits), with `json`, `log` and `settings_get(key)` — the keys a
 * `plugin.json` beside main.lua declares (`"entry": "main.lua"`, `settings` as for external plugins).
 *
 * The registry watches main.lua and reloads the plugin (dispose + start again) when it changes.
 *
 * A tool that runs the VM out of memory makes the sandbox rebuild it; `start()` runs again there
 * so the tools work again. If that fails the plugin's tools go and its health says `failed` (and
 * `onHealth` is told) until it is reloaded.
 */
export function luaPlugin(name: string, dir: string, opts: LuaPluginOptions = {}, onHealth?: (h: LuaPluginHealth) => void, settings?: Record<string, ConfigKeyDef>): LuaPluginDefinition {
  const file = join(dir, 'main.lua');
  let health: LuaPluginHealth = { state: 'running' };
  return {
    name,
    ...(settings ? { settings } : {}),
    health: () => ({ ...health }),
    async start(sdk) {
      health = { state: 'running' };
      const tools = new Map<string, Disposer>();
      let source: string;
      try {
        source = readFileSync(file, 'utf8');
      } catch (e) {
        throw new PluginError(name, `main.lua cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'PLUGIN_BAD_LUA', e);
      }
      const sb = new LuaSandbox({
        name: `plugin ${name}`,
        timeoutMs: opts.timeoutMs ?? 5000,
        memoryBytes: opts.memoryBytes ?? 32 * 1024 * 1024,
        log: (level, msg) => sdk.log[level](msg),
        onRebuildFailed: (e) => {
          for (const dispose of tools.values()) dispose();
          tools.clear();
          health = { state: 'failed', lastError: e.message };
          sdk.log.error(e.message);
          onHealth?.({ ...health });
        },
      });
      sdk.onDispose(() => sb.close());
      sb.registerFunction('__host_register_tool', (toolName: unknown, description: unknown, params: unknown) => {
        const tn = String(toolName);
        const parameters = params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : { type: 'object', properties: {} };
        // start() runs again after an out-of-memory rebuild: its tools are registered anew.
        tools.get(tn)?.();
        tools.delete(tn);
        const dispose = sdk.registerTool({
          name: tn,
          description: String(description ?? ''),
          parameters,
          handler: async (args) => {
            const out = await sb.call('__call_tool', tn, args);
            if (out === null || out === undefined) return '';
            return typeof out === 'string' ? out : typeof out === 'object' ? (out as Record<string, unknown>) : String(out);
          },
        });
        tools.set(tn, dispose);
        return true;
      });
      sb.registerFunction('settings_get', (key: unknown) => {
        try {
          return sdk.settings().get(String(key));
        } catch {
          return null;
        }
      });
      await sb.load(LUA_PLUGIN_PRELUDE, 'plugin-prelude.lua');
      await sb.load(source, `${name}/main.lua`);
      if (!sb.has('start')) throw new PluginError(name, 'main.lua must define a function start()', 'PLUGIN_BAD_LUA');
      await sb.callAndReplay('start');
    },
  };
}
