import { definePlugin } from '../../sdk/index.js';
import { webuiSettings } from './settings.js';

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
    // One server per start, stopped by that start's disposer: a module-level reference let a
    // second daemon in the same process (tests) overwrite the first's, whose server then never closed.
    const server = new WebuiServer(sdk);
    sdk.onDispose(() => server.stop());
    await server.start();
  },
});
