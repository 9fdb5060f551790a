/**
 * `homed` — the HomeAgent daemon (C-12), loaded by the entry `main.ts` once it has set V8's young
 * generation (decision 0180). `homed` alone runs in the foreground; `homed start`
 * runs it in the background under a supervisor that restarts it after a crash; `stop`,
 * `status`, `restart` manage it through the pid file and the socket; `install-service` makes the
 * system start it at login/boot. `--port N` picks the WebUI port for one run.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { homePaths, resolveHome, type HomePaths } from '../paths/index.js';
import { rotateIfLarge } from '../log/index.js';
import { DaemonClient } from '../waiter/daemon-client.js';
import { processAlive, readPid, removePid, writePid } from './pid-file.js';
import { InstanceLock } from './instance-lock.js';
import { Supervisor } from './supervisor.js';
import { startDaemon } from './daemon.js';
import { applyDaemonV8Flags, holdYoungGeneration } from './v8-memory.js';
import { homedCommand, waiterHint } from './cli-hint.js';
import { webuiStatusLine } from './banner.js';
import { currentServiceOptions, installService, uninstallService, type CommandRunner } from './user-service.js';

/** The entry (`main.js` beside this file), what the supervisor and the service run: it sets V8's young generation before anything loads. */
const self = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './main.ts' : './main.js', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Status {
  running: boolean;
  pid?: number;
  socket: boolean;
  endpoints?: Record<string, string>;
  llmAvailable?: boolean;
  /** State of the webui plugin (the socket can answer while the WebUI is still starting). */
  webui?: string;
  webuiError?: string;
}

/** True when a daemon answers `status` on the socket. */
async function socketAnswers(socket: string): Promise<boolean> {
  const c = new DaemonClient(socket);
  try {
    await c.connect();
    await c.request('status');
    return true;
  } catch {
    return false;
  } finally {
    c.close();
  }
}

/**
 * The pid in `homed.pid` when homed really runs under it: its process holds the instance lock, or
 * (a daemon of a version before the lock) its socket answers. A pid file a crash left names a
 * number another program may have by now; that one is undefined here.
 */
async function livePid(p: HomePaths): Promise<number | undefined> {
  const pid = readPid(p.pidFile);
  if (pid === undefined || !processAlive(pid)) return undefined;
  return InstanceLock.isHeld(p.lockFile) || (await socketAnswers(p.socket)) ? pid : undefined;
}

/**
 * Takes the instance lock for this process and writes the pid file, or says who runs and exits 1.
 * A pid file whose process is not homed (left by a crash, its number reused since) is replaced
 * with a line saying so.
 */
async function claimHome(p: HomePaths): Promise<void> {
  const lock = InstanceLock.acquire(p.lockFile);
  const pid = readPid(p.pidFile);
  const other = pid !== undefined && pid !== process.pid && processAlive(pid);
  if (!lock || (other && (await socketAnswers(p.socket)))) {
    lock?.release();
    process.stderr.write(`homed is already running${pid ? ` (pid ${pid})` : ''}; use "${homedCommand()} stop" first\n`);
    process.exit(1);
  }
  if (other) process.stderr.write(`homed: ${p.pidFile} named pid ${pid}, which is not homed (a pid file left by a crash; the number was reused since): replaced\n`);
  instanceLock = lock;
  writePid(p.pidFile);
}

/** This process's instance lock, held until it exits (a module variable, so nothing collects it). */
let instanceLock: InstanceLock | undefined;

async function probe(home: string): Promise<Status> {
  const p = homePaths(home);
  const pid = readPid(p.pidFile);
  const running = pid !== undefined && processAlive(pid) && InstanceLock.isHeld(p.lockFile);
  const c = new DaemonClient(p.socket);
  try {
    await c.connect();
    const s = await c.request<{ endpoints: Record<string, string>; llmAvailable: boolean; plugins?: { name: string; state: string }[] }>('status');
    const webui = s.plugins?.find((x) => x.name === 'webui')?.state;
    return { running: true, pid, socket: true, endpoints: s.endpoints, llmAvailable: s.llmAvailable, webui };
  } catch {
    return { running, pid: running ? pid : undefined, socket: false };
  } finally {
    c.close();
  }
}

/** Foreground: run until SIGTERM/SIGINT, then stop cleanly (the turn in flight stops at a step boundary). */
async function runForeground(home: string, supervised: boolean, port?: number): Promise<void> {
  // Before anything is allocated: opt-in heap tuning, less RSS for more GC time (decision 0110).
  applyDaemonV8Flags();
  const p = homePaths(home);
  mkdirSync(home, { recursive: true });
  if (!supervised) await claimHome(p);
  const daemon = await startDaemon({ homeDir: home, console: !supervised, webuiPort: port });
  // The entry kept the young generation at its first size while the modules loaded and the tiers
  // opened (nothing can watch a growth inside synchronous code); now it may grow to its bound and is held there.
  holdYoungGeneration();
  // The sign-in link carries the secret: printed on a terminal only, never into a log file.
  const webuiNow = () => webuiStatusLine({ url: daemon.url, token: () => daemon.signInToken(), webui: daemon.registry.get('webui') }, { supervised, tty: process.stdout.isTTY === true });
  const url = daemon.url;
  const webui = daemon.registry.get('webui');
  process.stdout.write(
    [
      `homed is running (pid ${process.pid}, data in ${home})`,
      webuiNow(),
      `  CLI:    ${waiterHint()}`,
      daemon.providers.available() ? '' : '  No LLM source is configured yet: set DEEPSEEK_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY, run Ollama locally, or add a key in the WebUI settings.',
    ]
      .filter(Boolean)
      .join('\n') + '\n',
  );
  // A WebUI still starting when the banner went out (a slow or loaded machine): its line follows
  // once the plugins have settled, so the person is not left without the address.
  if (!url && webui?.state === 'starting') {
    void daemon.registry.settled().then(
      () => void process.stdout.write(`${webuiNow()}\n`),
      () => undefined,
    );
  }
  let stopping = false;
  const shutdown = async (sig: string) => {
    if (stopping) return;
    stopping = true;
    daemon.log.info(`received ${sig}`);
    await daemon.stop();
    if (!supervised) removePid(p.pidFile);
    instanceLock?.release();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('unhandledRejection', (e) => daemon.log.error(`unhandled rejection: ${(e as Error)?.message ?? e}`, { stack: (e as Error)?.stack }));
}

/** The supervisor process behind `homed start`. */
async function runSupervisor(home: string, port?: number): Promise<void> {
  const p = homePaths(home);
  mkdirSync(home, { recursive: true });
  await claimHome(p);
  const sup = new Supervisor({
    command: process.execPath,
    args: [...process.execArgv, self, 'run', '--supervised', ...(port !== undefined ? ['--port', String(port)] : [])],
    env: { ...process.env, HOMEAGENT_HOME: home },
    logFile: p.supervisorLog,
    baseDelayMs: Number(process.env.HOMEAGENT_RESTART_DELAY_MS ?? 1000),
  });
  sup.start();
  const stop = async () => {
    await sup.stop();
    removePid(p.pidFile);
    instanceLock?.release();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

async function start(home: string, json: boolean, port?: number): Promise<number> {
  const before = await probe(home);
  if (before.running) {
    report(json, { ...before, message: `homed is already running (pid ${before.pid})` });
    return 0;
  }
  const p = homePaths(home);
  mkdirSync(p.logs, { recursive: true });
  rotateIfLarge(p.supervisorLog);
  const fd = openSync(p.supervisorLog, 'a');
  const child = spawn(process.execPath, [...process.execArgv, self, 'supervise', ...(port !== undefined ? ['--port', String(port)] : [])], { detached: true, stdio: ['ignore', fd, fd], env: { ...process.env, HOMEAGENT_HOME: home } });
  closeSync(fd);
  child.unref();
  const deadline = Date.now() + Number(process.env.HOMEAGENT_START_TIMEOUT_MS ?? 60_000);
  while (Date.now() < deadline) {
    await sleep(200);
    const s = await probe(home);
    // Ready when the socket answers and the WebUI has come up (or settled as not running).
    if (s.socket && (s.endpoints?.webui || (s.webui !== 'starting' && s.webui !== 'stopped'))) {
      report(json, { ...s, message: `homed started (pid ${s.pid})${s.endpoints?.webui ? `; WebUI: ${s.endpoints.webui}` : s.webui ? `; WebUI not running (${s.webui}; see ${p.daemonLog})` : ''}` });
      return 0;
    }
  }
  report(json, { running: false, socket: false, message: `homed did not come up in time; see ${p.supervisorLog} and ${p.daemonLog}` });
  return 1;
}

async function stop(home: string, json: boolean): Promise<number> {
  const p = homePaths(home);
  const pid = await livePid(p);
  if (!pid) {
    // A pid file a crash left may name another program by now: never signal it.
    removePid(p.pidFile, readPid(p.pidFile) ?? -1);
    report(json, { running: false, socket: false, message: 'homed is not running' });
    return 0;
  }
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 200; i++) {
    await sleep(100);
    if (!processAlive(pid)) {
      report(json, { running: false, socket: false, pid, message: `homed stopped (pid ${pid})` });
      return 0;
    }
  }
  report(json, { running: true, socket: false, pid, message: `homed (pid ${pid}) did not stop within 20 s` });
  return 1;
}

function report(json: boolean, s: Status & { message: string }): void {
  process.stdout.write(json ? JSON.stringify(s) + '\n' : s.message + '\n');
}

/** Parses `--port`: an integer 0…65535 (0 = any free port). */
function parsePort(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 65_535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535 (0 = any free port)');
  return n;
}

/** What tests replace: the service manager commands, the user's home folder, the output. */
export interface MainDeps {
  serviceRunner?: CommandRunner;
  userHome?: string;
  /** The `homed` entry a service runs (default: this file, which must be the built one). */
  homedPath?: string;
  out?: (text: string) => void;
}

export async function main(argv = process.argv, deps: MainDeps = {}): Promise<number> {
  const program = new Command('homed')
    .description('HomeAgent daemon')
    .option('--json', 'JSON output')
    .option('--home <dir>', 'data folder (default $HOMEAGENT_HOME or ~/.homeagent)')
    .option('--port <n>', 'WebUI port for this run (overrides plugin.webui.port; 0 = any free port)', parsePort)
    .exitOverride();
  const home = () => resolveHome(program.opts().home ? { HOMEAGENT_HOME: program.opts().home } : process.env);
  const port = (o: { port?: number }): number | undefined => o.port ?? (program.opts().port as number | undefined);
  let code = 0;
  let keepAlive = false;
  program
    .command('run', { isDefault: true })
    .description('run in the foreground (default)')
    .option('--supervised', 'internal: started by the supervisor')
    .option('--port <n>', 'WebUI port for this run', parsePort)
    .action(async (o: { supervised?: boolean; port?: number }) => {
      keepAlive = true;
      await runForeground(home(), !!o.supervised, port(o));
    });
  program
    .command('supervise', { hidden: true })
    .option('--port <n>', 'WebUI port', parsePort)
    .action(async (o: { port?: number }) => {
      keepAlive = true;
      await runSupervisor(home(), port(o));
    });
  program
    .command('start')
    .description('start in the background under a supervisor')
    .option('--port <n>', 'WebUI port for this run', parsePort)
    .action(async (o: { port?: number }) => {
      code = await start(home(), !!program.opts().json, port(o));
    });
  program
    .command('install-service')
    .description('start homed at login/boot: a systemd user unit (Linux) or a LaunchAgent (macOS)')
    .action(async () => {
      const entry = deps.homedPath ?? self;
      if (entry.endsWith('.ts')) throw new Error('install-service needs the built daemon: run "npm run build" and use dist/src/daemon/main.js');
      const o = { ...currentServiceOptions(home(), entry, deps.serviceRunner), ...(deps.userHome ? { userHome: deps.userHome } : {}) };
      const r = await installService(o, (await probe(home())).socket);
      (deps.out ?? ((t) => process.stdout.write(t)))((program.opts().json ? JSON.stringify(r) : r.message) + '\n');
      code = r.ok ? 0 : 1;
    });
  program
    .command('uninstall-service')
    .description('remove the user service that install-service wrote')
    .action(async () => {
      const o = { ...currentServiceOptions(home(), self, deps.serviceRunner), ...(deps.userHome ? { userHome: deps.userHome } : {}) };
      const r = await uninstallService(o);
      (deps.out ?? ((t) => process.stdout.write(t)))((program.opts().json ? JSON.stringify(r) : r.message) + '\n');
      code = r.ok ? 0 : 1;
    });
  program.command('stop').description('stop the background daemon').action(async () => {
    code = await stop(home(), !!program.opts().json);
  });
  program
    .command('restart')
    .description('stop, then start')
    .option('--port <n>', 'WebUI port for this run', parsePort)
    .action(async (o: { port?: number }) => {
      await stop(home(), !!program.opts().json);
      code = await start(home(), !!program.opts().json, port(o));
    });
  program.command('status').description('is it running? where is the WebUI?').action(async () => {
    const s = await probe(home());
    const msg = s.socket ? `homed is running (pid ${s.pid ?? '?'})${s.endpoints?.webui ? `; WebUI: ${s.endpoints.webui}` : ''}${s.llmAvailable ? '' : '; no LLM source configured'}` : s.running ? `homed process ${s.pid} exists but does not answer on its socket` : 'homed is not running';
    report(!!program.opts().json, { ...s, message: msg });
    code = s.socket ? 0 : 3;
  });
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    process.stderr.write(`homed: ${(e as Error).message}\n`);
    return 1;
  }
  return keepAlive ? -1 : code;
}
