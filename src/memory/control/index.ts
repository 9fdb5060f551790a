/**
 * Memory the user controls (M-9, K-2, K-3): exclusion every tier obeys, forget with tombstones,
 * history with undo. `MemoryControl` is `host.memory-control`.
 */
export { MemoryControl } from './memory-control.js';
export { ControlDB } from './control-db.js';
export { MemoryChangeFeed, type MemoryChangeFeedOptions } from './change-feed.js';
export { withChangeActor, currentChangeActor } from './change-actor.js';
export { queryWords, containsAll } from './text-match.js';
export { knowledgeForgetParticipant, knowledgeForgetId, type ForgetKnowledgeBase } from './knowledge-participant.js';
export { turnHash, contentHash } from './tombstone-hash.js';
export { turnForgotten, type StoneMatcher } from './tombstone-match.js';
export { filesOnlyOf } from './forget-files.js';
export type { ControlSessions, ControlTextLog, ControlTiers } from './control-tiers.js';
