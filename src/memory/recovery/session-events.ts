import type { ContextEvent, Conversation, SessionEvent, SessionInfo, Speaker } from '../../spec/index.js';
import { kernelTurnNumber } from '../context/index.js';

/** What recovery and reindex read of the session logs (SessionStore fits). */
export interface SessionSource {
  list(): Promise<SessionInfo[]>;
  events(id: string): Promise<SessionEvent[]>;
}

/** The kernel's source / channel of internal consolidation turns: never part of the memory tiers. */
export const CONSOLIDATION = '_consolidation_';

/** A context event as the live turn would have appended it, rebuilt from the session log. */
export interface LoggedTurnEvent {
  /** The turn id (`<session>#<n>`). */
  turnId: string;
  /** The turn number, when the turn id has the kernel's form. */
  turn: number | undefined;
  /** Seq of the session event it came from. */
  seq: number;
  event: ContextEvent;
}

/**
 * The memory events a session log implies, as the kernel's turn runner appends them to the
 * context window: each user message (kind `user`) and each reply that completed normally (status
 * `ok`, kind `agent`, its input the turn's user message). Consolidation turns are skipped, as the
 * kernel keeps them out of the window. Tool outputs are not rebuilt: the log does not record which
 * outputs were `noMemory`, so a replayed reply carries its text only. Ids are derived from the
 * session and seq (`log:<session>:<seq>`), so a replay is stable.
 */
export function loggedTurnEvents(info: Pick<SessionInfo, 'id' | 'channel'>, events: readonly SessionEvent[]): LoggedTurnEvent[] {
  if (info.channel === CONSOLIDATION) return [];
  const userText = new Map<string, string>();
  const userSource = new Map<string, string>();
  const userPlace = new Map<string, Conversation>();
  const out: LoggedTurnEvent[] = [];
  for (const ev of events) {
    const data = ev.data ?? {};
    const base = { turnId: ev.turnId, turn: kernelTurnNumber(info.id, ev.turnId), seq: ev.seq };
    if (ev.kind === 'user') {
      const source = typeof data.source === 'string' ? data.source : info.channel;
      if (source === CONSOLIDATION) continue;
      userText.set(ev.turnId, ev.text);
      userSource.set(ev.turnId, source);
      // Who said it and where are logged with the message; absent: the owner, in private.
      const speaker = asSpeaker(data.speaker);
      const conversation = asConversation(data.conversation);
      if (conversation) userPlace.set(ev.turnId, conversation);
      out.push({
        ...base,
        event: { id: `log:${info.id}:${ev.seq}`, kind: 'user', source, channel: info.channel, sessionId: info.id, input: ev.text, response: '', timestamp: ev.at, refs: [ev.turnId], ...(speaker ? { speaker } : {}), ...(conversation ? { conversation } : {}) },
      });
    } else if (ev.kind === 'assistant' && data.status === 'ok' && userText.has(ev.turnId)) {
      out.push({
        ...base,
        event: {
          id: `log:${info.id}:${ev.seq}`,
          kind: 'agent',
          source: userSource.get(ev.turnId) ?? info.channel,
          channel: info.channel,
          sessionId: info.id,
          input: userText.get(ev.turnId) ?? '',
          response: ev.text,
          timestamp: ev.at,
          refs: [ev.turnId],
          ...(userPlace.has(ev.turnId) ? { conversation: userPlace.get(ev.turnId) } : {}),
        },
      });
    }
  }
  return out;
}

function asSpeaker(v: unknown): Speaker | undefined {
  const o = v as Record<string, unknown> | undefined;
  if (!o || typeof o !== 'object' || typeof o.id !== 'string' || !o.id) return undefined;
  const s: Speaker = { id: o.id };
  for (const k of ['name', 'platform', 'userId'] as const) if (typeof o[k] === 'string') s[k] = o[k] as string;
  return s;
}

function asConversation(v: unknown): Conversation | undefined {
  const o = v as Record<string, unknown> | undefined;
  if (!o || typeof o !== 'object' || typeof o.id !== 'string' || (o.kind !== 'private' && o.kind !== 'group')) return undefined;
  const c: Conversation = { kind: o.kind, id: o.id };
  for (const k of ['platform', 'title'] as const) if (typeof o[k] === 'string') c[k] = o[k] as string;
  return c;
}
