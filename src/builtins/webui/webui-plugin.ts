import { definePlugin } from '../../sdk/index.js';
import { webuiSettings } from './settings.js';
import type { WebuiServer } from './webui-server.js';

let server: WebuiServer | undefined;

/**
 * The `webui` plugin definition. The server (hono, the routes, the SPA files) is imported when
 * the plugin starts, not when the daemon loads its built-ins: the CLI socket answers while the
 * WebUI is still coming up (cold start, issue 14).
 */
export default definePlugin({
  name: 'webui',
  description: 'WebUI: chat, memory panel, graph and settings in the browser',
  settings: webuiSettings,
  async start(sdk) {
    const { WebuiServer } = await import('./webui-server.js');
    server = new WebuiServer(sdk);
    await server.start();
  },
  async stop() {
    await server?.stop();
    server = undefined;
  },
});
