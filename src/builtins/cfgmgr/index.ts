/** `cfgmgr` built-in plugin (P-7). */
export { cfgmgrPlugin as default, cfgmgrPlugin } from './cfgmgr-plugin.js';
