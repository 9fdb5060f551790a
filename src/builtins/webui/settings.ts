import { z } from 'zod';
import type { ConfigKeyDef } from '../../sdk/index.js';

function key(schema: z.ZodType, def: string | number, description: string, extra: Partial<ConfigKeyDef> = {}): ConfigKeyDef {
  return { schema, default: def, description, jsonSchema: z.toJSONSchema(schema) as Record<string, unknown>, ...extra } as unknown as ConfigKeyDef;
}

/** Settings of the webui plugin (`plugin.webui.*`). */
export const webuiSettings: Record<string, ConfigKeyDef> = {
  host: key(z.string().min(1).max(255), '127.0.0.1', 'Address the WebUI listens on (anything but loopback requires the token)', { env: 'HOMEAGENT_WEBUI_HOST', privileged: true }),
  port: key(z.number().int().min(0).max(65_535), 8765, 'Port of the WebUI (0 = any free port)', { env: 'HOMEAGENT_WEBUI_PORT', privileged: true }),
  token: key(z.string().max(512), '', 'Access token of the WebUI and HTTP API (required when not bound to loopback)', { secret: true, env: 'HOMEAGENT_WEBUI_TOKEN' }),
  heartbeat_ms: key(z.number().int().min(500).max(600_000), 15_000, 'Interval of SSE heartbeats in ms'),
  confirm_timeout_ms: key(z.number().int().min(1000).max(3_600_000), 60_000, 'How long a confirmation (host.confirm, e.g. cmd outside its allowlist) waits for an answer in the WebUI before it counts as denied'),
  app_origins: {
    schema: z.array(z.string().max(200).regex(/^[a-z][a-z0-9+.-]*:\/\/[^/\s]+$/, 'an origin such as http://localhost:3210 (scheme://host[:port], no path)')).max(50),
    default: [],
    description:
      'Origins of browser or desktop chat apps (e.g. http://localhost:3210) that may call the OpenAI-compatible API (/v1/) and MCP (/mcp) with the token; their CORS preflight is answered. Empty: only clients that send no Origin (curl, SDKs, server-side apps)',
    jsonSchema: { type: 'array', items: { type: 'string' } },
    privileged: true,
  } as unknown as ConfigKeyDef,
  web_root: key(z.string().max(4096), '', 'Folder of the built web app (empty = dist/web of the package); never the data folder, inside it or above it', { privileged: true }),
};
