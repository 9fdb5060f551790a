/** The plugin system (P-1…P-6): SDK runtime, registry, external/Lua/skill plugins, `.hmap` packages. */
export { PluginHost, PLUGIN_NAME, SubsystemUnavailableError, type PluginHostOptions, type PluginConfigPort, type MemoryPort } from './plugin-host.js';
export { PluginRegistry, type PluginRegistryOptions, type RegistryStartOptions } from './plugin-registry.js';
export { DisposerStack } from './disposer-stack.js';
export { RouteTable } from './route-table.js';
export { ServiceRegistry } from './service-registry.js';
export { restrictSdk } from './restricted-sdk.js';
export { pluginManifestSchema, parseManifest, readManifest, checkCompat, PERMISSIONS, type PluginManifest, type Permission } from './plugin-manifest.js';
export { ExternalPlugin, type ExternalPluginOptions, type ExternalHealth } from './external/external-plugin.js';
export { extractHmap, checkEntryName, type HmapLimits } from './hmap-archive.js';
export { luaPlugin, type LuaPluginOptions } from './lua-plugin.js';
export { SkillCatalog, parseSkill, readSkill, skillsPlugin, skillPlugin, type Skill } from './skill-catalog.js';
