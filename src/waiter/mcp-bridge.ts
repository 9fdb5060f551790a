/**
 * `waiter mcp`: an MCP server on stdio for clients that start a program (Claude Desktop, Cursor
 * …), relaying every JSON-RPC message to the daemon's streamable HTTP endpoint (`/mcp`) with the
 * install's token. The tools live once, in the daemon (decision 0040); this process only carries
 * messages, so it needs no state and survives a daemon restart between two calls.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Where to reach the daemon. */
export interface BridgeOptions {
  /** The daemon's HTTP base URL (`http://127.0.0.1:8765`). */
  baseUrl: string;
  token: string;
  /** Diagnostics go to stderr (stdout is the protocol). */
  log(line: string): void;
}

function isRequest(m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number; method: string } {
  return 'method' in m && 'id' in m && m.id !== undefined;
}

/**
 * Runs the bridge until stdin closes. A request the daemon cannot take (not running, token
 * refused) is answered with a JSON-RPC error instead of leaving the client waiting.
 */
export async function runMcpBridge(o: BridgeOptions): Promise<void> {
  const [{ StdioServerTransport }, { StreamableHTTPClientTransport }] = await Promise.all([import('@modelcontextprotocol/sdk/server/stdio.js'), import('@modelcontextprotocol/sdk/client/streamableHttp.js')]);
  const stdio = new StdioServerTransport();
  const http = new StreamableHTTPClientTransport(new URL('/mcp', o.baseUrl), {
    requestInit: { headers: { authorization: `Bearer ${o.token}`, 'x-homeagent-mcp-bridge': '1' } },
  });
  const initializeIds = new Set<string | number>();
  http.onmessage = (m) => {
    // Later requests carry the negotiated protocol version, as an SDK client would send it.
    if ('id' in m && m.id !== undefined && initializeIds.delete(m.id) && 'result' in m) {
      const v = (m.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof v === 'string') http.setProtocolVersion(v);
    }
    void stdio.send(m).catch((e: unknown) => o.log(`mcp bridge: cannot write to stdout: ${(e as Error).message}`));
  };
  http.onerror = (e) => o.log(`mcp bridge: ${e.message}`);
  stdio.onerror = (e) => o.log(`mcp bridge: bad message on stdin: ${e.message}`);
  stdio.onmessage = (m) => {
    if (isRequest(m) && m.method === 'initialize') initializeIds.add(m.id);
    http.send(m).catch((e: unknown) => {
      const message = `HomeAgent daemon at ${o.baseUrl} did not take the message: ${(e as Error).message}`;
      o.log(`mcp bridge: ${message}`);
      if (isRequest(m)) void stdio.send({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message } });
    });
  };
  await http.start();
  await stdio.start();
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await stdio.close().catch(() => {});
  await http.close().catch(() => {});
}
