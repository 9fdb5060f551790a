import { definePlugin, type PluginDefinition } from '../../sdk/index.js';
import type { MemoryManager } from './memory-manager.js';
import { settingsDefs } from './settings.js';

/**
 * Builds the plugin definition. Each call has its own state, so two hosts in one process
 * (tests) never share a manager. The manager itself (library, scorer, HTTP API, summarizer) is
 * imported when the plugin starts, not when the daemon loads its built-ins (cold start, issue 14).
 */
export function createMemoryManagerPlugin(): PluginDefinition {
  let current: MemoryManager | undefined;
  return definePlugin({
    name: 'memory-manager',
    version: '0.1.0',
    description: 'Curated memory library: Obsidian-compatible memories, injection plan, session summaries, turn exclusion',
    settings: settingsDefs,
    async start(sdk) {
      const { MemoryManager } = await import('./memory-manager.js');
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
