import { z } from 'zod';
import type { ConfigKeyDef, ConfigValue, SettingsAPI } from '../../sdk/index.js';

/** Zod schemas of the 9 settings of the memory manager (M-10), keys without `plugin.memory-manager.`. */
export const settingSchemas = {
  enabled: z.boolean(),
  mode: z.enum(['on', 'off']),
  view: z.enum(['full', 'compact']),
  modelTools: z.boolean(),
  libraryPath: z.string().max(4096),
  memoryChars: z.number().int().min(0).max(1_000_000),
  totalChars: z.number().int().min(0).max(4_000_000),
  pinChars: z.number().int().min(0).max(1_000_000),
  autoInject: z.boolean(),
} as const;

/** The effective config of the memory manager. */
export interface MemoryManagerConfig {
  enabled: boolean;
  mode: 'on' | 'off';
  view: 'full' | 'compact';
  modelTools: boolean;
  libraryPath: string;
  memoryChars: number;
  totalChars: number;
  pinChars: number;
  autoInject: boolean;
}

export type ConfigKey = keyof MemoryManagerConfig;

/** Defaults: injection on, full view, tools on, library in `<home>/memory`. */
export const DEFAULT_CONFIG: MemoryManagerConfig = {
  enabled: true,
  mode: 'on',
  view: 'full',
  modelTools: true,
  libraryPath: '',
  memoryChars: 4000,
  totalChars: 12000,
  pinChars: 4000,
  autoInject: true,
};

const DESCRIPTIONS: Record<ConfigKey, string> = {
  enabled: 'Master switch: off = no injection, library tools refuse, API answers only state.get/state.setEnabled/diag.log',
  mode: "Inject the plan on every user turn ('on') or only when injectOnce / the once queue asks ('off')",
  view: "How memories are injected: 'full' (snapshot + notes) or 'compact' (title + impressions + 300-char preview)",
  modelTools: 'Offer the library_* tools to the agent',
  libraryPath: 'Folder of the memory library (empty = <home>/memory)',
  memoryChars: 'Character budget of one injected memory',
  totalChars: 'Character budget of the whole injected block',
  pinChars: 'Character budget of pinned messages (capped by totalChars)',
  autoInject: 'Inject convention memories and the 8 latest session summaries into new sessions',
};

/** The `settings` map given to `definePlugin` (G-1 typed keys with defaults). */
export const settingsDefs: Record<string, ConfigKeyDef> = Object.fromEntries(
  (Object.keys(settingSchemas) as ConfigKey[]).map((key) => [
    key,
    {
      default: DEFAULT_CONFIG[key] as ConfigValue,
      description: DESCRIPTIONS[key],
      schema: settingSchemas[key] as unknown as ConfigKeyDef['schema'],
      jsonSchema: z.toJSONSchema(settingSchemas[key]) as Record<string, unknown>,
      // Where memories are written: only the person moves the library (SPEC §9).
      ...(key === 'libraryPath' ? { privileged: true } : {}),
    } satisfies ConfigKeyDef,
  ]),
);

/** Reads the effective config; a missing or invalid stored value falls back to its default. */
export function readConfig(settings: SettingsAPI): MemoryManagerConfig {
  const out = { ...DEFAULT_CONFIG } as Record<ConfigKey, unknown>;
  for (const key of Object.keys(settingSchemas) as ConfigKey[]) {
    let raw: unknown;
    try {
      raw = settings.get(key);
    } catch {
      continue;
    }
    const parsed = settingSchemas[key].safeParse(raw);
    if (parsed.success) out[key] = parsed.data;
  }
  return out as unknown as MemoryManagerConfig;
}

/** Validates a partial config patch; unknown keys and bad values throw via zod. */
export const configPatchSchema = z.object(settingSchemas).partial().strict();
