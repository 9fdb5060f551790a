/** Config registry (G-1, G-2): typed keys, SQLite storage, change events, masked secrets. */
export { ConfigRegistry, type ConfigRegistryOptions, type ConfigLogger } from './config-registry.js';
export { PluginSettings } from './plugin-settings.js';
export { coreConfigDefaults } from './core-defaults.js';
export { parseDuration, isDuration, durationSchema } from './duration.js';
export { isPersonaPath, personaPath } from './persona-path.js';
export { maskSecret } from './mask-secret.js';
export { locateConfigKey, pluginTableName, assertPluginName, PLUGIN_NAME_RE, type ConfigKeyLocation } from './config-key.js';
export { PeopleRegistry, PersonIdFromConfigError, SPEAKER_ID_RE, type PeopleRegistryOptions } from './people-registry.js';
