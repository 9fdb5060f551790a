import { z } from 'zod';
import { definePlugin } from '../../sdk/index.js';
import type { ConfigKeyDef, ConfigValue, PluginDefinition } from '../../sdk/index.js';
import { toolParameters } from '../shared/index.js';
import { McpConnection, type McpServerStatus } from './mcp-connection.js';
import { serversSchema, type McpServerConfig } from './mcp-settings.js';

const settings: Record<string, ConfigKeyDef> = {
  servers: {
    default: [],
    description: 'MCP servers: [{name, command, args?, env?, cwd?} | {name, url, headers?}] (add enabled:false to keep one configured but off)',
    schema: serversSchema as never,
    // Programs it starts and endpoints it calls: only the person sets them (decision 0350).
    privileged: true,
  },
  call_timeout_ms: { default: 60_000, description: 'Timeout of one MCP tool call', schema: z.number().int().min(100).max(3_600_000) },
  reconnect_base_ms: { default: 1000, description: 'First reconnect delay after a server drops (doubles each failure)', schema: z.number().int().min(10).max(600_000) },
  reconnect_max_ms: { default: 30_000, description: 'Longest reconnect delay', schema: z.number().int().min(10).max(3_600_000) },
};

/**
 * Builds the `mcp` plugin (P-7): an MCP client for every configured server (stdio or Streamable
 * HTTP). Each server tool is an agent tool `mcp__<server>__<tool>`; tools go away while a server
 * is down and come back when it reconnects. Changing `servers` reconnects only what changed.
 */
export function createMcpPlugin(): PluginDefinition & { connections(): McpServerStatus[] } {
  const conns = new Map<string, McpConnection>();
  const def = definePlugin({
    name: 'mcp',
    description: 'MCP client: tools of configured MCP servers become agent tools',
    settings,
    async start(sdk) {
      const s = sdk.settings();
      const open = (cfg: McpServerConfig): Promise<void> => {
        const c = new McpConnection(cfg, {
          registerTool: (d) => sdk.registerTool(d),
          log: sdk.log,
          callTimeoutMs: () => s.get<number>('call_timeout_ms'),
          backoffMs: s.get<number>('reconnect_base_ms'),
          maxBackoffMs: s.get<number>('reconnect_max_ms'),
        });
        conns.set(cfg.name, c);
        return c.start();
      };
      const apply = async (value: ConfigValue): Promise<void> => {
        const wanted = new Map((value as McpServerConfig[]).filter((x) => x.enabled !== false).map((x) => [x.name, x]));
        for (const [name, c] of [...conns]) {
          const w = wanted.get(name);
          if (!w || JSON.stringify(w) !== JSON.stringify(c.config)) {
            conns.delete(name);
            await c.stop();
          }
        }
        await Promise.all([...wanted.values()].filter((w) => !conns.has(w.name)).map(open));
      };
      let applying: Promise<void> = Promise.resolve();
      sdk.onDispose(
        s.onChange((key, value) => {
          if (key === 'servers') applying = applying.then(() => apply(value)).catch((e) => sdk.log.error('applying MCP servers failed', { error: String(e) }));
        }),
      );
      sdk.onDispose(async () => {
        await applying;
        await Promise.all([...conns.values()].map((c) => c.stop()));
        conns.clear();
      });
      sdk.registerTool({
        name: 'mcp_servers',
        description: 'Show the configured MCP servers, whether they are connected, and their tools.',
        parameters: toolParameters(z.object({})),
        handler: () => {
          const all = [...conns.values()].map((c) => c.status());
          if (!all.length) return 'no MCP servers configured (setting plugin.mcp.servers)';
          return all.map((x) => `${x.name} (${x.transport}): ${x.state}${x.lastError ? ` — ${x.lastError}` : ''}; tools: ${x.tools.join(', ') || 'none'}`).join('\n');
        },
      });
      await apply(s.get('servers'));
    },
  });
  return Object.assign(def, { connections: () => [...conns.values()].map((c) => c.status()) });
}

/** The MCP plugin. */
export const mcpPlugin = createMcpPlugin();
