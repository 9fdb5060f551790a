export { createLogger, silentLogger, redact } from './logger.js';
export type { Logger, LogLevel, LoggerOptions, RootLogger } from './logger.js';
export { LOG_ROTATE_BYTES, rotateFile, rotateIfLarge } from './rotate-file.js';
