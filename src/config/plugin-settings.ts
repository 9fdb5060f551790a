import type { ConfigKeyInfo, ConfigValue, SettingsAPI } from '../spec/index.js';

/** The part of the registry a scoped view needs. */
export interface ScopableConfig {
  get<T extends ConfigValue = ConfigValue>(key: string): T;
  set(key: string, value: ConfigValue): Promise<void>;
  list(prefix?: string): ConfigKeyInfo[];
  onChange(listener: (key: string, value: ConfigValue) => void, prefix?: string): () => void;
}

/**
 * The SDK's settings API for one plugin: a view on `plugin.<name>.*` whose keys are given and
 * reported without that prefix (`settings.get('port')` reads `plugin.webui.port`).
 */
export class PluginSettings implements SettingsAPI {
  private readonly prefix: string;

  constructor(
    private readonly config: ScopableConfig,
    readonly plugin: string,
  ) {
    this.prefix = `plugin.${plugin}.`;
  }

  get<T extends ConfigValue = ConfigValue>(key: string): T {
    return this.config.get<T>(this.prefix + key);
  }

  set(key: string, value: ConfigValue): Promise<void> {
    return this.config.set(this.prefix + key, value);
  }

  list(): ConfigKeyInfo[] {
    return this.config.list(this.prefix).map((info) => ({ ...info, key: info.key.slice(this.prefix.length) }));
  }

  onChange(listener: (key: string, value: ConfigValue) => void): () => void {
    return this.config.onChange((key, value) => listener(key.slice(this.prefix.length), value), this.prefix);
  }
}
