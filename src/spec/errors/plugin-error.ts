import { HomeAgentError } from './homeagent-error.js';

/** A plugin failed to load, start, or is malformed (manifest, archive). */
export class PluginError extends HomeAgentError {
  constructor(plugin: string, message: string, code = 'PLUGIN_FAILED', cause?: unknown, details: Record<string, unknown> = {}) {
    super(code, `${plugin}: ${message}`, { details: { plugin, ...details }, cause });
  }
}
