/**
 * The memory subsystem (T-1…T-10, K-1). Other subsystems import only this file.
 * `openMemorySystem` assembles the tiers (the one composition the daemon and the benchmarks use);
 * the tier classes are exported for the WebUI, CLI and tests.
 */
export { MemorySystem, type MemorySystemOptions } from './memory-system.js';
export { openMemorySystem, type MemoryCompositionOptions } from './memory-factory.js';
export { GraphDB, GRAPH_MIGRATIONS, firstPersonAs, type GraphNeighborhood, type GraphStats, type RecallResult, type GraphFacts, type FactMergeCounts } from './graph/index.js';
export { Indexer } from './indexer/index.js';
export { SocialService, PERSON_TYPE } from './social/index.js';
export { HeartbeatLoops, ManualScheduler, timerScheduler, decideMerge, reviewRelations, type Scheduler, type LoopName, type MergeOutcome, type ReviewOutcome } from './heartbeat/index.js';
export { extractFacts, docToTriples, bigramJaccard, findMergeCandidates, RuleDistillPipeline, type LlmLike, type MergeCandidate } from './distill/index.js';
export { graphTools, docTools, socialTools } from './tools/index.js';
export { EmbedderService } from './embedder/index.js';
export { RelevanceContext } from './context/index.js';
export { DocStore, readDocumentFile, DOC_MIGRATIONS, type MemoryDocument } from './documents/index.js';
export { ColdArchive, ARCHIVE_MIGRATIONS, type ArchivedRow } from './archive/index.js';
export { MemoryRecall, DEFAULT_RANK_OPTIONS, saidDays, type RankOptions, type RecallOptions } from './recall/index.js';
export type { ReindexProgress, RecoveryResult, SessionSource } from './recovery/index.js';
