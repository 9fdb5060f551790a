import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { dirname } from 'node:path';
import { rotateIfLarge } from '../log/index.js';

export interface SupervisorOptions {
  /** Command that runs the daemon in the foreground. */
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Where the child's stdout/stderr go. */
  logFile: string;
  /** First back-off delay; doubles per rapid crash up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A run longer than this resets the back-off. */
  stableAfterMs?: number;
  log?: (msg: string) => void;
}

/**
 * Keeps one daemon child alive (C-12): a crash (non-zero exit or a signal we did not send)
 * restarts it after an exponential back-off; `stop()` forwards SIGTERM and waits for the child.
 */
export class Supervisor {
  private child: ChildProcess | undefined;
  private stopping = false;
  private delay: number;
  private timer: NodeJS.Timeout | undefined;
  restarts = 0;

  constructor(private readonly opts: SupervisorOptions) {
    this.delay = opts.baseDelayMs ?? 1000;
  }

  start(): void {
    this.stopping = false;
    this.spawnChild();
  }

  private spawnChild(): void {
    mkdirSync(dirname(this.opts.logFile), { recursive: true });
    // The daemon's stdout and stderr: rotated at each (re)start, so it cannot grow for ever.
    rotateIfLarge(this.opts.logFile);
    const fd = openSync(this.opts.logFile, 'a');
    const startedAt = Date.now();
    const child = spawn(this.opts.command, this.opts.args, { env: this.opts.env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    this.child = child;
    this.opts.log?.(`daemon started (pid ${child.pid})`);
    child.on('exit', (code, signal) => {
      this.child = undefined;
      if (this.stopping) return;
      if (Date.now() - startedAt > (this.opts.stableAfterMs ?? 60_000)) this.delay = this.opts.baseDelayMs ?? 1000;
      this.restarts++;
      this.opts.log?.(`daemon exited (code ${code}, signal ${signal}); restarting in ${this.delay} ms`);
      this.timer = setTimeout(() => this.spawnChild(), this.delay);
      this.delay = Math.min(this.delay * 2, this.opts.maxDelayMs ?? 30_000);
    });
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Stops the child (SIGTERM, then SIGKILL after `graceMs`). Safe to call twice. */
  async stop(graceMs = 15_000): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    const child = this.child;
    if (!child) return;
    await new Promise<void>((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}
