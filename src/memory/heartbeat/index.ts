/** Memory heartbeats (T-8): distill, archive, merge and review loops (+ the T-9 rule tick). */
export { HeartbeatLoops, LOOP_INTERVALS, type HeartbeatDeps, type ConsolidationTicket, type ColdDocSource, type PrunableContext, type LoopName, type LoopStatus } from './heartbeat-loops.js';
export { timerScheduler, ManualScheduler, type Scheduler } from './scheduler.js';
export { decideMerge, applyMergeAnswer, mergePrompt, type MergeOutcome } from './merge-decider.js';
export { reviewRelations, reviewPrompt, type ReviewOutcome } from './relation-reviewer.js';
