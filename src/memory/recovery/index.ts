/** Public surface of recovery: the memory tiers rebuilt from the session logs (crash recovery, reindex). */
export { recoverContext, REPLAY_BATCH, type ContextRecoveryDeps, type RecoveryResult } from './context-recovery.js';
export { reindexArchive, type ReindexDeps, type ReindexProgress } from './archive-reindex.js';
export { loggedTurnEvents, CONSOLIDATION, type LoggedTurnEvent, type SessionSource } from './session-events.js';
