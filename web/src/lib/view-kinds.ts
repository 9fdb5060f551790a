import type { MemoryChangedKind } from '../../../src/spec/index.js';

/**
 * Which kinds of `memory_changed` (decision 0260) each memory view shows, so it reads again when
 * one of them changed elsewhere (`waiter`, the MCP server, an import, the heartbeat …). A forget
 * can remove anything, so every view of content listens to it; an exclusion takes a turn's
 * documents and facts out, and so does a turn replaced by a regenerate (decision 0550).
 */
export const VIEW_KINDS = {
  /** The library list and the memory graph (memory-manager memories). */
  library: ['memory', 'forget'],
  /** One memory: its record, related memories, whether it is in the plan. */
  memory: ['memory', 'plan', 'forget'],
  /** The plan tab. */
  plan: ['plan', 'memory', 'exclusion', 'forget'],
  /** The messages tab's turn rows (excluded, forgotten). */
  turns: ['exclusion', 'forget'],
  /** The knowledge graph. */
  graph: ['relation', 'entity', 'exclusion', 'forget', 'replacement'],
  /** The people registry. */
  people: ['people'],
  /** What HomeAgent knows about a person: facts, what they said, library memories. */
  about: ['relation', 'entity', 'memory', 'document', 'exclusion', 'forget', 'replacement', 'people'],
  /** The knowledge base. */
  knowledge: ['knowledge', 'forget'],
  /** The documents list. */
  documents: ['document', 'exclusion', 'forget', 'replacement'],
  /** The counts of every tier. */
  stats: ['document', 'relation', 'entity', 'knowledge', 'exclusion', 'forget', 'replacement'],
  /** The memory history (K-3): every recorded kind. */
  history: ['relation', 'entity', 'memory', 'document', 'knowledge', 'plan', 'exclusion', 'forget', 'replacement'],
} as const satisfies Record<string, readonly MemoryChangedKind[]>;
