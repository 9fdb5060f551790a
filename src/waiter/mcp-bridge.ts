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
  /** After stdin closes, how long requests already sent may still take to be answered (ms; 60 s). */
  drainMs?: number;
}

function isRequest(m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number; method: string } {
  return 'method' in m && 'id' in m && m.id !== undefined;
}

function responseId(m: JSONRPCMessage): string | number | undefined {
  return 'id' in m && m.id !== undefined && m.id !== null && ('result' in m || 'error' in m) ? m.id : undefined;
}

/**
 * Runs the bridge until stdin closes and the requests already read are answered (within
 * `drainMs`): a client that writes its requests and closes stdin (`… | waiter mcp`) still gets
 * every reply. A request the daemon cannot take (not running, token refused) is answered with a
 * JSON-RPC error instead of leaving the client waiting.
 */
export async function runMcpBridge(o: BridgeOptions): Promise<void> {
  const [{ StdioServerTransport }, { StreamableHTTPClientTransport }] = await Promise.all([import('@modelcontextprotocol/sdk/server/stdio.js'), import('@modelcontextprotocol/sdk/client/streamableHttp.js')]);
  const stdio = new StdioServerTransport();
  const http = new StreamableHTTPClientTransport(new URL('/mcp', o.baseUrl), {
    requestInit: { headers: { authorization: `Bearer ${o.token}`, 'x-homeagent-mcp-bridge': '1' } },
  });
  const initializeIds = new Set<string | number>();
  // Requests read from stdin whose reply is not written to stdout yet.
  const inFlight = new Set<string | number>();
  let drained: (() => void) | undefined;
  const answered = (id: string | number | undefined) => {
    if (id !== undefined && inFlight.delete(id) && inFlight.size === 0) drained?.();
  };
  const reply = (m: JSONRPCMessage) =>
    stdio
      .send(m)
      .catch((e: unknown) => o.log(`mcp bridge: cannot write to stdout: ${(e as Error).message}`))
      .finally(() => answered(responseId(m)));
  http.onmessage = (m) => {
    // Later requests carry the negotiated protocol version, as an SDK client would send it.
    if ('id' in m && m.id !== undefined && initializeIds.delete(m.id) && 'result' in m) {
      const v = (m.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof v === 'string') http.setProtocolVersion(v);
    }
    void reply(m);
  };
  http.onerror = (e) => o.log(`mcp bridge: ${e.message}`);
  stdio.onerror = (e) => o.log(`mcp bridge: bad message on stdin: ${e.message}`);
  stdio.onmessage = (m) => {
    if (isRequest(m)) {
      inFlight.add(m.id);
      if (m.method === 'initialize') initializeIds.add(m.id);
    }
    http.send(m).catch((e: unknown) => {
      const message = `HomeAgent daemon at ${o.baseUrl} did not take the message: ${(e as Error).message}`;
      o.log(`mcp bridge: ${message}`);
      if (isRequest(m)) void reply({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message } });
    });
  };
  await http.start();
  await stdio.start();
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  // Closing the HTTP transport aborts its requests: the replies still coming are waited for first.
  if (inFlight.size) {
    const drainMs = o.drainMs ?? 60_000;
    const timedOut = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(true), drainMs);
      drained = () => {
        clearTimeout(timer);
        resolve(false);
      };
    });
    if (timedOut) o.log(`mcp bridge: stdin closed; ${inFlight.size} request(s) still unanswered after ${Math.round(drainMs / 1000)} s are dropped`);
  }
  await stdio.close().catch(() => {});
  await http.close().catch(() => {});
}
