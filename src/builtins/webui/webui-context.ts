import type { PluginSDK } from '../../sdk/index.js';
import type { SseHub } from './sse-hub.js';
import type { RouteTable } from './route-table.js';
import type { InflightTurns } from './inflight-turns.js';
import type { ConfirmBroker } from './confirm-broker.js';

/** What the webui routes share. */
export interface WebuiContext {
  sdk: PluginSDK;
  hub: SseHub;
  routes: RouteTable;
  inflight: InflightTurns;
  /** `host.confirm`: questions waiting for the user. */
  confirm: ConfirmBroker;
  /** Folder of the built SPA (`dist/web`). */
  webRoot: string;
  /** The data folder: no file inside it is ever served as a static file (decision 0350). */
  dataDir?: string;
  /** Origins of chat apps allowed on `/v1/` and `/mcp` (`plugin.webui.app_origins`). */
  appOrigins?: () => readonly string[];
  /** The configured token ('' = none). */
  token: () => string;
  /** True when bound to loopback: the Host header is checked against DNS rebinding. */
  loopback: boolean;
  /** The public URL once listening. */
  url: () => string | undefined;
  limits: { jsonBytes: number; chatBytes: number; uploadBytes: number };
}
