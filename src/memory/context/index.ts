/** Public surface of the context window (T-2). */
export { RelevanceContext, PROTECTED_RECENT, NOT_ARCHIVED_SOURCES, kernelTurnNumber } from './relevance-context.js';
export type { RelevanceContextOptions, ContextTimers, ArchiveSink, ScoredEvent, ContextLoad } from './relevance-context.js';
export { textForVector } from './text-for-vector.js';
export type { ToolCleaner, CleanerLookup } from './text-for-vector.js';
export { readContextFile, writeFileAtomic } from './context-file.js';
export type { TurnMark } from './context-file.js';
