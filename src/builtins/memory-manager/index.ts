/**
 * The memory manager built-in plugin (M-1…M-13): a curated, cross-session memory library with an
 * injection plan, session summaries, turn exclusion, an HTTP API and agent tools — written against
 * the public SDK only.
 */
import { createMemoryManagerPlugin } from './memory-manager-plugin.js';

export { createMemoryManagerPlugin } from './memory-manager-plugin.js';
export default createMemoryManagerPlugin();

export { MemoryManager, SUMMARY_AUTO_INJECT_MAX, type InjectionResult } from './memory-manager.js';
export { MemoryLibrary, type MemorySummary, type SaveInput, type MetaPatch } from './memory-library.js';
export { PlanStore, type Plan, type PinnedMessage, type PlanMemory, type OnceItem } from './plan-store.js';
export { parseMemoryFile, serializeMemory, TAG_CONVENTION, TAG_SUMMARY, type MemoryRecord, type MemoryMeta } from './memory-file.js';
export { allocateBudget, renderBlock, BLOCK_HEADER, BLOCK_FOOTER, type BudgetResult } from './injection-budget.js';
export { API_PATH, BODY_LIMIT } from './http-api.js';
export { API_OPS } from './api-ops.js';
export { DEFAULT_CONFIG, settingsDefs, type MemoryManagerConfig } from './settings.js';
