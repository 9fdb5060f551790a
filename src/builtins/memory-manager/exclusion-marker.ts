import type { PluginSDK } from '../../sdk/index.js';

import { SOURCE } from './session-turns.js';

/**
 * Writes the marker of an exclusion or a restore into the turn's session log (M-9: the seed's
 * text, `{op, turnId}` as data) and tells open chats that the log changed. The chat shows a turn
 * as excluded from the last marker. Written for an exclusion made here and for one made elsewhere
 * (`/api/v1/memory/exclusions`, `waiter memory exclude`, an undo) alike.
 */
export async function appendExclusionMarker(sdk: PluginSDK, sessionId: string, turnId: string, op: 'exclude' | 'restore'): Promise<void> {
  const text = op === 'exclude' ? `[记忆管理] 该轮已被排除 | turn=${turnId}` : `[记忆管理] 该轮已恢复 | turn=${turnId}`;
  const ev = await sdk.sessions().append(sessionId, { turnId, kind: 'marker', text, data: { op, turnId, source: SOURCE } });
  try {
    sdk.publish('session_event', { sessionId, seq: ev.seq, kind: 'marker' });
  } catch {
    /* no bus (a test host): the chat reads the marker on its next load */
  }
}
