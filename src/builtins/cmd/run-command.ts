import { spawn } from 'node:child_process';

/** The outcome of one command. */
export interface CommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Bytes dropped because of the output cap (stdout + stderr). */
  droppedBytes: number;
  timedOut: boolean;
  aborted: boolean;
}

export interface RunOptions {
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL of the process group. */
  killGraceMs?: number;
}

/** Kills the whole process group of `pid` (the child was spawned detached, so it leads one). */
function killTree(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {}
  }
}

/**
 * Runs an executable WITHOUT a shell (arguments are passed as is), in its own process group,
 * with a timeout that kills the whole tree and a cap on the output kept.
 * Rejects only when the process cannot start (ENOENT, EACCES …).
 */
export function runCommand(command: string, args: readonly string[], opts: RunOptions): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, shell: false, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let kept = 0;
    let dropped = 0;
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    const take = (into: Buffer[]) => (chunk: Buffer) => {
      const room = opts.maxOutputBytes - kept;
      if (room <= 0) {
        dropped += chunk.byteLength;
        return;
      }
      const part = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
      into.push(part);
      kept += part.byteLength;
      dropped += chunk.byteLength - part.byteLength;
    };
    child.stdout.on('data', take(out));
    child.stderr.on('data', take(err));
    const stop = () => {
      if (child.pid === undefined) return;
      killTree(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => child.pid !== undefined && killTree(child.pid, 'SIGKILL'), opts.killGraceMs ?? 1000);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, opts.timeoutMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      // Children that outlived the leader (e.g. `sh -c 'sleep 60 &'`) die with the group.
      if ((timedOut || aborted) && child.pid !== undefined) killTree(child.pid, 'SIGKILL');
      if (killTimer && !(timedOut || aborted)) clearTimeout(killTimer);
      resolve({ exitCode: code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), droppedBytes: dropped, timedOut, aborted });
    });
  });
}

/** Renders a result for the model: exit status first, then the output, then notes. */
export function formatResult(command: string, r: CommandResult, timeoutMs: number): string {
  const lines: string[] = [];
  if (r.timedOut) lines.push(`[timed out after ${timeoutMs} ms; process tree killed]`);
  else if (r.aborted) lines.push('[aborted; process tree killed]');
  lines.push(r.exitCode !== null ? `exit code: ${r.exitCode}` : `killed by signal: ${r.signal}`);
  if (r.stdout) lines.push(`--- stdout ---\n${r.stdout}`);
  if (r.stderr) lines.push(`--- stderr ---\n${r.stderr}`);
  if (!r.stdout && !r.stderr) lines.push(`(${command} printed nothing)`);
  if (r.droppedBytes > 0) lines.push(`[output truncated: ${r.droppedBytes} more bytes not shown]`);
  return lines.join('\n');
}
