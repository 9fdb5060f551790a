/** `files` built-in plugin (P-7) and its change tracker (C-13). */
export { filesPlugin as default, filesPlugin } from './files-plugin.js';
export { PathGuard, PathOutsideRootsError, type GuardedPath } from './path-guard.js';
export { ChangeJournal, type PendingChange } from './change-journal.js';
