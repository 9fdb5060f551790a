/** Outbound HTTP through the person's proxy (decision 0670): the route of a request, and a `fetch` that takes it. */
export { OutboundFetch, type OutboundFetchOptions } from './outbound-fetch.js';
export { proxyRoute, isLocalDestination, noProxyMatches, envProxyProblem, type ProxyRoute, type ProxyChoice, type ProxyOrigin } from './proxy-route.js';
export { proxyUrlProblem, displayProxy } from './proxy-url.js';
