import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Disposer, PluginLogger, ToolDef } from '../../spec/index.js';
import { HomeAgentError } from '../../spec/index.js';
import { mcpToolName } from './tool-name.js';
import { contentToText, type McpToolResultLike } from './content-to-text.js';
import type { McpServerConfig } from './mcp-settings.js';

type McpSdk = {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  StdioClientTransport: typeof import('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport;
  getDefaultEnvironment: typeof import('@modelcontextprotocol/sdk/client/stdio.js').getDefaultEnvironment;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  McpError: typeof import('@modelcontextprotocol/sdk/types.js').McpError;
  ErrorCode: typeof import('@modelcontextprotocol/sdk/types.js').ErrorCode;
};
let sdkLoad: Promise<McpSdk> | undefined;

/**
 * The MCP SDK, imported on the first connection: it and what it pulls in (ajv, a second zod,
 * zod-to-json-schema: ~150 modules, ~120 ms) cost every daemon start otherwise, and most
 * users configure no MCP server.
 */
function mcpSdk(): Promise<McpSdk> {
  sdkLoad ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([c, s, h, t]) => ({ Client: c.Client, StdioClientTransport: s.StdioClientTransport, getDefaultEnvironment: s.getDefaultEnvironment, StreamableHTTPClientTransport: h.StreamableHTTPClientTransport, McpError: t.McpError, ErrorCode: t.ErrorCode }));
  return sdkLoad;
}

/** What the plugin shows about one server. */
export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: 'connecting' | 'connected' | 'disconnected' | 'stopped';
  tools: string[];
  reconnects: number;
  lastError?: string;
  /** Process id of a stdio server while it runs. */
  pid?: number;
}

export interface McpConnectionOptions {
  /** Registers one agent tool; returns its disposer (the SDK's registerTool). */
  registerTool: (def: ToolDef) => Disposer;
  log: PluginLogger;
  callTimeoutMs: () => number;
  connectTimeoutMs?: number;
  /** First reconnect delay; doubles up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Called whenever the state or tool list changes. */
  onChange?: () => void;
  clientVersion?: string;
}

interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}

/**
 * One MCP server: connects, turns its tools into agent tools (`mcp__<server>__<tool>`), and
 * when the connection drops (e.g. the server process crashed) removes those tools and
 * reconnects with exponential back-off, registering them again once it is back.
 */
export class McpConnection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private toolDisposers: Disposer[] = [];
  private toolNames: string[] = [];
  private state: McpServerStatus['state'] = 'disconnected';
  private stopped = false;
  private attempt = 0;
  private reconnects = 0;
  private lastError: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private connecting: Promise<void> | undefined;

  constructor(
    readonly config: McpServerConfig,
    private readonly opts: McpConnectionOptions,
  ) {}

  /** Connects once; on failure schedules reconnects. Resolves after the first attempt. */
  start(): Promise<void> {
    this.stopped = false;
    return this.connect();
  }

  status(): McpServerStatus {
    const pid = 'url' in this.config ? undefined : ((this.transport as { pid?: number | null } | undefined)?.pid ?? undefined);
    return { name: this.config.name, transport: 'url' in this.config ? 'http' : 'stdio', state: this.state, tools: [...this.toolNames], reconnects: this.reconnects, lastError: this.lastError, pid };
  }

  /** Closes the connection and removes the tools; no reconnect afterwards. Safe to call twice. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.connecting?.catch(() => {});
    this.dropTools();
    const c = this.client;
    this.client = undefined;
    this.transport = undefined;
    this.setState('stopped');
    await c?.close().catch(() => {});
  }

  private setState(s: McpServerStatus['state']): void {
    this.state = s;
    this.opts.onChange?.();
  }

  private makeTransport({ StreamableHTTPClientTransport, StdioClientTransport, getDefaultEnvironment }: McpSdk): Transport {
    const c = this.config;
    if ('url' in c) return new StreamableHTTPClientTransport(new URL(c.url), { requestInit: { headers: c.headers ?? {} } });
    const t = new StdioClientTransport({ command: c.command, args: c.args ?? [], env: { ...getDefaultEnvironment(), ...(c.env ?? {}) }, cwd: c.cwd, stderr: 'pipe' });
    // Keep the server's stderr out of the daemon's own output, but log its last lines.
    t.stderr?.on('data', (b: Buffer) => this.opts.log.debug(`mcp ${c.name} stderr`, { text: b.toString('utf8').slice(0, 500) }));
    return t;
  }

  private connect(): Promise<void> {
    const run = async () => {
      this.setState('connecting');
      let sdk: McpSdk;
      try {
        sdk = await mcpSdk();
      } catch (e) {
        sdkLoad = undefined;
        this.lastError = `cannot load the MCP SDK: ${e instanceof Error ? e.message : String(e)}`;
        this.setState('disconnected');
        this.schedule();
        return;
      }
      const client = new sdk.Client(
        { name: 'homeagent', version: this.opts.clientVersion ?? '0.1.0' },
        {
          capabilities: {},
          listChanged: {
            tools: {
              onChanged: (err, tools) => {
                if (err || !tools || this.client !== client) return;
                this.registerTools(client, tools as McpToolInfo[], sdk);
              },
            },
          },
        },
      );
      const transport = this.makeTransport(sdk);
      try {
        await client.connect(transport, { timeout: this.opts.connectTimeoutMs ?? 15_000 });
        const tools: McpToolInfo[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.opts.connectTimeoutMs ?? 15_000 });
          tools.push(...(page.tools as McpToolInfo[]));
          cursor = page.nextCursor;
        } while (cursor && tools.length < 10_000);
        if (this.stopped) {
          await client.close().catch(() => {});
          return;
        }
        this.client = client;
        this.transport = transport;
        this.attempt = 0;
        this.lastError = undefined;
        client.onclose = () => this.lost(client, 'connection closed');
        client.onerror = (e) => this.opts.log.warn(`mcp ${this.config.name}: ${e.message}`);
        this.registerTools(client, tools, sdk);
        this.setState('connected');
        this.opts.log.info(`mcp ${this.config.name} connected`, { tools: tools.length });
      } catch (e) {
        await client.close().catch(() => {});
        this.lastError = e instanceof Error ? e.message : String(e);
        this.opts.log.warn(`mcp ${this.config.name}: cannot connect`, { error: this.lastError });
        this.setState('disconnected');
        this.schedule();
      }
    };
    this.connecting = run().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private lost(client: Client, why: string): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.transport = undefined;
    client.onclose = undefined;
    void client.close().catch(() => {});
    this.dropTools();
    if (this.stopped) return;
    this.lastError = why;
    this.opts.log.warn(`mcp ${this.config.name}: ${why}; reconnecting`);
    this.setState('disconnected');
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    const base = this.opts.backoffMs ?? 1000;
    const delay = Math.min(this.opts.maxBackoffMs ?? 30_000, base * 2 ** this.attempt);
    this.attempt++;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped) return;
      this.reconnects++;
      void this.connect();
    }, delay);
    this.timer.unref?.();
  }

  private dropTools(): void {
    for (const d of this.toolDisposers.reverse()) d();
    this.toolDisposers = [];
    this.toolNames = [];
  }

  private registerTools(client: Client, tools: McpToolInfo[], { McpError, ErrorCode }: McpSdk): void {
    this.dropTools();
    for (const t of tools) {
      const name = mcpToolName(this.config.name, t.name);
      const schema = { ...(t.inputSchema ?? { type: 'object', properties: {} }) };
      delete schema.$schema;
      try {
        this.toolDisposers.push(
          this.opts.registerTool({
            name,
            description: `[MCP ${this.config.name}] ${t.description ?? t.name}`.slice(0, 1024),
            parameters: schema,
            handler: async (args, call) => {
              if (this.client !== client) throw new HomeAgentError('UNAVAILABLE', `MCP server ${this.config.name} is not connected`, { retryable: true });
              try {
                const r = await client.callTool({ name: t.name, arguments: args }, undefined, { signal: call.signal, timeout: this.opts.callTimeoutMs() });
                return contentToText(r as McpToolResultLike);
              } catch (e) {
                // A protocol error is the tool's answer; anything else (fetch failed, HTTP 5xx,
                // closed pipe) means the server is gone: an HTTP server has no process whose
                // exit would tell us, so the failed call starts the reconnect.
                const transportLevel = !(e instanceof McpError) || e.code === ErrorCode.ConnectionClosed;
                if (transportLevel && !call.signal.aborted) {
                  this.lost(client, `call failed: ${e instanceof Error ? e.message : String(e)}`);
                  throw new HomeAgentError('UNAVAILABLE', `MCP server ${this.config.name} is unreachable (${e instanceof Error ? e.message : String(e)}); reconnecting`, { retryable: true, cause: e });
                }
                throw e;
              }
            },
          }),
        );
        this.toolNames.push(name);
      } catch (e) {
        this.opts.log.warn(`mcp ${this.config.name}: cannot register tool ${name}`, { error: String(e) });
      }
    }
    this.opts.onChange?.();
  }
}
