/** `cmd` built-in plugin (P-7). */
export { cmdPlugin as default, cmdPlugin, DEFAULT_ALLOWLIST } from './cmd-plugin.js';
export { decideCommand, refusalMessage, type ConfirmPolicy, type PolicyDecision } from './command-policy.js';
export { runCommand, formatResult, type CommandResult, type RunOptions } from './run-command.js';
export type { ConfirmService } from './confirm-service.js';
