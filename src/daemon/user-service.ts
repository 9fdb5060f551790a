import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { writeFileAtomicSync } from '../fs/index.js';
import { HomeAgentError } from '../spec/index.js';

/** The systemd unit name and the launchd label of the HomeAgent user service. */
export const SERVICE_NAME = 'homeagent';
export const LAUNCHD_LABEL = 'dev.homeagent.homed';

/** What a service manager command answered. `missing`: the program is not installed. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
  missing?: boolean;
}

/** Runs a service manager command (`systemctl`, `launchctl`, `loginctl`): the seam tests observe. */
export type CommandRunner = (cmd: string, args: string[]) => Promise<CommandResult>;

/** The real runner: execFile without a shell, 30 s limit; a missing program is reported, not thrown. */
export const execRunner: CommandRunner = (cmd, args) =>
  new Promise((resolve) => {
    execFile(cmd, args, { timeout: 30_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: unknown }) | null;
      if (e && e.code === 'ENOENT') resolve({ code: 127, stdout: '', stderr: `${cmd}: not found`, missing: true });
      else resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout: String(stdout ?? ''), stderr: String(stderr ?? '') });
    });
  });

/** What the service runs and where. */
export interface ServiceOptions {
  /** `linux` → systemd user unit; `darwin` → LaunchAgent; anything else is refused. */
  platform: NodeJS.Platform;
  /** The user's home folder (unit/plist location). */
  userHome: string;
  /** The HomeAgent data folder the service uses. */
  dataHome: string;
  /** Absolute path of node. */
  nodePath: string;
  /** Absolute path of the built `homed` entry (dist/src/daemon/main.js). */
  homedPath: string;
  /** PATH for the service (MCP servers and commands are found through it). */
  pathEnv: string;
  runner: CommandRunner;
  /** Numeric user id (launchd's `gui/<uid>` domain). */
  uid?: number;
}

/** The result shown to the person. `ok: false` when the service could not be enabled. */
export interface ServiceResult {
  ok: boolean;
  kind: 'systemd' | 'launchd';
  file: string;
  message: string;
}

/** The unit / plist path of the user service on this platform. */
export function serviceFile(platform: NodeJS.Platform, userHome: string): { kind: 'systemd' | 'launchd'; file: string } {
  if (platform === 'linux') return { kind: 'systemd', file: join(userHome, '.config', 'systemd', 'user', `${SERVICE_NAME}.service`) };
  if (platform === 'darwin') return { kind: 'launchd', file: join(userHome, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`) };
  throw new HomeAgentError('SERVICE_UNSUPPORTED', `homed install-service supports Linux (systemd) and macOS (launchd), not ${platform}; run "homed start" instead`);
}

/** systemd quotes: a word with spaces or quotes goes in double quotes with \ and " escaped. */
function sdQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The systemd user unit: `homed run` in the foreground, restarted by systemd when it fails.
 * API keys can go in `<data>/homed.env` (KEY=value lines; optional), since a service does not
 * see the login shell's environment.
 */
export function systemdUnit(o: Pick<ServiceOptions, 'nodePath' | 'homedPath' | 'dataHome' | 'pathEnv'>): string {
  return [
    '[Unit]',
    'Description=HomeAgent personal AI agent daemon (homed)',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${sdQuote(o.nodePath)} ${sdQuote(o.homedPath)} run`,
    `Environment=${sdQuote(`HOMEAGENT_HOME=${o.dataHome}`)}`,
    `Environment=${sdQuote(`PATH=${o.pathEnv}`)}`,
    `EnvironmentFile=-${sdQuote(join(o.dataHome, 'homed.env'))}`,
    'Restart=on-failure',
    'RestartSec=5',
    'KillSignal=SIGTERM',
    'TimeoutStopSec=30',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

const xml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The LaunchAgent: started at login, restarted when it exits with a failure. */
export function launchAgentPlist(o: Pick<ServiceOptions, 'nodePath' | 'homedPath' | 'dataHome' | 'pathEnv'>): string {
  const log = join(o.dataHome, 'logs', 'launchd.log');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
    <string>${xml(o.nodePath)}</string>
    <string>${xml(o.homedPath)}</string>
    <string>run</string>
  </array>
  <key>EnvironmentVariables</key>
  <dict>
    <key>HOMEAGENT_HOME</key>
    <string>${xml(o.dataHome)}</string>
    <key>PATH</key>
    <string>${xml(o.pathEnv)}</string>
  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ThrottleInterval</key>
  <integer>5</integer>
  <key>StandardOutPath</key>
  <string>${xml(log)}</string>
  <key>StandardErrorPath</key>
  <string>${xml(log)}</string>
</dict>
</plist>
`;
}

function why(r: CommandResult): string {
  return (r.stderr || r.stdout).trim().split('\n')[0] || `exit code ${r.code}`;
}

/**
 * Writes the user service (systemd unit or LaunchAgent) and enables it so homed starts at login
 * (and at boot with systemd's lingering). `running`: a homed already runs outside the service —
 * the service is enabled but not started now, so the two do not fight over the socket.
 */
export async function installService(o: ServiceOptions, running = false): Promise<ServiceResult> {
  const { kind, file } = serviceFile(o.platform, o.userHome);
  mkdirSync(dirname(file), { recursive: true });
  mkdirSync(join(o.dataHome, 'logs'), { recursive: true });
  writeFileAtomicSync(file, kind === 'systemd' ? systemdUnit(o) : launchAgentPlist(o));
  const after = running ? ' It starts at your next login; a homed is running now (stop it, then start the service to switch).' : '';
  if (kind === 'systemd') {
    const reload = await o.runner('systemctl', ['--user', 'daemon-reload']);
    if (reload.missing || reload.code !== 0) {
      return {
        ok: false,
        kind,
        file,
        message: `wrote ${file}, but systemd's user manager is not available here (${why(reload)}). Without systemd, start homed with "homed start"; where systemd runs, enable the unit with "systemctl --user enable --now ${SERVICE_NAME}".`,
      };
    }
    const enable = await o.runner('systemctl', ['--user', 'enable', ...(running ? [] : ['--now']), `${SERVICE_NAME}.service`]);
    if (enable.code !== 0) return { ok: false, kind, file, message: `wrote ${file}, but "systemctl --user enable" failed: ${why(enable)}` };
    // Without lingering a user service starts at login only; with it, at boot.
    const linger = await o.runner('loginctl', ['enable-linger', userInfo().username]);
    const lingerNote = linger.code === 0 ? ' It also starts at boot (lingering is on).' : ` It starts when you log in; to start it at boot too, run "loginctl enable-linger" (${why(linger)}).`;
    return { ok: true, kind, file, message: `installed and enabled the systemd user service ${SERVICE_NAME} (${file}).${lingerNote}${after} Logs: journalctl --user -u ${SERVICE_NAME}; API keys can go in ${join(o.dataHome, 'homed.env')}.` };
  }
  const uid = o.uid ?? process.getuid?.() ?? 0;
  if (running) return { ok: true, kind, file, message: `wrote the LaunchAgent ${file}.${after}` };
  await o.runner('launchctl', ['bootout', `gui/${uid}/${LAUNCHD_LABEL}`]);
  const boot = await o.runner('launchctl', ['bootstrap', `gui/${uid}`, file]);
  if (boot.missing || boot.code !== 0) return { ok: false, kind, file, message: `wrote ${file}, but "launchctl bootstrap" failed (${why(boot)}); it loads at your next login.` };
  return { ok: true, kind, file, message: `installed and loaded the LaunchAgent ${LAUNCHD_LABEL} (${file}); homed starts at login and restarts after a crash.` };
}

/** Disables and removes the user service. Nothing installed → ok with a message saying so. */
export async function uninstallService(o: Pick<ServiceOptions, 'platform' | 'userHome' | 'runner' | 'uid'>): Promise<ServiceResult> {
  const { kind, file } = serviceFile(o.platform, o.userHome);
  if (!existsSync(file)) return { ok: true, kind, file, message: `no HomeAgent user service is installed (${file} does not exist)` };
  let note = '';
  if (kind === 'systemd') {
    const r = await o.runner('systemctl', ['--user', 'disable', '--now', `${SERVICE_NAME}.service`]);
    if (r.missing || r.code !== 0) note = ` (systemctl --user disable: ${why(r)})`;
    rmSync(file, { force: true });
    await o.runner('systemctl', ['--user', 'daemon-reload']);
  } else {
    const uid = o.uid ?? process.getuid?.() ?? 0;
    const r = await o.runner('launchctl', ['bootout', `gui/${uid}/${LAUNCHD_LABEL}`]);
    if (r.missing || (r.code !== 0 && r.code !== 3 && r.code !== 113)) note = ` (launchctl bootout: ${why(r)})`;
    rmSync(file, { force: true });
  }
  return { ok: true, kind, file, message: `removed the HomeAgent user service (${file})${note}` };
}

/** Defaults of the running process for {@link ServiceOptions}. */
export function currentServiceOptions(dataHome: string, homedPath: string, runner: CommandRunner = execRunner): ServiceOptions {
  return { platform: process.platform, userHome: homedir(), dataHome, nodePath: process.execPath, homedPath, pathEnv: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', runner, uid: process.getuid?.() };
}
