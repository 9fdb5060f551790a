/** The knowledge graph (T-4): GraphDB over SQLite graph.db. */
export { GraphDB, GraphStore, DEFAULT_CONFIDENCE, type DetachResult } from './graph-db.js';
export type { GraphDBOptions, RecallOptions, RecallResult, GraphNeighborhood, GraphStats, PurgeOptions, EntityPatch, RelationPatch } from './graph-db.js';
export type { GraphChange, GraphState, EntityState, RelationState } from './graph-state.js';
export { SINGLE_VALUED_PREDICATES, isSingleValued } from './supersede.js';
export { GRAPH_LIMITS, TripleSchema, parseTriples, escapeLike, cleanPredicate, cleanName, firstPersonAs } from './graph-input.js';
export { GRAPH_MIGRATIONS } from './graph-migrations.js';
export type { GraphFacts, FactEntity, FactRelation, FactMergeCounts, FactMergeOptions } from './graph-transfer.js';
