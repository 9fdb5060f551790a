import type { MemoryRecord } from './memory-file.js';

/** What the check reads: the excluded turns per session, and a session's events — deleted ones included (a deleted turn can be excluded). */
export interface SetAsideInputs {
  excluded(): Promise<Record<string, string[]>>;
  events(sessionId: string): Promise<readonly { seq: number; turnId?: string }[]>;
}

/**
 * M-9 for library memories (decision 0440). A memory made from events of a turn that is excluded now
 * holds what that turn said: a session summary of it, a message saved as a memory. While the turn
 * stays excluded the memory reaches no prompt. It is not injected, and the agent's tools and MCP
 * clients neither find nor read it. It stays in the library and the person still sees it there.
 * Restoring the turn brings it back.
 *
 * Returns the ids of `records` set aside. When the log of a session with excluded turns cannot be
 * read, every memory made from that session is set aside: which turn its events belong to is
 * unknown, and the safe side of an exclusion is to keep it from the model.
 */
export async function setAsideByExclusion(records: Iterable<MemoryRecord>, inputs: SetAsideInputs): Promise<Set<string>> {
  const out = new Set<string>();
  let excluded: Record<string, string[]> | undefined;
  const turnOfSeq = new Map<string, Map<number, string> | 'unreadable'>();
  for (const r of records) {
    const src = r.source;
    if (!src?.seqs.length) continue;
    excluded ??= await inputs.excluded();
    const ex = excluded[src.sessionId];
    if (!ex?.length) continue;
    let bySeq = turnOfSeq.get(src.sessionId);
    if (!bySeq) {
      try {
        const map = new Map<number, string>();
        for (const e of await inputs.events(src.sessionId)) if (e.turnId) map.set(e.seq, e.turnId);
        bySeq = map;
      } catch {
        bySeq = 'unreadable';
      }
      turnOfSeq.set(src.sessionId, bySeq);
    }
    const exSet = new Set(ex);
    const map = bySeq;
    if (map === 'unreadable' || src.seqs.some((q) => exSet.has(map.get(q) ?? ''))) out.add(r.id);
  }
  return out;
}
