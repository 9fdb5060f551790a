import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export { AUTH_TOKEN_FILE, authTokenPath, ensureAuthToken, readAuthToken, signInUrl } from './auth-token.js';
export { packageVersion } from './package-version.js';

/** The data folder: `$HOMEAGENT_HOME`, default `~/.homeagent` (SPEC §0). */
export function resolveHome(env: Record<string, string | undefined> = process.env): string {
  const h = env.HOMEAGENT_HOME?.trim();
  return resolve(h ? h : join(homedir(), '.homeagent'));
}

/** Every well-known path inside a data folder. */
export function homePaths(home: string) {
  return {
    home,
    configDb: join(home, 'config.db'),
    graphDb: join(home, 'graph.db'),
    sessions: join(home, 'sessions'),
    logs: join(home, 'logs'),
    daemonLog: join(home, 'logs', 'homed.log'),
    supervisorLog: join(home, 'logs', 'supervisor.log'),
    textLog: join(home, 'logs', 'text.jsonl'),
    pidFile: join(home, 'homed.pid'),
    /** Held (an OS lock) by the process that wrote the pid file, while it lives. */
    lockFile: join(home, 'homed.lock'),
    socket: join(home, 'homed.sock'),
    persona: join(home, 'persona.md'),
    adapters: join(home, 'adapters'),
    plugins: join(home, 'plugins'),
    media: join(home, 'media'),
    authToken: join(home, 'auth-token'),
  };
}
export type HomePaths = ReturnType<typeof homePaths>;
