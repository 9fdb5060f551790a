/**
 * The memory manager built-in plugin (M-1…M-13): a curated, cross-session memory library with an
 * injection plan, session summaries, turn exclusion, an HTTP API and agent tools — written against
 * the public SDK only.
 */
import { definePlugin, type PluginDefinition } from '../../sdk/index.js';
import { MemoryManager } from './memory-manager.js';
import { settingsDefs } from './settings.js';

/**
 * Builds the plugin definition. Each call has its own state, so two hosts in one process
 * (tests) never share a manager; the default export is one such instance.
 */
export function createMemoryManagerPlugin(): PluginDefinition {
  let current: MemoryManager | undefined;
  return definePlugin({
    name: 'memory-manager',
    version: '0.1.0',
    description: 'Curated memory library: Obsidian-compatible memories, injection plan, session summaries, turn exclusion',
    settings: settingsDefs,
    start(sdk) {
      const m = new MemoryManager(sdk);
      current = m;
      m.start();
    },
    async stop() {
      const m = current;
      current = undefined;
      await m?.stop();
    },
  });
}

export default createMemoryManagerPlugin();

export { MemoryManager, SUMMARY_AUTO_INJECT_MAX, type InjectionResult } from './memory-manager.js';
export { MemoryLibrary, type MemorySummary, type SaveInput, type MetaPatch } from './memory-library.js';
export { PlanStore, type Plan, type PinnedMessage, type PlanMemory, type OnceItem } from './plan-store.js';
export { parseMemoryFile, serializeMemory, TAG_CONVENTION, TAG_SUMMARY, type MemoryRecord, type MemoryMeta } from './memory-file.js';
export { allocateBudget, renderBlock, BLOCK_HEADER, BLOCK_FOOTER, type BudgetResult } from './injection-budget.js';
export { API_PATH, BODY_LIMIT } from './http-api.js';
export { API_OPS } from './api-ops.js';
export { DEFAULT_CONFIG, settingsDefs, type MemoryManagerConfig } from './settings.js';
