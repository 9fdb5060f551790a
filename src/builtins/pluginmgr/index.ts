/** `pluginmgr` built-in plugin (P-7). */
export { pluginmgrPlugin as default, pluginmgrPlugin } from './pluginmgr-plugin.js';
