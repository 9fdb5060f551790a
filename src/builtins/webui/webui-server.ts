import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { Cap, HomeAgentError } from '../../sdk/index.js';
import type { Disposer, PluginSDK } from '../../sdk/index.js';
import { createWebuiApp } from './create-app.js';
import { SseHub } from './sse-hub.js';
import { eventBufferParticipant } from './event-buffer-forget.js';
import { RouteTable } from './route-table.js';
import { InflightTurns } from './inflight-turns.js';
import { ConfirmBroker } from './confirm-broker.js';
import { isLoopbackHost } from './auth.js';
import { chooseWebRoot, packageRoot } from './static-files.js';
import type { WebuiContext } from './webui-context.js';
import { DEFAULT_REQUEST_DEADLINES, enforceRequestDeadlines, type RequestDeadlines } from './request-deadline.js';

/** Options of the server that are no settings (tests lower them). */
export interface WebuiServerOptions {
  /** How long a request may take to arrive whole (request-deadline.ts); default 5 min / 30 s. */
  deadlines?: Partial<RequestDeadlines>;
}

/** The webui refuses to listen on a non-loopback address without a token. */
export class WebuiConfigError extends HomeAgentError {
  constructor(message: string, code = 'WEBUI_CONFIG') {
    super(code, message);
  }
}

/**
 * The one-line error of a port that cannot be had, naming the fixes: another port for this run
 * first (`--port`), the setting only as the way to keep one. When the port came from this run's
 * `--port` (`overriddenBy`), changing the setting does nothing until a start without the flag, so
 * the message does not offer it as a fix for now.
 */
function listenError(e: NodeJS.ErrnoException, host: string, port: number, overriddenBy?: string): Error {
  const fix = overriddenBy
    ? `start again with another ${overriddenBy} ("homed ${overriddenBy} <another port>", or "npm start -- ${overriddenBy} <another port>" in a source checkout); to keep a port for every start without ${overriddenBy}: "waiter config set plugin.webui.port <port>"`
    : `start with "homed --port <another port>" for this run; to keep another port: "waiter config set plugin.webui.port <another port>", then "waiter plugins reload webui"`;
  if (e.code === 'EADDRINUSE') return new WebuiConfigError(`port ${port} on ${host} is already in use (another homed or another program); ${fix}`, 'WEBUI_PORT_IN_USE');
  if (e.code === 'EACCES') return new WebuiConfigError(`no permission to listen on port ${port} of ${host} (ports below 1024 need privileges); ${fix}`, 'WEBUI_PORT_DENIED');
  if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') return new WebuiConfigError(`cannot listen on ${host}: no such local address; set plugin.webui.host (e.g. 127.0.0.1)`, 'WEBUI_BAD_HOST');
  return e;
}

/**
 * The webui server: hono on @hono/node-server, the SSE hub fed by every bus event, the plugin
 * route table kept in sync with `host.routes`, and the `webui` output channel.
 */
export class WebuiServer {
  private server: ServerType | undefined;
  private hub: SseHub | undefined;
  private confirm: ConfirmBroker | undefined;
  private readonly disposers: Disposer[] = [];
  private publicUrl: string | undefined;

  constructor(
    private readonly sdk: PluginSDK,
    private readonly opts: WebuiServerOptions = {},
  ) {}

  private tokenOf: (() => string) | undefined;

  /** The token API requests must carry (for the daemon's own clients and tests). */
  get token(): string | undefined {
    return this.tokenOf?.();
  }

  /** The URL the server listens on, once started. */
  get url(): string | undefined {
    return this.publicUrl;
  }

  async start(): Promise<string> {
    if (this.server) return this.publicUrl!;
    const settings = this.sdk.settings();
    const host = String(settings.get('host') ?? '127.0.0.1');
    const port = Number(settings.get('port') ?? 8765);
    const portInfo = settings.list().find((i) => i.key === 'port');
    const portFlag = portInfo?.origin === 'override' ? (portInfo.overriddenBy ?? '--port') : undefined;
    const configured = () => String(settings.get('token') ?? '');
    const loopback = isLoopbackHost(host);
    if (!loopback && !configured()) throw new WebuiConfigError(`refusing to listen on ${host} without a token: set plugin.webui.token (or HOMEAGENT_WEBUI_TOKEN), or bind to 127.0.0.1`);
    // Every API request needs a token (SPEC §9): the configured one, else the daemon's per-install
    // secret (`host.auth`), else — in a host without one — a random one for this run.
    const auth = this.sdk.use('host.auth');
    const ephemeral = randomBytes(32).toString('base64url');
    const tokenNow = () => configured() || auth?.token() || ephemeral;
    this.tokenOf = tokenNow;

    const hub = new SseHub({ heartbeatMs: Number(settings.get('heartbeat_ms') ?? 15_000) });
    this.hub = hub;
    const routes = new RouteTable();
    const inflight = new InflightTurns();
    const table = this.sdk.use('host.routes');
    if (table) {
      const sync = () => routes.set(table.list());
      sync();
      this.disposers.push(table.onChange(sync));
    }
    // A forget drops the buffered events of its turns, and those quoting what was said there
    // (decision 0430): a client reconnecting with `Last-Event-ID` would be sent them again.
    const mc = this.sdk.use('host.memory-control');
    if (mc) this.disposers.push(mc.registerForgetParticipant('webui-events', eventBufferParticipant(hub)));
    const agent = this.sdk.use('host.agent');
    if (agent) {
      this.disposers.push(
        agent.onAny((event, payload) => {
          inflight.onEvent(event, payload);
          hub.publish(event, payload);
        }),
      );
    }
    this.disposers.push(
      this.sdk.registerOutputChannel(
        'webui',
        Cap.Text | Cap.Image | Cap.File,
        'The HomeAgent WebUI in the browser: messages appear in the chat of the session.',
        (msg) => {
          // The kernel also delivers each turn's final reply here (meta.status); the chat already
          // has it from turn_end, so it is marked as such for the client to skip.
          const status = (msg.meta as { status?: unknown } | undefined)?.status;
          const reply = typeof status === 'string' && ['ok', 'error', 'aborted', 'short-circuit'].includes(status);
          hub.publish('output', { ...msg, kind: reply ? 'reply' : 'message' });
        },
      ),
    );
    const confirm = new ConfirmBroker({ clients: () => hub.clientCount, publish: (event, payload) => hub.publish(event, payload) }, () => Number(settings.get('confirm_timeout_ms') ?? 60_000));
    this.confirm = confirm;
    this.disposers.push(this.sdk.provide('host.confirm', confirm));
    const web = chooseWebRoot(String(settings.get('web_root') ?? ''), this.sdk.homeDir, join(packageRoot(), 'dist', 'web'));
    if (web.warning) this.sdk.log.warn(web.warning);
    const ctx: WebuiContext = {
      sdk: this.sdk,
      hub,
      routes,
      inflight,
      confirm,
      webRoot: web.root,
      dataDir: this.sdk.homeDir,
      token: tokenNow,
      appOrigins: () => (settings.get('app_origins') as string[] | undefined) ?? [],
      loopback,
      url: () => this.publicUrl,
      limits: { jsonBytes: 1024 * 1024, chatBytes: 25 * 1024 * 1024, uploadBytes: 50 * 1024 * 1024 },
    };
    const app = createWebuiApp(ctx);
    const server = await new Promise<ServerType>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(s));
      s.once('error', (e: NodeJS.ErrnoException) => reject(listenError(e, host, port, portFlag)));
    });
    // Node's own whole-request limit (requestTimeout, 5 minutes) cannot spare one route, and an
    // archive uploaded from another machine on the LAN can take longer: it is off, and every
    // request gets its deadline from enforceRequestDeadlines instead — 5 minutes with the token,
    // 30 s without — except the import upload sent with the token, which the transfer service
    // gives up after two minutes without a byte (transfer-service.ts). Headers still must come
    // within headersTimeout (a minute); other bodies are at most 50 MiB.
    (server as { requestTimeout?: number }).requestTimeout = 0;
    enforceRequestDeadlines(server as Server, tokenNow, { ...DEFAULT_REQUEST_DEADLINES, ...this.opts.deadlines }, (what) => this.sdk.log.debug(`cut a request: ${what}`));
    this.server = server;
    hub.start();
    const addr = server.address() as AddressInfo;
    const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    this.publicUrl = `http://${shownHost}:${addr.port}`;
    agent?.setEndpoint('webui', this.publicUrl);
    this.sdk.log.info(`WebUI listening on ${this.publicUrl}`);
    return this.publicUrl;
  }

  /** Closes SSE clients and the server, removes the endpoint. Safe twice. */
  async stop(): Promise<void> {
    for (const d of this.disposers.splice(0).reverse()) {
      try {
        d();
      } catch {}
    }
    this.confirm?.stop();
    this.confirm = undefined;
    this.hub?.stop();
    this.hub = undefined;
    const server = this.server;
    this.server = undefined;
    if (server) {
      this.sdk.use('host.agent')?.setEndpoint('webui', undefined);
      await new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      });
    }
    this.publicUrl = undefined;
  }
}
