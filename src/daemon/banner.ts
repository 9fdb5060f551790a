import { signInUrl } from '../paths/index.js';
import { waiterCommand } from './cli-hint.js';

/**
 * The banner's WebUI line. The sign-in link carries the secret, so it is printed only to a person's
 * terminal: never when stdout is a file or a journal — supervised (logs/supervisor.log), a
 * systemd unit or a LaunchAgent (`homed install-service`), or `npm start > file` — where
 * `waiter webui` prints it on demand instead.
 */
export function webuiLine(url: string, token: string, o: { supervised: boolean; tty: boolean }): string {
  if (o.supervised || !o.tty) return `  WebUI:  ${url}  (sign-in link: ${waiterCommand()} webui)`;
  return `  WebUI:  ${signInUrl(url, token)}\n          (open this link once to sign this browser in; \`${waiterCommand()} webui\` prints it again)`;
}

/**
 * The banner's WebUI line as things stand, at ready and again once a WebUI that was still starting
 * has settled (decision 0660): its address ({@link webuiLine}) when it is serving, else why not —
 * "still starting", its start error, or its state.
 */
export function webuiStatusLine(now: { url?: string; token: () => string; webui?: { state: string; lastError?: string } }, o: { supervised: boolean; tty: boolean }): string {
  if (now.url) return webuiLine(now.url, now.token(), o);
  const w = now.webui;
  const why = w?.state === 'starting' ? 'still starting' : (w?.lastError ?? w?.state ?? 'not installed').replace(/^(webui: )?start failed: /, '');
  return `  WebUI:  not running: ${why}`;
}
