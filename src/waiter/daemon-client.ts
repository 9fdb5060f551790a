import { createConnection, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { CLI_MAX_FRAME_BYTES, CLI_PROTOCOL_VERSION, HomeAgentError, type CliCommand, type CliReply, type CliStreamEvent } from '../spec/index.js';

/** The daemon is not running (no socket, or nobody answers on it). */
export class DaemonNotRunningError extends HomeAgentError {
  constructor(path: string, cause?: unknown) {
    super('DAEMON_NOT_RUNNING', `homed is not running (no answer on ${path}). Start it with "npm start" or "npx homed start" in the HomeAgent folder ("homed start" once it is on your PATH)`, { details: { path }, cause });
  }
}

/** An error reply from the daemon, with its code. */
export class DaemonError extends HomeAgentError {
  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(code, message, { details });
  }
}

/** A connection to `homed` over its Unix socket (§8). */
export class DaemonClient {
  private sock: Socket | undefined;
  private buf = '';
  private readonly pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: unknown) => void; onEvent?: (e: CliStreamEvent) => void }>();

  constructor(readonly path: string) {}

  async connect(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const s = createConnection(this.path);
      s.setEncoding('utf8');
      s.once('connect', () => {
        this.sock = s;
        resolve();
      });
      s.once('error', (e) => reject(new DaemonNotRunningError(this.path, e)));
      s.on('data', (chunk: string) => this.onData(chunk));
      s.on('close', () => {
        for (const p of this.pending.values()) p.reject(new DaemonError('CONNECTION_CLOSED', 'the daemon closed the connection'));
        this.pending.clear();
      });
    });
  }

  private onData(chunk: string): void {
    this.buf += chunk;
    if (this.buf.length > CLI_MAX_FRAME_BYTES * 2) {
      this.sock?.destroy();
      return;
    }
    let i: number;
    while ((i = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      let msg: CliReply | CliStreamEvent;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      const p = this.pending.get(msg.id);
      if (!p) {
        if ('ok' in msg && !msg.ok && !msg.id) for (const q of this.pending.values()) q.reject(new DaemonError(msg.error.code, msg.error.message));
        continue;
      }
      if ('event' in msg) p.onEvent?.(msg);
      else {
        this.pending.delete(msg.id);
        if (msg.ok) p.resolve(msg.result);
        else p.reject(new DaemonError(msg.error.code, msg.error.message, msg.error.details));
      }
    }
  }

  /** Sends a command and resolves with its result; stream events go to `onEvent`. */
  request<T = unknown>(cmd: CliCommand, args: Record<string, unknown> = {}, onEvent?: (e: CliStreamEvent) => void): Promise<T> {
    if (!this.sock) return Promise.reject(new DaemonNotRunningError(this.path));
    const id = randomUUID().slice(0, 8);
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, onEvent });
      this.sock!.write(JSON.stringify({ v: CLI_PROTOCOL_VERSION, id, cmd, args }) + '\n');
    });
  }

  close(): void {
    this.sock?.end();
    this.sock?.destroy();
    this.sock = undefined;
  }
}
