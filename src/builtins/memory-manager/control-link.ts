import type { Disposer, PluginSDK } from '../../sdk/index.js';
import { retitleForgottenSummaries } from './forgotten-titles.js';
import type { ChangeMeta, ForgetParticipant, MemoryChange, MemoryControlService, ToolDef } from '../../spec/index.js';
import { ConflictError, containsAll, queryWords, ValidationError } from '../../spec/index.js';
import { confirmedForget } from '../shared/index.js';
import { appendExclusionMarker } from './exclusion-marker.js';
import type { MemoryRecord } from './memory-file.js';
import type { MemoryLibrary } from './memory-library.js';
import type { Plan, PlanStore } from './plan-store.js';

/** What the link needs of the memory manager (its stores are replaced when the library folder changes). */
export interface ControlLinkHost {
  sdk: PluginSDK;
  library: MemoryLibrary;
  plan: PlanStore;
  log(level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>): void;
}

const preview = (r: MemoryRecord) => `${r.snapshot}\n${r.notes}`.replace(/\s+/g, ' ').trim().slice(0, 200);

/** Every word of `query` is in `text`: the rule forget uses everywhere (K-2, spec/forget-words). */
function holdsAll(text: string, query: string): boolean {
  return containsAll(text, queryWords(query));
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
        if ((await h.library.delete(id, { unrecorded: true })).deleted) removed++;
        // Out of the injection plan too, when it was there.
        await h.plan.removeMemory(id).catch((e: unknown) => {
          if ((e as { code?: string }).code !== 'NOT_FOUND') throw e;
        });
      }
      await h.plan.scrub(() => false, ids);
      return { removed, texts: texts.filter((t) => t.trim()) };
    },
    // Pinned messages and one-shot items quoting what was forgotten go too; a session summary
    // named after a forgotten first message is renamed.
    scrub: async (texts, turnIds) => {
      if (!texts.length) return 0;
      const pinned = await h.plan.scrub((t) => texts.some((x) => t.includes(x)));
      const failed: string[] = [];
      const renamed = await retitleForgottenSummaries(h.library, texts, turnIds, (id, e) => {
        failed.push(id);
        h.log('warn', 'a summary named after a forgotten message could not be renamed', { id, error: e.message });
      });
      // Said, not swallowed (decision 0400): the forget reports this part as unfinished.
      if (failed.length) throw new Error(`${failed.length} session summar${failed.length === 1 ? 'y' : 'ies'} named after a forgotten message could not be renamed (${failed.join(', ')}); ${pinned + renamed} other item(s) were done`);
      return pinned + renamed;
    },
    // A memory made from events of the forgotten turns (a session summary, a message saved as a
    // memory) holds what they said: it goes with them (decision 0430).
    madeFrom: async (sources) => {
      await h.library.ready();
      return h.library.madeFrom(sources).map((r) => ({ id: r.id, title: r.title, preview: preview(r) }));
    },
    // A memory composed of one that goes copied its text (Compose, M-4): it goes too.
    madeOf: async (ids) => {
      await h.library.ready();
      return h.library.madeOf(ids).map((r) => ({ id: r.id, title: r.title, preview: preview(r) }));
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
      // Made here (`turn.exclude`), the plan has it already and the marker is written; made
      // elsewhere, the chat is told by the marker too.
      void (excluded ? h.plan.exclude(sid, id) : h.plan.restore(sid, id))
        .then((changed) => (changed ? appendExclusionMarker(h.sdk, sid, id, excluded ? 'exclude' : 'restore') : undefined))
        .catch((e: unknown) => h.log('warn', 'mirroring an exclusion failed', { error: (e as Error).message }));
    }
  });
  return [mc.registerForgetParticipant('library', libraryForgetParticipant(h)), off, h.sdk.registerTool(forgetTool(h, mc)), mc.registerUndo('memory', (c) => undoMemoryChange(h, c)), mc.registerUndo('plan', (c) => h.plan.replace(c.before as Plan, c.after as Plan))];
}

async function syncExclusions(h: ControlLinkHost, mc: MemoryControlService): Promise<void> {
  try {
    await h.plan.ready();
    const have = new Set(mc.excluded());
    const missing = Object.values(await h.plan.excluded()).flat().filter((id) => !have.has(id));
    if (missing.length) {
      // One at a time: a turn no log or tier holds any more (its session deleted) is refused as
      // unknown, and must not keep the others from being excluded.
      let turns = 0;
      let held = 0;
      const unknown: string[] = [];
      for (const id of missing) {
        try {
          const r = await mc.exclude([id], { actor: 'user', tool: 'memory-manager' });
          turns += r.turns;
          held += r.held;
        } catch (e) {
          if ((e as { code?: string }).code !== 'NOT_FOUND') throw e;
          unknown.push(id);
        }
      }
      h.log('info', 'excluded turns handed to memory control', { turns, held, ...(unknown.length ? { unknown } : {}) });
    }
  } catch (e) {
    h.log('warn', 'handing excluded turns to memory control failed', { error: (e as Error).message });
  }
}

/**
 * `memory_forget` (K-2): the agent can ask to forget, the person decides. The daemon previews what
 * would go and shows it in the WebUI's confirmation dialog; without a yes (or with no WebUI open)
 * nothing is forgotten.
 */
export function forgetTool(h: ControlLinkHost, mc: MemoryControlService): ToolDef {
  return {
    name: 'memory_forget',
    description:
      '让用户确认后彻底遗忘某件事（所有记忆层、图谱事实、会话日志）。Ask the user to forget something everywhere in memory: what would go is shown to them and nothing is removed without their yes in the WebUI. Use when the user asks you to forget something.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'words the forgotten things contain (every word must occur)' },
        turn_ids: { type: 'array', items: { type: 'string' }, description: 'turn ids (<session>#<n>) to forget' },
        include_library: { type: 'boolean', description: 'also remove library memories that mention it (listed in the dialog)' },
        keep_fact_ids: {
          type: 'array',
          items: { type: 'integer' },
          maxItems: 100,
          description: 'ids of facts (as memory_recall gives them) the user wants to keep while the turns they came from are forgotten; each must be a fact this forget would take, shown to the user as kept',
        },
      },
    },
    handler: async (a, call) => {
      const query = typeof a.query === 'string' ? a.query.trim().slice(0, 2000) : '';
      const turnIds = Array.isArray(a.turn_ids) ? a.turn_ids.filter((x): x is string => typeof x === 'string').slice(0, 100) : [];
      if (!query && !turnIds.length) throw new ValidationError('say what to forget: query or turn_ids', { path: 'query' });
      const keep = keepFactIds(a.keep_fact_ids);
      const r = await confirmedForget(mc, h.sdk.use('host.confirm'), { ...(query ? { query } : {}), ...(turnIds.length ? { turnIds } : {}), ...(keep.length ? { keepRelationIds: keep } : {}) }, {
        plugin: 'memory-manager',
        sessionId: call?.sessionId ?? '',
        who: 'The assistant',
        withMemories: a.include_library === true,
        meta: { actor: 'agent', tool: 'memory_forget', ...(call?.turnId ? { turnId: call.turnId } : {}) },
      });
      if (r.status === 'nothing') return { forgotten: false, found: 0 };
      if (r.status === 'refused') return { forgotten: false, reason: r.reason, found: r.plan.turns.length + r.plan.facts.length + r.plan.documents.length };
      return { forgotten: true, ...r.result };
    },
  };
}

/** `keep_fact_ids` as the model sent it: a list of at most 100 positive integer ids, else a `ValidationError` (nothing is asked). */
function keepFactIds(v: unknown): number[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.length > 100 || !v.every((x) => Number.isSafeInteger(x) && (x as number) > 0)) {
    throw new ValidationError('keep_fact_ids must be a list of at most 100 fact ids (positive integers)', { path: 'keep_fact_ids' });
  }
  return v as number[];
}

/** While an undo of the library runs, its own writes are not recorded again (the undo is). */
let undoing = 0;

/** The library's change hook (K-3): every save, edit and delete goes into the memory history. */
export function recordLibraryChange(mc: MemoryControlService | undefined, op: 'create' | 'update' | 'delete', before: MemoryRecord | undefined, after: MemoryRecord | undefined, inFile = false): void {
  if (!mc || undoing) return;
  const r = (after ?? before)!;
  const what = inFile ? (op === 'create' ? 'added' : op === 'delete' ? 'deleted' : 'edited') : op === 'create' ? 'saved' : op === 'delete' ? 'deleted' : 'edited';
  mc.record({ kind: 'memory', target: r.id, subjects: [r.title, ...r.impressions], op, summary: `${what} memory "${r.title}"${inFile ? ' in its file (outside HomeAgent)' : ''}`, before, after, ...(inFile ? { actor: 'user' as const, tool: 'file' } : {}) });
}

/**
 * Undoes one library change (K-3): a save is deleted, a delete is saved again (same id, snapshot,
 * meta, notes), an edit gets its title, impressions, tags, links and notes back. When the memory
 * changed since, it is a ConflictError (undo the later change first).
 */
export async function undoMemoryChange(h: ControlLinkHost, c: MemoryChange): Promise<void> {
  const before = c.before as MemoryRecord | undefined;
  const after = c.after as MemoryRecord | undefined;
  await h.library.ready();
  const now = h.library.get(c.target);
  if (after && (!now || now.updatedAt !== after.updatedAt)) throw new ConflictError(`memory ${c.target} changed since; undo its later change first`, { id: c.target });
  if (!after && now) throw new ConflictError(`memory ${c.target} exists again`, { id: c.target });
  undoing++;
  try {
    if (!before) await h.library.delete(c.target);
    else if (!after) await h.library.save({ id: before.id, title: before.title, snapshot: before.snapshot, impressions: before.impressions, tags: before.tags, enabled: before.enabled, links: before.links, composedOf: before.composedOf, notes: before.notes, ...(before.source ? { source: before.source } : {}) });
    else {
      await h.library.updateMeta(c.target, { title: before.title, impressions: before.impressions, tags: before.tags, enabled: before.enabled, links: before.links, composedOf: before.composedOf });
      await h.library.updateNotes(c.target, before.notes, 'replace');
    }
  } finally {
    undoing--;
  }
}

const PLAN_OPS: Record<string, string> = {
  scrub: 'removed pinned messages that held forgotten text',
  pin: 'pinned a message',
  unpin: 'unpinned a message',
  addMemory: 'added a memory to the plan',
  removeMemory: 'removed a memory from the plan',
  setInjectOnce: 'changed inject-once',
  clear: 'cleared the plan',
};

/** The plan's change hook (K-3): every change of the injection plan goes into the memory history. */
export function recordPlanChange(mc: MemoryControlService | undefined, op: string, before: Plan, after: Plan): void {
  if (!mc) return;
  const named = [...before.memories, ...after.memories].map((m) => m.title);
  mc.record({ kind: 'plan', target: 'plan', subjects: [...new Set(named)], op, summary: PLAN_OPS[op] ?? op, before, after });
}
