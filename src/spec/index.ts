/**
 * The contracts layer: types, constants and error classes only. Everything may import it; it
 * imports nothing of ours.
 */
export * from './errors/index.js';
export * from './provider.js';
export * from './tool.js';
export * from './stage.js';
export * from './memory.js';
export * from './events.js';
export * from './channel.js';
export * from './session.js';
export * from './config.js';
export * from './plugin.js';
export * from './services.js';
export * from './cli-protocol.js';
export * from './confirm.js';
export * from './http.js';
export * from './speaker.js';
export * from './people.js';
export * from './media.js';
export * from './network.js';
export * from './memory-control.js';
export * from './memory-changes.js';
export * from './transfer.js';
export * from './held-adapter.js';
export * from './api-key.js';
export * from './confirm-questions.js';
export * from './import-notes.js';
export * from './local-time.js';
export * from './store-salvage.js';
export * from './auto-inject-tags.js';
export * from './forget-words.js';
