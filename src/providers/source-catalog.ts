import { z } from 'zod';
import { API_KEY_PROBLEM, ConflictError, NotFoundError, ValidationError, apiKeyProblem } from '../spec/index.js';
import type { ConfigKeyDef, ConfigReader, ConfigValue, SchemaLike } from '../spec/index.js';
import { CUSTOM_SOURCES_KEY, SEEDED_SOURCES, SOURCE_NAME, customSourcesSchema, normalizeBaseUrl, sourceKey, type CustomSource, type SeededSource } from './provider-config.js';

/** The API flavours a person picks from; any adapter name is accepted too. */
export const API_ADAPTERS = { openai: 'openai-compatible', anthropic: 'anthropic' } as const;

/** What `waiter providers add` and `POST /api/v1/providers` accept. */
export const sourceInputSchema = z
  .object({
    name: z.string().regex(SOURCE_NAME, 'source names are lower-case letters, digits, - and _ (at most 32)'),
    label: z.string().max(80).optional(),
    /** `openai` (any OpenAI-compatible endpoint, the default) or `anthropic` (Anthropic-compatible). */
    api: z.enum(['openai', 'anthropic']).optional(),
    /** An adapter by name instead of `api` (a shipped one or a `.lua` in the adapters folder). */
    adapter: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/).optional(),
    baseUrl: z.string().url().refine((u) => /^https?:\/\//i.test(u), 'the base URL must be http(s)'),
    apiKey: z.string().max(4096).refine((k) => !apiKeyProblem(k), API_KEY_PROBLEM).optional(),
    model: z.string().min(1).max(200).optional(),
    models: z.array(z.string().min(1).max(200)).max(500).optional(),
    enabled: z.boolean().optional(),
    options: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type SourceInput = z.input<typeof sourceInputSchema>;

/** What `PATCH /api/v1/providers/:name` accepts (every field optional; name fixed). */
export const sourcePatchSchema = sourceInputSchema.omit({ name: true }).partial().strict();
export type SourcePatch = z.input<typeof sourcePatchSchema>;

/** One source, seeded or custom, as the manager resolves it. */
export interface SourceDef extends SeededSource {
  custom: boolean;
  models: string[];
}

/** The config surface the catalog needs: reading, and for custom sources registering and writing. */
export interface CatalogConfig extends ConfigReader {
  set?(key: string, value: ConfigValue): Promise<void>;
  reset?(key: string): Promise<void>;
  register?(defs: Record<string, ConfigKeyDef>): () => void;
  has?(key: string): boolean;
}

function key(value: ConfigValue, description: string, schema: z.ZodType, extra: { secret?: boolean; privileged?: boolean } = {}): ConfigKeyDef {
  return { default: value, description, schema: schema as unknown as SchemaLike<ConfigValue>, ...extra };
}

/** The per-source keys of a custom source, like the seeded ones' (same resolve path). */
function customKeys(s: CustomSource): Record<string, ConfigKeyDef> {
  const label = s.label || s.name;
  return {
    [sourceKey(s.name, 'adapter')]: key('openai-compatible', `${label}: Lua adapter`, z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/), { privileged: true }),
    [sourceKey(s.name, 'base_url')]: key('', `${label}: API base URL`, z.string(), { privileged: true }),
    [sourceKey(s.name, 'model')]: key('', `${label}: model name`, z.string()),
    [sourceKey(s.name, 'api_key')]: key('', `${label}: API key`, z.string().refine((k) => !apiKeyProblem(k), API_KEY_PROBLEM), { secret: true }),
    [sourceKey(s.name, 'enabled')]: key(true, `${label}: use this source`, z.boolean()),
    [sourceKey(s.name, 'options')]: key({}, `${label}: adapter options`, z.record(z.string(), z.unknown())),
  };
}

const FIELDS = ['adapter', 'base_url', 'model', 'api_key', 'enabled', 'options'] as const;

/**
 * The LLM sources (L-3): the 8 seeded ones plus any number the person adds. A custom source is a
 * name in `core.llm.custom_sources` (with a label and declared models) and the same per-source
 * keys a seeded one has (`core.llm.sources.<name>.adapter|base_url|model|api_key|enabled|options`,
 * the key a secret), registered while the source exists — so the Lua adapters, fallback, masking
 * and `waiter config` treat both alike.
 */
export class SourceCatalog {
  private readonly registered = new Map<string, () => void>();

  constructor(private readonly config: CatalogConfig) {}

  /** Seeded sources first, then custom ones in the order they were added. */
  list(): SourceDef[] {
    const seeded = SEEDED_SOURCES.map((s): SourceDef => ({ ...s, custom: false, models: [] }));
    return [...seeded, ...this.custom().map((c): SourceDef => ({ name: c.name, label: c.label || c.name, adapter: 'openai-compatible', baseUrl: '', model: '', keyEnv: [], custom: true, models: c.models }))];
  }

  names(): string[] {
    return this.list().map((s) => s.name);
  }

  get(name: string): SourceDef | undefined {
    return this.list().find((s) => s.name === name);
  }

  /** Registers the keys of every custom source listed, unregisters those no longer listed. */
  sync(): void {
    if (!this.config.register) return;
    const want = new Map(this.custom().map((c) => [c.name, c]));
    for (const [name, off] of this.registered) {
      if (!want.has(name)) {
        off();
        this.registered.delete(name);
      }
    }
    for (const [name, c] of want) {
      if (this.registered.has(name) || this.config.has?.(sourceKey(name, 'base_url'))) continue;
      this.registered.set(name, this.config.register(customKeys(c)));
    }
  }

  /** Unregisters every custom source's keys (stored values stay). */
  close(): void {
    for (const off of this.registered.values()) off();
    this.registered.clear();
  }

  /** Adds a source and stores its settings (the key as a secret). Returns its name. */
  async add(input: unknown, adapterExists: (name: string) => boolean): Promise<string> {
    const { set } = this.writable();
    const r = sourceInputSchema.safeParse(input);
    if (!r.success) throw this.invalid(r.error);
    const v = r.data;
    if (this.get(v.name)) throw new ConflictError(`an LLM source named "${v.name}" already exists`, { name: v.name });
    const adapter = v.adapter ?? API_ADAPTERS[v.api ?? 'openai'];
    if (!adapterExists(adapter)) throw new ValidationError(`no Lua adapter named "${adapter}"`, { key: 'adapter' });
    const entry: CustomSource = { name: v.name, label: v.label ?? '', models: v.models ?? [] };
    await set(CUSTOM_SOURCES_KEY, [...this.custom(), entry]);
    this.sync();
    await set(sourceKey(v.name, 'adapter'), adapter);
    await set(sourceKey(v.name, 'base_url'), normalizeBaseUrl(v.baseUrl));
    await set(sourceKey(v.name, 'model'), v.model ?? v.models?.[0] ?? '');
    if (v.apiKey !== undefined) await set(sourceKey(v.name, 'api_key'), v.apiKey);
    if (v.enabled !== undefined) await set(sourceKey(v.name, 'enabled'), v.enabled);
    if (v.options !== undefined) await set(sourceKey(v.name, 'options'), v.options as ConfigValue);
    return v.name;
  }

  /** Changes a source's settings; seeded sources take every field but label and models. */
  async update(name: string, patch: unknown, adapterExists: (name: string) => boolean): Promise<void> {
    const { set } = this.writable();
    const def = this.get(name);
    if (!def) throw new NotFoundError('LLM source', name);
    const r = sourcePatchSchema.safeParse(patch);
    if (!r.success) throw this.invalid(r.error);
    const v = r.data;
    if (!def.custom && (v.label !== undefined || v.models !== undefined)) throw new ValidationError(`"${name}" is a built-in source: its label and model list are fixed`, { name });
    const adapter = v.adapter ?? (v.api ? API_ADAPTERS[v.api] : undefined);
    if (adapter !== undefined && !adapterExists(adapter)) throw new ValidationError(`no Lua adapter named "${adapter}"`, { key: 'adapter' });
    if (def.custom && (v.label !== undefined || v.models !== undefined)) {
      await set(
        CUSTOM_SOURCES_KEY,
        this.custom().map((c) => (c.name === name ? { ...c, label: v.label ?? c.label, models: v.models ?? c.models } : c)),
      );
    }
    if (adapter !== undefined) await set(sourceKey(name, 'adapter'), adapter);
    if (v.baseUrl !== undefined) await set(sourceKey(name, 'base_url'), normalizeBaseUrl(v.baseUrl));
    if (v.model !== undefined) await set(sourceKey(name, 'model'), v.model);
    if (v.apiKey !== undefined) await set(sourceKey(name, 'api_key'), v.apiKey);
    if (v.enabled !== undefined) await set(sourceKey(name, 'enabled'), v.enabled);
    if (v.options !== undefined) await set(sourceKey(name, 'options'), v.options as ConfigValue);
  }

  /** Removes a custom source: its stored settings (the key too) are deleted, then its keys. */
  async remove(name: string): Promise<void> {
    const { set, reset } = this.writable();
    const def = this.get(name);
    if (!def) throw new NotFoundError('LLM source', name);
    if (!def.custom) throw new ValidationError(`"${name}" is a built-in source; disable it instead (enabled = false)`, { name });
    for (const f of FIELDS) await reset(sourceKey(name, f));
    await set(CUSTOM_SOURCES_KEY, this.custom().filter((c) => c.name !== name));
    this.sync();
  }

  private custom(): CustomSource[] {
    let raw: ConfigValue | undefined;
    try {
      raw = this.config.get<ConfigValue>(CUSTOM_SOURCES_KEY);
    } catch {
      return [];
    }
    const r = customSourcesSchema.safeParse(raw ?? []);
    return r.success ? r.data : [];
  }

  private writable(): { set: (k: string, v: ConfigValue) => Promise<void>; reset: (k: string) => Promise<void> } {
    const { set, reset, register } = this.config;
    if (!set || !reset || !register) throw new ValidationError('this config cannot be written; LLM sources cannot be added here');
    return { set: set.bind(this.config), reset: reset.bind(this.config) };
  }

  private invalid(e: z.ZodError): ValidationError {
    const i = e.issues[0];
    const path = i?.path.map(String).join('.') ?? '';
    return new ValidationError(`invalid LLM source${path ? ` (${path})` : ''}: ${i?.message ?? 'invalid'}`, { key: path, issues: e.issues.map((x) => ({ path: x.path.map(String), message: x.message })) });
  }
}
