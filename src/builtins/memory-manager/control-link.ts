import type { Disposer, PluginSDK } from '../../sdk/index.js';
import type { ChangeMeta, ForgetParticipant, MemoryControlService } from '../../spec/index.js';
import type { MemoryRecord } from './memory-file.js';
import type { MemoryLibrary } from './memory-library.js';
import type { PlanStore } from './plan-store.js';

/** What the link needs of the memory manager (its stores are replaced when the library folder changes). */
export interface ControlLinkHost {
  sdk: PluginSDK;
  library: MemoryLibrary;
  plan: PlanStore;
  log(level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>): void;
}

const preview = (r: MemoryRecord) => `${r.snapshot}\n${r.notes}`.replace(/\s+/g, ' ').trim().slice(0, 200);

/** Every word of `query` (white-space split, lower-cased) is in `text`: the rule forget uses everywhere (K-2). */
function holdsAll(text: string, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const t = text.toLowerCase();
  return words.length > 0 && words.every((w) => t.includes(w));
}

/**
 * The library's part in forget (K-2): it lists the memories that mention the words (the person
 * chooses which go) and deletes the chosen ones; one-shot items quoting a forgotten text are dropped.
 */
export function libraryForgetParticipant(h: ControlLinkHost): ForgetParticipant {
  return {
    find: async (query, limit) => {
      await h.library.ready();
      return h.library
        .all()
        .filter((r) => holdsAll(`${r.title}\n${r.snapshot}\n${r.notes}\n${r.impressions.join(' ')}`, query))
        .slice(0, limit)
        .map((r) => ({ id: r.id, title: r.title, preview: preview(r) }));
    },
    describe: async (ids) => {
      await h.library.ready();
      return ids.flatMap((id) => {
        const r = h.library.get(id);
        return r ? [{ id: r.id, title: r.title, preview: preview(r) }] : [];
      });
    },
    remove: async (ids, _meta: ChangeMeta) => {
      await h.library.ready();
      const texts: string[] = [];
      let removed = 0;
      for (const id of ids) {
        const r = h.library.get(id);
        if (!r) continue;
        texts.push(r.title, r.snapshot, r.notes);
        if ((await h.library.delete(id)).deleted) removed++;
        await h.plan.removeMemory(id);
      }
      return { removed, texts: texts.filter((t) => t.trim()) };
    },
  };
}

/**
 * Links the memory manager to `host.memory-control` (M-9, K-2): exclusions kept in
 * `pinned/excluded.json` before the memory control existed are handed to it once the plan is
 * loaded, and the library takes part in forget. Returns the disposers.
 */
export function linkMemoryControl(h: ControlLinkHost): Disposer[] {
  const mc = h.sdk.use('host.memory-control');
  if (!mc) return [];
  void syncExclusions(h, mc);
  // Exclusions made elsewhere (`waiter memory exclude`, an undo) show in the timeline too.
  const off = mc.onExclusionChange(({ turnIds, excluded }) => {
    for (const id of turnIds) {
      const sid = id.slice(0, Math.max(0, id.lastIndexOf('#')));
      void (excluded ? h.plan.exclude(sid, id) : h.plan.restore(sid, id)).catch((e: unknown) => h.log('warn', 'mirroring an exclusion failed', { error: (e as Error).message }));
    }
  });
  return [mc.registerForgetParticipant('library', libraryForgetParticipant(h)), off];
}

async function syncExclusions(h: ControlLinkHost, mc: MemoryControlService): Promise<void> {
  try {
    await h.plan.ready();
    const have = new Set(mc.excluded());
    const missing = Object.values(await h.plan.excluded()).flat().filter((id) => !have.has(id));
    if (missing.length) {
      const r = await mc.exclude(missing, { actor: 'user', tool: 'memory-manager' });
      h.log('info', 'excluded turns handed to memory control', { turns: r.turns, held: r.held });
    }
  } catch (e) {
    h.log('warn', 'handing excluded turns to memory control failed', { error: (e as Error).message });
  }
}
