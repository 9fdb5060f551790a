/** Distillation (T-9): regex fact rules, the 10-minute rule pipeline, docToTriples, entity similarity. */
export { extractFacts, splitSentences, parseSmallNumber, isQuestion, type ExtractOptions, type FactPredicate } from './rule-distiller.js';
export { RuleDistillPipeline, speakerEntity, type RuleDistillPipelineOptions } from './rule-distill-pipeline.js';
export { docToTriples, parseLlmTriples, extractJson, DOC_TRIPLES_PROMPT, type LlmLike, type DistillableDoc } from './doc-to-triples.js';
export { bigrams, bigramJaccard, findMergeCandidates, type MergeCandidate } from './bigram-jaccard.js';
