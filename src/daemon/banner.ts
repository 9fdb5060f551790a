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
