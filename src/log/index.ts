export { createLogger, silentLogger, redact } from './logger.js';
export type { Logger, LogLevel, LoggerOptions } from './logger.js';
