import type { Logger } from '../../log/index.js';

/** One captured log line. */
export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  data?: Record<string, unknown>;
}

/** A Logger that records every line (children share the same list) for assertions. */
export function captureLogger(lines: LogLine[] = []): Logger & { lines: LogLine[] } {
  const make = (): Logger & { lines: LogLine[] } => ({
    lines,
    debug: (msg, data) => void lines.push({ level: 'debug', msg, data }),
    info: (msg, data) => void lines.push({ level: 'info', msg, data }),
    warn: (msg, data) => void lines.push({ level: 'warn', msg, data }),
    error: (msg, data) => void lines.push({ level: 'error', msg, data }),
    child: () => make(),
  });
  return make();
}
