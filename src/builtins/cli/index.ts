import { join } from 'node:path';
import { Cap, definePlugin, type PluginDefinition } from '../../sdk/index.js';
import { CliSocketServer } from './socket-server.js';

/** The socket file inside a data folder. */
export function socketPath(homeDir: string): string {
  return join(homeDir, 'homed.sock');
}

/**
 * The `cli` channel (P-7): the Unix socket server that `waiter` talks to. It reaches the kernel
 * only through the SDK (input, interrupts, events) and the host services.
 */
export function createCliPlugin(): PluginDefinition {
  let server: CliSocketServer | undefined;
  return definePlugin({
    name: 'cli',
    description: 'Unix socket server for the waiter CLI',
    async start(sdk) {
      sdk.registerOutputChannel('cli', Cap.Text, 'The waiter command-line client.', () => {
        // Replies reach waiter through the turn's stream and its final result; nothing to push.
      });
      server = new CliSocketServer(sdk, socketPath(sdk.homeDir));
      await server.start();
      sdk.use('host.agent')?.setEndpoint('socket', server.path);
      sdk.log.info(`listening on ${server.path}`);
    },
    async stop() {
      await server?.stop();
      server = undefined;
    },
  });
}

export default createCliPlugin();
