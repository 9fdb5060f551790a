import { definePlugin } from '../../sdk/index.js';
import type { PluginDefinition } from '../../spec/index.js';
import { webuiSettings } from './settings.js';
import type { WebuiServer, WebuiServerOptions } from './webui-server.js';

/**
 * Builds the `webui` plugin definition. Each call has its own server, so two hosts in one process
 * (tests, an embedding app) never share or leak one. The server (hono, the routes, the SPA files)
 * is imported when the plugin starts, not when the daemon loads its built-ins: the CLI socket
 * answers while the WebUI is still coming up (cold start, issue 14). `opts` are the server's
 * options that are no settings (tests lower the request deadlines).
 */
export function createWebuiPlugin(opts: WebuiServerOptions = {}): PluginDefinition {
  let server: WebuiServer | undefined;
  return definePlugin({
    name: 'webui',
    description: 'WebUI: chat, memory panel, graph and settings in the browser',
    settings: webuiSettings,
    async start(sdk) {
      const { WebuiServer } = await import('./webui-server.js');
      server = new WebuiServer(sdk, opts);
      await server.start();
    },
    async stop() {
      await server?.stop();
      server = undefined;
    },
  }) as PluginDefinition;
}

/** One `webui` definition (for a single host; `builtinPlugins()` builds a fresh one per host). */
export default createWebuiPlugin();
