import type { PluginSDK } from '../../sdk/index.js';
import { MemorySource } from './memory-source.js';
import { registerMemoryTools } from './mcp-tools.js';
import { personTimeZone } from '../shared/index.js';

/** Name and version the server reports to MCP clients. */
export const SERVER_INFO = { name: 'homeagent-memory', version: '0.1.0' } as const;

const INSTRUCTIONS =
  "HomeAgent is the user's personal agent; these tools reach its memory. Search before answering questions about the user's life, preferences, projects or past conversations; save what the user asks you to remember.";

/**
 * The streamable HTTP MCP endpoint (`POST /mcp`), stateless: each request gets a fresh server and
 * transport (JSON responses, no session id), so there is nothing to expire or leak between
 * clients and the stdio bridge (`waiter mcp`) can forward message by message. The SDK is loaded
 * on the first request, not at daemon start.
 */
export function mcpHttpHandler(sdk: PluginSDK): (req: Request) => Promise<Response> {
  const source = new MemorySource(sdk);
  return async (req) => {
    const [{ McpServer }, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([import('@modelcontextprotocol/sdk/server/mcp.js'), import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js')]);
    const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
    registerMemoryTools(server, { source, log: sdk.log, confirm: () => sdk.use('host.confirm'), control: () => sdk.use('host.memory-control'), transport: req.headers.get('x-homeagent-mcp-bridge') ? 'stdio' : 'http', timeZone: () => personTimeZone(sdk) });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: 1024 * 1024 });
    await server.connect(transport);
    try {
      return await transport.handleRequest(req);
    } finally {
      await server.close().catch(() => {});
    }
  };
}

/** GET/DELETE on `/mcp`: a stateless server has no stream to open and no session to end. */
export function methodNotAllowed(): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; POST JSON-RPC messages to /mcp' }, id: null }), {
    status: 405,
    headers: { 'content-type': 'application/json', allow: 'POST' },
  });
}
