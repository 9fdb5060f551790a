/**
 * The providers layer (L-1…L-3, C-6): Lua-adapted LLM providers and the provider manager with
 * fallback. Others import only this file.
 */
export { ProviderManager, noProviderMessage, type ProviderManagerOptions, type RunOptions, type RunResult, type ProviderLog } from './provider-manager.js';
export { providerConfigDefaults, SEEDED_SOURCES, sourceKey, normalizeBaseUrl, CUSTOM_SOURCES_KEY, customSourceSchema, customSourcesSchema, type SeededSource, type CustomSource } from './provider-config.js';
export { sourceInputSchema, API_ADAPTERS, type SourceInput } from './source-catalog.js';
export { LuaAdaptedProvider, errorMessageOf, type ProviderSource, type LuaAdaptedProviderOptions } from './lua-adapted-provider.js';
export { LuaAdapter, toLuaRequest, type AdapterConfig, type AdapterHttpRequest, type LuaAdapterOptions } from './lua-adapter.js';
export { AdapterRegistry, type AdapterFile } from './adapter-registry.js';
export { HeldAdapters, HELD_ADAPTERS_DIR, REPLACED_ADAPTERS_DIR, ADAPTER_MAX_BYTES, adapterProblem } from './held-adapters.js';
export { LuaSandbox, registerHttpFunctions, refuseOwnPorts, isLocalHostName, type LuaSandboxOptions, type HostFunction, type LuaLogLevel, type HttpFunctionOptions } from './lua/index.js';

import { fileURLToPath } from 'node:url';
/** Folder of the shipped `*.lua` adapters (first entry of `adapterDirs`). */
export const BUILTIN_ADAPTERS_DIR: string = fileURLToPath(new URL('./adapters/', import.meta.url));
