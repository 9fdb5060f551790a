import type { SessionEvent } from '../../sdk/index.js';
import { ValidationError } from '../../sdk/index.js';

/** The `source` of everything the memory manager writes (messages, injections, markers). */
export const SOURCE = 'memory-manager';

/** One turn of a session, rebuilt from its log events. */
export interface Turn {
  turnId: string;
  /** The number after `#` in the turn id. */
  n: number;
  /** Seqs of the turn's own events (injections and markers of the memory manager left out). */
  seqs: number[];
  user: string;
  assistant: string;
  /** Tool calls and results, one line each. */
  tools: string[];
  at: number;
  excluded: boolean;
  /**
   * Forgotten (K-2): what was said in it was redacted in the log (`[forgotten]`). Nothing of it is
   * shown, summarized or saved; the turn stays listed so the numbering holds.
   */
  forgotten?: true;
  /** Who said the user message, on a chat channel (the log's `data.speaker`). */
  speaker?: { id: string; name?: string };
  /** Where (the log's `data.conversation.id`). */
  conversation?: string;
}

/** The session id a turn id belongs to (`"<sessionId>#<n>"`). */
export function sessionOfTurn(turnId: string): string | undefined {
  const i = turnId.lastIndexOf('#');
  return i > 0 ? turnId.slice(0, i) : undefined;
}

/** Validates a turn id against its session: `<sessionId>#<n>`. */
export function assertTurnId(sessionId: string, turnId: unknown): string {
  if (typeof turnId !== 'string' || turnId.length > 400 || sessionOfTurn(turnId) !== sessionId || !/#\d+$/.test(turnId)) {
    throw new ValidationError(`invalid turn id ${JSON.stringify(typeof turnId === 'string' ? turnId.slice(0, 80) : turnId)} for session ${sessionId}`, { path: 'turnId' });
  }
  return turnId;
}

/** True for the memory manager's own events (injection blocks, exclude/restore markers). */
export function isOwnEvent(e: SessionEvent): boolean {
  return (e.kind === 'injection' || e.kind === 'marker') && (e.data as { source?: unknown } | undefined)?.source === SOURCE;
}

/**
 * Groups log events by turn id, in log order; turns without a user or assistant message are left
 * out, except a forgotten one (marked `forgotten`, with no text). A forgotten event's text is never
 * taken (a quoting message redacted in a turn that stays leaves that turn without it).
 */
export function buildTurns(events: SessionEvent[], excluded: ReadonlySet<string> = new Set()): Turn[] {
  const byId = new Map<string, Turn>();
  const redacted = new Set<string>();
  for (const e of events) {
    if (isOwnEvent(e) || e.kind === 'marker' || e.kind === 'injection') continue;
    let t = byId.get(e.turnId);
    if (!t) {
      const n = Number(/#(\d+)$/.exec(e.turnId)?.[1] ?? NaN);
      t = { turnId: e.turnId, n: Number.isFinite(n) ? n : byId.size + 1, seqs: [], user: '', assistant: '', tools: [], at: e.at, excluded: excluded.has(e.turnId) };
      byId.set(e.turnId, t);
    }
    // A forgotten event holds "[forgotten]", not what was said: never a text to summarize or save.
    if (e.data?.redacted) {
      if (e.kind === 'user' || e.kind === 'assistant') redacted.add(t.turnId);
      continue;
    }
    t.seqs.push(e.seq);
    if (e.kind === 'user') {
      t.user = t.user ? `${t.user}\n${e.text}` : e.text;
      const d = e.data as { speaker?: { id?: unknown; name?: unknown }; conversation?: { id?: unknown } } | undefined;
      if (typeof d?.speaker?.id === 'string') t.speaker = { id: d.speaker.id, ...(typeof d.speaker.name === 'string' ? { name: d.speaker.name } : {}) };
      if (typeof d?.conversation?.id === 'string') t.conversation = d.conversation.id;
    }
    else if (e.kind === 'assistant') t.assistant = t.assistant ? `${t.assistant}\n${e.text}` : e.text;
    else if (e.kind === 'tool_call' || e.kind === 'tool_result') t.tools.push(`${e.kind === 'tool_call' ? '→' : '←'} ${e.text}`);
  }
  return [...byId.values()]
    .map((t) => (!t.user && !t.assistant && redacted.has(t.turnId) ? { ...t, forgotten: true as const, tools: [] } : t))
    .filter((t) => t.user || t.assistant || t.forgotten);
}

/** M-7: a session is new while its log has no user/assistant message outside the current turn. */
export function isNewSession(events: SessionEvent[], currentTurnId?: string): boolean {
  return !events.some((e) => (e.kind === 'user' || e.kind === 'assistant') && e.turnId !== currentTurnId);
}
