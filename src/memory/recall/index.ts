/**
 * Public surface of recall (K-1): one ranking over the context window, the warm documents, the
 * cold archive and graph facts, each hit with its provenance.
 */
export { MemoryRecall, factText, recallScope } from './memory-recall.js';
export type { RecallEntry, RecallOptions, RecallTiers } from './memory-recall.js';
export { rankEvidence, DEFAULT_RANK_OPTIONS } from './evidence-ranker.js';
export type { RankOptions, RankedDoc, RankResult } from './evidence-ranker.js';
export type { RecallCorpus, TermCounts } from './recall-corpus.js';
export { archiveCorpus, contextCorpus, documentCorpus, eventAsDoc } from './tier-corpora.js';
export { relatedDocumentsSlot, relatedLine, ownerIds } from './related-documents-slot.js';
export { temporalScopes, parseTimeScopes, inScope } from './temporal-scope.js';
export { saidDays, dayKey } from './said-days.js';
export type { ParsedTime, TimeScope } from './temporal-scope.js';
export { factSpeakers, queryFocus, speakerIdOf } from './speaker-focus.js';
export type { Participant } from './speaker-focus.js';
