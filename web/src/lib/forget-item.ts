import { api, mm } from '../api/client';

/** Something the about view lists and can forget. */
export type ForgetTarget =
  | { kind: 'fact'; id: number }
  | { kind: 'memory'; id: string }
  | { kind: 'turn'; sessionId: string; turnId: string };

/**
 * Forgets one item the about view lists — the one place the SPA decides how. When the daemon runs
 * the memory-control service (`capabilities.forget` of `/api/v1/memory/about`), the item goes to
 * its forget route (`POST /api/v1/memory/forget`: every trace, tombstoned, recorded in history).
 * Otherwise each tier's own delete: a fact through `DELETE /api/v1/memory/graph/relations/:id`, a
 * library memory through the memory-manager's `memory.delete`, a turn through the chat's turn
 * delete (decision 0050: hidden from the timeline, recall and reindex; the log keeps it).
 * Resolves with which path was taken.
 */
export async function forgetItem(target: ForgetTarget, caps: { forget: boolean }): Promise<'forgotten' | 'deleted'> {
  if (caps.forget) {
    const body = target.kind === 'fact' ? { relationIds: [target.id] } : target.kind === 'memory' ? { memoryIds: [target.id] } : { turnIds: [target.turnId] };
    await api('/api/v1/memory/forget', { method: 'POST', json: body });
    return 'forgotten';
  }
  if (target.kind === 'fact') await api(`/api/v1/memory/graph/relations/${target.id}`, { method: 'DELETE' });
  else if (target.kind === 'memory') await mm('memory.delete', { id: target.id });
  else await api(`/api/v1/sessions/${encodeURIComponent(target.sessionId)}/turns/${encodeURIComponent(target.turnId)}`, { method: 'DELETE' });
  return 'deleted';
}
