import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Size at which a plugin log is moved to `<file>.1` (the one old file kept). */
export const PLUGIN_LOG_BYTES = 5 * 1024 * 1024;

/**
 * An append-only text log (M-13). Writing never throws: a failing disk only loses log lines.
 */
export class PluginLogFile {
  readonly path: string;
  /** Bytes written since the size was last looked at (the file is stat'ed every 1/64 of the limit). */
  private written = Number.POSITIVE_INFINITY;

  constructor(path: string) {
    this.path = path;
  }

  /** Appends `<iso> <LEVEL> message {data}`. */
  write(level: 'debug' | 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>): void {
    try {
      let extra = '';
      if (data && Object.keys(data).length) {
        try {
          extra = ` ${JSON.stringify(data)}`;
        } catch {
          extra = ' [unserializable data]';
        }
      }
      // One entry, one line: a message's own line breaks are escaped, so a client (diag.log) cannot forge entries.
      const text = String(msg).slice(0, 4000).replace(/[\r\n\u2028\u2029]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16)}`));
      const line = `${new Date().toISOString()} ${level.toUpperCase()} ${text}${extra.slice(0, 8000)}\n`;
      mkdirSync(dirname(this.path), { recursive: true });
      // Rotated (one old file kept): a client's diag.log must not fill the disk.
      if ((this.written += line.length) > PLUGIN_LOG_BYTES / 64) {
        this.written = 0;
        try {
          if (statSync(this.path).size >= PLUGIN_LOG_BYTES) renameSync(this.path, `${this.path}.1`);
        } catch {}
      }
      appendFileSync(this.path, line, { encoding: 'utf8', mode: 0o600 });
    } catch {}
  }
}

/** One client log entry (`diag.log`). */
export interface ClientLogEntry {
  level?: string;
  message?: unknown;
  stack?: string;
  context?: unknown;
}

/**
 * The client log (`memory-manager-client.log`): entries with the same level + message within
 * `throttleMs` (3 s) are dropped and counted, so a crash loop in the panel cannot flood the disk.
 */
export class ClientLog {
  private readonly file: PluginLogFile;
  private readonly throttleMs: number;
  private readonly now: () => number;
  private last = new Map<string, number>();

  constructor(path: string, opts: { throttleMs?: number; now?: () => number } = {}) {
    this.file = new PluginLogFile(path);
    this.throttleMs = opts.throttleMs ?? 3000;
    this.now = opts.now ?? Date.now;
  }

  /** Logs the entries that pass the throttle; returns how many were written and dropped. */
  log(entries: ClientLogEntry[]): { written: number; dropped: number } {
    let written = 0;
    let dropped = 0;
    try {
      const t = this.now();
      for (const e of entries.slice(0, 100)) {
        const level = ['debug', 'info', 'warn', 'error'].includes(String(e.level)) ? (e.level as 'debug' | 'info' | 'warn' | 'error') : 'info';
        const message = typeof e.message === 'string' ? e.message : JSON.stringify(e.message ?? '');
        const key = `${level}|${message}`;
        const prev = this.last.get(key);
        if (prev !== undefined && t - prev < this.throttleMs) {
          dropped++;
          continue;
        }
        this.last.set(key, t);
        if (this.last.size > 1000) this.last.delete(this.last.keys().next().value as string);
        const data: Record<string, unknown> = {};
        if (typeof e.stack === 'string') data.stack = e.stack.slice(0, 4000);
        if (e.context !== undefined) data.context = e.context;
        this.file.write(level, `[client] ${message}`, data);
        written++;
      }
    } catch {}
    return { written, dropped };
  }
}
