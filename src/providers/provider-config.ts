import { z } from 'zod';
import { API_KEY_PROBLEM, apiKeyProblem } from '../spec/index.js';
import type { ConfigKeyDef, ConfigValue, SchemaLike } from '../spec/index.js';

/** Built-in defaults of one seeded LLM source (L-3). */
export interface SeededSource {
  name: string;
  label: string;
  adapter: string;
  baseUrl: string;
  model: string;
  /** Env vars that can supply the API key, first wins (the first is registered with the key). */
  keyEnv: string[];
  /** Conventional env var for the base URL. */
  baseUrlEnv?: string;
}

/** The 8 sources config seeds, in the default fallback order. */
export const SEEDED_SOURCES: readonly SeededSource[] = [
  { name: 'deepseek', label: 'DeepSeek', adapter: 'deepseek', baseUrl: 'https://api.deepseek.com', model: 'deepseek-chat', keyEnv: ['DEEPSEEK_API_KEY'], baseUrlEnv: 'DEEPSEEK_BASE_URL' },
  { name: 'openai', label: 'OpenAI', adapter: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', keyEnv: ['OPENAI_API_KEY'], baseUrlEnv: 'OPENAI_BASE_URL' },
  { name: 'anthropic', label: 'Anthropic', adapter: 'anthropic', baseUrl: 'https://api.anthropic.com', model: 'claude-sonnet-4-5', keyEnv: ['ANTHROPIC_API_KEY'], baseUrlEnv: 'ANTHROPIC_BASE_URL' },
  { name: 'gemini', label: 'Google Gemini', adapter: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com', model: 'gemini-2.5-flash', keyEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'], baseUrlEnv: 'GEMINI_BASE_URL' },
  { name: 'qwen', label: 'Qwen (DashScope)', adapter: 'openai-compatible', baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1', model: 'qwen-plus', keyEnv: ['DASHSCOPE_API_KEY'], baseUrlEnv: 'DASHSCOPE_BASE_URL' },
  { name: 'zhipu', label: 'Zhipu GLM', adapter: 'openai-compatible', baseUrl: 'https://open.bigmodel.cn/api/paas/v4', model: 'glm-4-flash', keyEnv: ['ZHIPUAI_API_KEY', 'ZHIPU_API_KEY'], baseUrlEnv: 'ZHIPUAI_BASE_URL' },
  { name: 'moonshot', label: 'Moonshot (Kimi)', adapter: 'openai-compatible', baseUrl: 'https://api.moonshot.cn/v1', model: 'moonshot-v1-8k', keyEnv: ['MOONSHOT_API_KEY'], baseUrlEnv: 'MOONSHOT_BASE_URL' },
  { name: 'ollama', label: 'Ollama (local)', adapter: 'ollama', baseUrl: 'http://127.0.0.1:11434', model: 'llama3.2', keyEnv: ['OLLAMA_API_KEY'], baseUrlEnv: 'OLLAMA_HOST' },
];

/** Config key holding the user's own sources (identity only; settings live in their source keys). */
export const CUSTOM_SOURCES_KEY = 'core.llm.custom_sources';

/** A source name: lower-case letters, digits, `_` and `-` (it is a config key segment). */
export const SOURCE_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** One entry of {@link CUSTOM_SOURCES_KEY}. */
export const customSourceSchema = z.object({
  name: z.string().regex(SOURCE_NAME, 'source names are lower-case letters, digits, - and _ (at most 32)'),
  label: z.string().max(80).default(''),
  /** Models the person declared for this source (the model picker also asks the API). */
  models: z.array(z.string().min(1).max(200)).max(500).default([]),
});
export type CustomSource = z.infer<typeof customSourceSchema>;

/** The schema of {@link CUSTOM_SOURCES_KEY}: unique names, none of them a seeded one. */
export const customSourcesSchema = z.array(customSourceSchema).max(100).superRefine((list, ctx) => {
  const seen = new Set<string>();
  for (const [i, s] of list.entries()) {
    if (seen.has(s.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate source name "${s.name}"` });
    if (SEEDED_SOURCES.some((x) => x.name === s.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `"${s.name}" is a built-in source` });
    seen.add(s.name);
  }
});

/** Config key of a source field. */
export const sourceKey = (name: string, field: 'adapter' | 'base_url' | 'model' | 'api_key' | 'enabled' | 'options'): string => `core.llm.sources.${name}.${field}`;

function def<T extends ConfigValue>(value: T, description: string, schema: z.ZodType, extra: { secret?: boolean; env?: string; privileged?: boolean } = {}): ConfigKeyDef {
  return { default: value, description, schema: schema as unknown as SchemaLike<ConfigValue>, jsonSchema: z.toJSONSchema(schema) as Record<string, unknown>, ...extra };
}

/** `OLLAMA_HOST` may be `host:port` without a scheme; URLs keep no trailing slash. */
export function normalizeBaseUrl(url: string): string {
  let u = url.trim();
  if (u && !/^[a-z][a-z0-9+.-]*:\/\//i.test(u)) u = `http://${u}`;
  return u.replace(/\/+$/, '');
}

const name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'adapter names are letters, digits, - and _');

/**
 * Typed config keys of the providers layer (full keys), for the config registry.
 *
 * Base URLs and API keys carry their conventional env var (`OPENAI_BASE_URL`, `OLLAMA_HOST`,
 * `DEEPSEEK_API_KEY` …); the registry resolves a value as stored ?? env ?? default, so a value
 * the user set with `waiter config set` or the WebUI wins over the env var, which wins over the
 * built-in default.
 */
export function providerConfigDefaults(): Record<string, ConfigKeyDef> {
  const out: Record<string, ConfigKeyDef> = {
    'core.llm.order': def(
      SEEDED_SOURCES.map((s) => s.name),
      'Fallback order of LLM sources; sources left out are tried after the listed ones',
      z.array(z.string()),
    ),
    'core.llm.failure_threshold': def(3, 'Consecutive failures of a source before it cools down (a refused request — 400, 413, 422 — is not counted)', z.number().int().min(1).max(100)),
    'core.llm.cooldown_ms': def(60_000, 'How long a failing source is skipped, in ms', z.number().int().min(0).max(86_400_000)),
    'core.llm.timeout_ms': def(120_000, 'Time limit of one LLM request (headers to last byte), in ms', z.number().int().min(1_000).max(3_600_000)),
    'core.llm.idle_timeout_ms': def(60_000, 'Longest silence between two streamed chunks, in ms', z.number().int().min(1_000).max(3_600_000)),
    [CUSTOM_SOURCES_KEY]: def([], 'Your own LLM sources (name, label, declared models); each has the same core.llm.sources.<name>.* keys as a built-in one. Add them with "waiter providers add" or in the WebUI', customSourcesSchema, { privileged: true }),
  };
  for (const s of SEEDED_SOURCES) {
    out[sourceKey(s.name, 'adapter')] = def(s.adapter, `${s.label}: Lua adapter (file name in the adapters folders, without .lua)`, name, { privileged: true });
    out[sourceKey(s.name, 'base_url')] = def(s.baseUrl, `${s.label}: API base URL`, z.string(), { privileged: true, ...(s.baseUrlEnv ? { env: s.baseUrlEnv } : {}) });
    out[sourceKey(s.name, 'model')] = def(s.model, `${s.label}: model name`, z.string().min(1));
    out[sourceKey(s.name, 'api_key')] = def('', `${s.label}: API key`, z.string().refine((k) => !apiKeyProblem(k), API_KEY_PROBLEM), { secret: true, env: s.keyEnv[0] });
    out[sourceKey(s.name, 'enabled')] = def(true, `${s.label}: use this source`, z.boolean());
    out[sourceKey(s.name, 'options')] = def({}, `${s.label}: adapter options (cfg.options in the Lua script, e.g. {"api_version": "…"})`, z.record(z.string(), z.unknown()));
  }
  return out;
}
