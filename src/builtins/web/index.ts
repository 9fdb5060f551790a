/** `web` built-in plugin: `web_fetch` and `web_search`. */
import { createWebPlugin } from './web-plugin.js';

export default createWebPlugin();
export { createWebPlugin, webSettings, type WebPluginOptions } from './web-plugin.js';
export { AddressPolicy, isPublicAddress } from './address-policy.js';
export { safeFetch, parseWebUrl, type Resolver, type FetchedPage } from './safe-fetch.js';
export type { ReadablePage } from './readable-text.js';
export { webSearch, SEARCH_PROVIDERS, type SearchConfig } from './web-search.js';
export { WebError } from './web-error.js';
