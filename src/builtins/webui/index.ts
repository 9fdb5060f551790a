/**
 * The `webui` built-in plugin (P-7, W-1…W-5): an HTTP server on 127.0.0.1 (hono) with the
 * embedded single-page app, a REST API over the SDK and host services, every plugin's routes,
 * and an SSE stream of every bus event. See docs/webui.md.
 */
export { default, createWebuiPlugin } from './webui-plugin.js';
export { WebuiServer, WebuiConfigError } from './webui-server.js';
export { createWebuiApp } from './create-app.js';
export { SseHub } from './sse-hub.js';
export { ConfirmBroker, type PendingConfirm, type ConfirmChannel } from './confirm-broker.js';
export { webuiSettings } from './settings.js';
