import { readFileSync } from 'node:fs';
import { join, isAbsolute, normalize } from 'node:path';
import { z } from 'zod';
import { PluginError } from '../spec/index.js';

/** Permissions an external plugin may ask for in `plugin.json`; each gates a part of the restricted SDK. */
export const PERMISSIONS = ['memory', 'knowledge', 'social', 'llm', 'sessions', 'input', 'interrupt', 'output'] as const;
export type Permission = (typeof PERMISSIONS)[number];

const settingSchema = z.strictObject({
  default: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  description: z.string().max(500).default(''),
  secret: z.boolean().optional(),
  env: z.string().regex(/^[A-Z][A-Z0-9_]*$/).optional(),
});

/** `plugins/<name>/plugin.json` (P-3). Validated before any plugin code runs. */
export const pluginManifestSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'name must be lower-case letters, digits, _ or - (max 64)'),
  version: z.string().regex(/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/, 'version must be semver (1.2.3)'),
  entry: z
    .string()
    .min(1)
    .refine((p) => !isAbsolute(p) && !normalize(p).startsWith('..') && !/^[A-Za-z]:/.test(p), 'entry must be a relative path inside the plugin folder')
    .refine((p) => /\.(m?js)$/.test(p) || p === 'main.lua', 'entry must be a .js or .mjs file (or main.lua for a Lua plugin)'),
  description: z.string().max(1000).optional(),
  platforms: z.array(z.enum(['linux', 'darwin', 'win32', 'freebsd', 'openbsd', 'sunos', 'aix'])).optional(),
  engines: z.strictObject({ homeagent: z.string().optional(), node: z.string().optional() }).optional(),
  permissions: z.array(z.enum(PERMISSIONS)).default([]),
  dependencies: z.array(z.string()).default([]),
  settings: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/), settingSchema).optional(),
}).superRefine((m, ctx) => {
  // A plugin reads only what the person set for it: an env var it may take a setting from must
  // be its own (`HOMEAGENT_PLUGIN_<NAME>_…`), never the daemon's secrets (OPENAI_API_KEY …).
  const prefix = pluginEnvPrefix(m.name);
  for (const [key, def] of Object.entries(m.settings ?? {})) {
    if (def.env !== undefined && !def.env.startsWith(prefix)) {
      ctx.addIssue({ code: 'custom', path: ['settings', key, 'env'], message: `must start with ${prefix} (a plugin cannot read the daemon's environment, e.g. its API keys)` });
    }
  }
});

/** The env var prefix a plugin's settings may read: `HOMEAGENT_PLUGIN_<NAME>_` (name upper-cased, - → _). */
export function pluginEnvPrefix(name: string): string {
  return `HOMEAGENT_PLUGIN_${name.toUpperCase().replace(/-/g, '_')}_`;
}
export type PluginManifest = z.infer<typeof pluginManifestSchema>;

/** Parses manifest JSON text; a bad manifest is a PluginError with code PLUGIN_BAD_MANIFEST (or `code`). */
export function parseManifest(text: string, where: string, code = 'PLUGIN_BAD_MANIFEST'): PluginManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new PluginError(where, `plugin.json is not valid JSON: ${(e as Error).message}`, code, e);
  }
  const r = pluginManifestSchema.safeParse(raw);
  if (!r.success) {
    const msg = r.error.issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message)).join('; ');
    throw new PluginError(where, `invalid plugin.json: ${msg}`, code, undefined, { issues: r.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) });
  }
  return r.data;
}

/** Reads and validates `<dir>/plugin.json`. */
export function readManifest(dir: string, where: string, code = 'PLUGIN_BAD_MANIFEST'): PluginManifest {
  let text: string;
  try {
    text = readFileSync(join(dir, 'plugin.json'), 'utf8');
  } catch (e) {
    throw new PluginError(where, `plugin.json cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, code, e);
  }
  return parseManifest(text, where, code);
}

/** Checks `platforms` and `engines.node` (`>=N[.M]`, `^N`, `N.x`) against this process. */
export function checkCompat(m: PluginManifest, platform: string = process.platform, nodeVersion: string = process.versions.node): void {
  if (m.platforms && m.platforms.length && !m.platforms.includes(platform as never)) {
    throw new PluginError(m.name, `unsupported platform ${platform} (plugin supports ${m.platforms.join(', ')})`, 'PLUGIN_INCOMPATIBLE');
  }
  const range = m.engines?.node?.trim();
  if (range) {
    const major = Number(nodeVersion.split('.')[0]);
    const ge = /^>=\s*(\d+)/.exec(range);
    const caret = /^\^(\d+)/.exec(range) ?? /^(\d+)(\.x)?$/.exec(range);
    if ((ge && major < Number(ge[1])) || (caret && major !== Number(caret[1]))) {
      throw new PluginError(m.name, `needs node ${range} (running ${nodeVersion})`, 'PLUGIN_INCOMPATIBLE');
    }
  }
}
