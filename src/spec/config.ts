/**
 * Config registry contract (G-1). Keys are dotted: `core.*` live in the `config` table,
 * `plugin.<name>.*` in `config_<name>`.
 */

export type ConfigValue = string | number | boolean | null | ConfigValue[] | { [k: string]: ConfigValue };

export interface ConfigKeyInfo {
  key: string;
  value: ConfigValue;
  default: ConfigValue;
  description: string;
  secret: boolean;
  /** JSON Schema of the value, for generated settings forms. */
  schema: Record<string, unknown>;
  /** Where the value comes from (`override`: a command-line flag of this run, e.g. `homed --port`). */
  origin: 'default' | 'stored' | 'env' | 'override';
  /** For secrets, the env var that can supply it. */
  env?: string;
  /**
   * With origin `override`: what fixed the value for this run (`--port`). A stored value of the
   * key does not take effect until a start without it.
   */
  overriddenBy?: string;
  /** Only the person may change it (WebUI, `waiter config`), never an agent tool. */
  privileged?: boolean;
}

export interface ConfigReader {
  get<T extends ConfigValue = ConfigValue>(key: string): T;
  onChange(listener: (key: string, value: ConfigValue) => void, prefix?: string): () => void;
}

/** Settings API of the SDK: scoped to `plugin.<name>.*`; keys are given without the prefix. */
export interface SettingsAPI {
  get<T extends ConfigValue = ConfigValue>(key: string): T;
  set(key: string, value: ConfigValue): Promise<void>;
  list(): ConfigKeyInfo[];
  onChange(listener: (key: string, value: ConfigValue) => void): () => void;
}

/**
 * The default of `plugin.cfgmgr.tool_protected_keys`: settings the agent may not change through
 * `config_set` — its own guard rails (what it may run, touch or start) and the access to the
 * daemon. People change them over HTTP, the WebUI or `waiter config`. An import without
 * `privilegedSettings` holds back what matches the live list too (decision 0350).
 */
export const DEFAULT_PROTECTED_KEYS: readonly string[] = [
  'plugin.cmd.*',
  'plugin.files.*',
  'plugin.agentcli.*',
  'plugin.mcp.servers',
  'plugin.webui.*',
  'plugin.cli.*',
  'plugin.cfgmgr.*',
  'plugin.pluginmgr.*',
  'plugin.telegram.*',
  'plugin.qq.*',
  'core.llm.*',
  'core.notify.*',
  'core.identity.*',
];

/** True when `key` matches one of the patterns (exact, or a prefix ending in `*`). */
export function isProtectedKey(key: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => typeof p === 'string' && (p.endsWith('*') ? key.startsWith(p.slice(0, -1)) : key === p));
}
