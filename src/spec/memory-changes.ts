/**
 * `memory_changed` (decision 0260): a signal on the event bus that what HomeAgent remembers changed,
 * wherever the change came from — `waiter`, the MCP server, the memory manager's API and tools, an
 * import, the heartbeat loops, a memory file edited by hand. Views that show memory (the WebUI's
 * library, graph, About me, People, knowledge, documents, history) read again when they see one.
 *
 * It says *that* something of a kind changed and who changed it, never *what* it now says: the
 * event stream reaches every client holding the token, and a view that wants the content asks for
 * it through the API it already uses.
 */
import type { ChangeActor, ChangeKind } from './memory-control.js';

/** What changed: a kind of the memory history (K-3), or `people` (who is who across channels). */
export type MemoryChangedKind = ChangeKind | 'people';

/** Every kind a `memory_changed` event can name. */
export const MEMORY_CHANGED_KINDS: readonly MemoryChangedKind[] = ['relation', 'entity', 'memory', 'document', 'knowledge', 'plan', 'exclusion', 'forget', 'replacement', 'people'];

/**
 * The payload of `memory_changed`. Bursts are coalesced: at most one event per kind per window
 * (a few hundred ms, trailing edge), so a distillation adding 200 facts is one `relation` event.
 */
export interface MemoryChangedEvent {
  kind: MemoryChangedKind;
  /** Who made the changes this event stands for (distinct, first first). */
  actors: ChangeActor[];
  /**
   * Opaque ids of what changed — library memory ids, relation ids (`12`), document ids — when
   * they are few (≤ 20). Absent: several or unnamed things of the kind changed; read it all again.
   * Never names, titles or text.
   */
  ids?: string[];
  /** Epoch ms of the last change it stands for. */
  at: number;
}

/** A change reported to the feed by something the memory subsystem does not see itself. */
export interface MemoryChangeNotice {
  kind: MemoryChangedKind;
  /** Opaque ids (see {@link MemoryChangedEvent.ids}); anything else is dropped. */
  ids?: readonly string[];
  /** Who made it (default: the actor of the current change context, else `user`). */
  actor?: ChangeActor;
}

/**
 * `host.memory-changes`: the one feed of `memory_changed`. The memory control reports what it
 * records; the memory manager reports its library and plan writes (hand edits of memory files
 * included, which the history does not record); the daemon reports the people registry.
 */
export interface MemoryChangesService {
  notify(change: MemoryChangeNotice): void;
}

declare module './plugin.js' {
  interface ServiceMap {
    'host.memory-changes': MemoryChangesService;
  }
}
