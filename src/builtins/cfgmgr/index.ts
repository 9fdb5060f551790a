/** `cfgmgr` built-in plugin (P-7). */
export { cfgmgrPlugin as default, cfgmgrPlugin, DEFAULT_PROTECTED_KEYS, isProtectedKey } from './cfgmgr-plugin.js';
