/**
 * The built-in plugins (P-2, P-7). The daemon registers every entry with
 * `PluginRegistry.registerBuiltin`; each is a `definePlugin({...})` that uses only the SDK and
 * the host services.
 */
import type { PluginDefinition } from '../spec/index.js';
import { filesPlugin } from './files/index.js';
import { createTimerPlugin } from './timer/index.js';
import { cmdPlugin } from './cmd/index.js';
import { createMcpPlugin } from './mcp/index.js';
import { createAgentcliPlugin } from './agentcli/index.js';
import { createHealthcheckPlugin } from './healthcheck/index.js';
import { pluginmgrPlugin } from './pluginmgr/index.js';
import { cfgmgrPlugin } from './cfgmgr/index.js';
import { createMemoryManagerPlugin } from './memory-manager/memory-manager-plugin.js';
import { createCliPlugin } from './cli/index.js';
import { createOpenaiApiPlugin } from './openai-api/index.js';
import { createMcpServerPlugin } from './mcp-server/index.js';
import { createWebPlugin } from './web/index.js';
import { createTelegramPlugin } from './telegram/index.js';
import { createQqPlugin } from './qq/index.js';
// The plugin definitions only: each built-in with a large implementation imports it on start.
import { createWebuiPlugin } from './webui/webui-plugin.js';

/**
 * Every built-in plugin, in start order: they start concurrently, and the channels first, so the
 * CLI socket answers before the others have done their synchronous start work. Plugins that keep
 * per-instance state are built fresh on each call, so two hosts (tests) never share one.
 */
export function builtinPlugins(): PluginDefinition[] {
  return [
    createCliPlugin(),
    createWebuiPlugin(),
    filesPlugin,
    createTimerPlugin(),
    cmdPlugin,
    createMcpPlugin(),
    createAgentcliPlugin(),
    createHealthcheckPlugin(),
    pluginmgrPlugin,
    cfgmgrPlugin,
    createMemoryManagerPlugin(),
    createWebPlugin(),
    createOpenaiApiPlugin(),
    createMcpServerPlugin(),
    createTelegramPlugin(),
    createQqPlugin(),
  ];
}

/** Names of the built-in plugins. */
export const BUILTIN_PLUGIN_NAMES = ['cli', 'webui', 'files', 'timer', 'cmd', 'mcp', 'agentcli', 'healthcheck', 'pluginmgr', 'cfgmgr', 'memory-manager', 'web', 'openai-api', 'mcp-server', 'telegram', 'qq'] as const;
