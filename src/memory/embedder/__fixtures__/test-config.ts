import type { ConfigReader, ConfigValue } from '../../../spec/config.js';

/** A tiny in-memory ConfigReader for tests, with `set` firing change listeners. */
export function testConfig(values: Record<string, ConfigValue> = {}): ConfigReader & { set(key: string, value: ConfigValue): void } {
  const listeners = new Set<{ fn: (k: string, v: ConfigValue) => void; prefix?: string }>();
  return {
    get: <T extends ConfigValue>(key: string): T => {
      if (!(key in values)) throw new Error(`unknown config key ${key}`);
      return values[key] as T;
    },
    onChange(fn, prefix) {
      const sub = { fn, prefix };
      listeners.add(sub);
      return () => listeners.delete(sub);
    },
    set(key, value) {
      values[key] = value;
      for (const l of listeners) if (!l.prefix || key.startsWith(l.prefix)) l.fn(key, value);
    },
  };
}

/** A logger that records lines. */
export function testLog(): { info(m: string): void; warn(m: string): void; lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`) };
}
