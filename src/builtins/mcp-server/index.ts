/**
 * `mcp-server` built-in plugin: an MCP server over HomeAgent's memory, so Claude Desktop,
 * Cursor or any MCP client shares one memory with HomeAgent. Streamable HTTP at `/mcp` on the
 * daemon (behind the API guard: the token, same-origin only); `waiter mcp` bridges stdio clients
 * to it (decision 0040).
 */
import { definePlugin, type PluginDefinition } from '../../sdk/index.js';
import { mcpHttpHandler, methodNotAllowed } from './http-endpoint.js';

/** Builds the plugin. */
export function createMcpServerPlugin(): PluginDefinition {
  return definePlugin({
    name: 'mcp-server',
    description: 'MCP server over the memory (search, read, save to the library, knowledge) at /mcp and through `waiter mcp`',
    start(sdk) {
      sdk.registerRoute({ method: 'POST', path: '/mcp', handler: mcpHttpHandler(sdk) });
      sdk.registerRoute({ method: 'GET', path: '/mcp', handler: methodNotAllowed });
      sdk.registerRoute({ method: 'DELETE', path: '/mcp', handler: methodNotAllowed });
    },
  });
}

export default createMcpServerPlugin();

export { MCP_TOOL_NAMES } from './mcp-tools.js';
export { SERVER_INFO } from './http-endpoint.js';
export { MemorySource, queryTerms, type MemoryHit } from './memory-source.js';
