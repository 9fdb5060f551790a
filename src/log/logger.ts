import { appendFileSync, mkdirSync, statSync, existsSync } from 'node:fs';
import { rotateFile } from './rotate-file.js';
import { dirname } from 'node:path';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_KEY = /(api[_-]?key|token|authorization|secret|password)/i;

/** A structured logger. `child` adds a fixed scope; secrets in data are always redacted. */
export interface Logger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

export interface LoggerOptions {
  /** JSONL file; rotated at `rotateBytes` keeping `keep` old files. */
  file?: string;
  level?: LogLevel;
  /** Also print human lines to stderr. */
  console?: boolean;
  rotateBytes?: number;
  keep?: number;
}

/** Replaces values of secret-looking keys, recursively. */
export function redact(data: unknown, depth = 0): unknown {
  if (depth > 5 || data === null || typeof data !== 'object') return data;
  if (Array.isArray(data)) return data.map((d) => redact(d, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    out[k] = SECRET_KEY.test(k) && typeof v === 'string' && v ? '••••' : v instanceof Error ? { message: v.message, stack: v.stack } : redact(v, depth + 1);
  }
  return out;
}

/** The daemon's root logger: its rotation follows `core.log.rotate_bytes` / `keep_files`. */
export interface RootLogger extends Logger {
  setRotation(o: { rotateBytes?: number; keep?: number }): void;
}

/** Creates a logger that never throws (a failing log write is swallowed). */
export function createLogger(opts: LoggerOptions = {}, scope = 'homed'): RootLogger {
  const min = LEVELS[opts.level ?? 'info'];
  let rotateBytes = opts.rotateBytes ?? 5 * 1024 * 1024;
  let keep = opts.keep ?? 3;
  if (opts.file) {
    try {
      mkdirSync(dirname(opts.file), { recursive: true });
    } catch {}
  }
  let written = 0;
  const rotate = (file: string) => rotateFile(file, keep);
  function write(level: LogLevel, s: string, msg: string, data?: Record<string, unknown>): void {
    if (LEVELS[level] < min) return;
    try {
      const rec = { t: new Date().toISOString(), level, scope: s, msg, ...(data ? { data: redact(data) } : {}) };
      const line = JSON.stringify(rec) + '\n';
      if (opts.file) {
        if (written === 0 && existsSync(opts.file)) written = statSync(opts.file).size;
        if (written + line.length > rotateBytes) {
          rotate(opts.file);
          written = 0;
        }
        appendFileSync(opts.file, line, { mode: 0o600 });
        written += line.length;
      }
      if (opts.console) process.stderr.write(`${rec.t.slice(11, 19)} ${level.padEnd(5)} [${s}] ${msg}${data ? ' ' + JSON.stringify(rec.data) : ''}\n`);
    } catch {}
  }
  const make = (s: string): Logger => ({
    debug: (m, d) => write('debug', s, m, d),
    info: (m, d) => write('info', s, m, d),
    warn: (m, d) => write('warn', s, m, d),
    error: (m, d) => write('error', s, m, d),
    child: (c) => make(`${s}:${c}`),
  });
  return Object.assign(make(scope), {
    setRotation(o: { rotateBytes?: number; keep?: number }) {
      if (o.rotateBytes !== undefined && Number.isFinite(o.rotateBytes) && o.rotateBytes > 0) rotateBytes = o.rotateBytes;
      if (o.keep !== undefined && Number.isInteger(o.keep) && o.keep >= 1) keep = o.keep;
    },
  });
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silentLogger };
