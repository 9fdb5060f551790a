import { ValidationError } from '../spec/index.js';

/** Plugin names that may own a config namespace (`plugin.<name>.*`). */
export const PLUGIN_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** One key segment after the namespace: lower-case words, digits, `_` and `-`. */
// Key segments start lower-case; camelCase is allowed because plugins keep the field names of the
// documents they implement (seed 001's memory-manager settings: modelTools, libraryPath …).
const SEGMENT_RE = /^[a-z0-9][A-Za-z0-9_-]*$/;

/** Where a config key lives: its namespace (`core` or `plugin.<name>`) and its SQLite table. */
export interface ConfigKeyLocation {
  key: string;
  namespace: string;
  /** Plugin name for `plugin.<name>.*`, undefined for `core.*`. */
  plugin?: string;
  table: string;
}

/** Throws ValidationError unless `name` is a valid plugin name. */
export function assertPluginName(name: string): void {
  if (typeof name !== 'string' || !PLUGIN_NAME_RE.test(name)) {
    throw new ValidationError(`invalid plugin name ${JSON.stringify(name)}: expected ${PLUGIN_NAME_RE.source}`, { plugin: name });
  }
}

/** The table of a plugin namespace: `config_<name>` with `-` mapped to `_`. */
export function pluginTableName(plugin: string): string {
  assertPluginName(plugin);
  return `config_${plugin.replace(/-/g, '_')}`;
}

/**
 * Parses a full key (`core.agent.name`, `plugin.webui.port`) into its namespace and table.
 * Throws ValidationError for anything else.
 */
export function locateConfigKey(key: string): ConfigKeyLocation {
  if (typeof key !== 'string' || key.length === 0 || key.length > 200) {
    throw new ValidationError(`invalid config key ${JSON.stringify(key)}`, { key });
  }
  const parts = key.split('.');
  if (parts[0] === 'core' && parts.length >= 2 && parts.slice(1).every((p) => SEGMENT_RE.test(p))) {
    return { key, namespace: 'core', table: 'config' };
  }
  if (parts[0] === 'plugin' && parts.length >= 3 && PLUGIN_NAME_RE.test(parts[1]) && parts.slice(2).every((p) => SEGMENT_RE.test(p))) {
    return { key, namespace: `plugin.${parts[1]}`, plugin: parts[1], table: pluginTableName(parts[1]) };
  }
  throw new ValidationError(
    `invalid config key ${JSON.stringify(key)}: expected core.<name>[.<name>…] or plugin.<plugin>.<name>[.<name>…] (starting lower-case; letters, digits, _ and -)`,
    { key },
  );
}

/** True when `key` falls under `prefix` (`core.memory` matches `core.memory.x`; a trailing `.` is allowed). */
export function keyMatchesPrefix(key: string, prefix: string | undefined): boolean {
  if (prefix === undefined || prefix === '') return true;
  if (prefix.endsWith('.')) return key.startsWith(prefix);
  return key === prefix || key.startsWith(`${prefix}.`);
}
