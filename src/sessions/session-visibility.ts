import type { DeletionScope, SessionEvent } from '../spec/index.js';

/** Event kinds that make up a reply: deleting the reply hides these and keeps the person's side. */
const REPLY_KINDS: ReadonlySet<string> = new Set(['assistant', 'reasoning', 'tool_call', 'tool_result', 'error']);

/**
 * The data of a deletion marker (`kind: 'marker'`): `{op: 'delete', scope, turnIds}`. The log is
 * append-only, so a deletion is an event of its own, like the memory manager's exclusion markers.
 */
export interface DeletionMarkerData {
  op: 'delete';
  scope: DeletionScope;
  turnIds: string[];
}

/** The deletion a marker event carries, or undefined when it is not a deletion marker. */
export function deletionOf(ev: Pick<SessionEvent, 'kind' | 'turnId' | 'data'>): DeletionMarkerData | undefined {
  if (ev.kind !== 'marker' || ev.data?.op !== 'delete') return undefined;
  const scope: DeletionScope = ev.data.scope === 'reply' ? 'reply' : 'turn';
  const ids = Array.isArray(ev.data.turnIds) ? ev.data.turnIds.filter((x): x is string => typeof x === 'string') : [];
  return { op: 'delete', scope, turnIds: ids.length ? ids : [ev.turnId] };
}

/** `webui:3f2a#7` → 7 when the turn id has the kernel's form for `sessionId`. */
export function kernelTurnNumber(sessionId: string, turnId: string): number | undefined {
  if (!turnId.startsWith(`${sessionId}#`)) return undefined;
  const n = Number(turnId.slice(sessionId.length + 1));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * What of one session is deleted, derived from its log in log order (at open, then on every
 * append): deleted turns and replies (deletion markers), and everything up to a seq when the
 * whole session was deleted. Also where each turn starts (its first seq), so a turn can be found
 * without reading the log and a timeline event can be matched to its turn.
 */
export class SessionVisibility {
  private readonly deletedTurns = new Map<string, DeletionScope>();
  /** Events with `seq <= clearedThroughSeq` belong to a deleted incarnation of the session. */
  clearedThroughSeq = 0;
  /** First seq of each kernel-numbered turn (index = turn number); other turn ids in `otherFirst`. */
  private readonly firstByNumber: number[] = [];
  private readonly otherFirst = new Map<string, number>();

  constructor(private readonly sessionId: string) {}

  /** Takes one event of the log (in log order). */
  note(ev: SessionEvent): void {
    const n = kernelTurnNumber(this.sessionId, ev.turnId);
    if (n !== undefined) {
      if (this.firstByNumber[n] === undefined) this.firstByNumber[n] = ev.seq;
    } else if (!this.otherFirst.has(ev.turnId)) this.otherFirst.set(ev.turnId, ev.seq);
    const del = deletionOf(ev);
    if (del) for (const id of del.turnIds) if (this.deletedTurns.get(id) !== 'turn') this.deletedTurns.set(id, del.scope);
  }

  /** The whole session was deleted after `lastSeq`. */
  clear(lastSeq: number): void {
    this.clearedThroughSeq = Math.max(this.clearedThroughSeq, lastSeq);
  }

  /** Seq of the first event of a turn, deleted or not. */
  firstSeq(turnId: string): number | undefined {
    const n = kernelTurnNumber(this.sessionId, turnId);
    return n !== undefined ? this.firstByNumber[n] : this.otherFirst.get(turnId);
  }

  /** What is deleted of a turn: all of it (a deleted turn, or a deleted session's turn), its reply, or nothing. */
  scopeOf(turnId: string): DeletionScope | undefined {
    const first = this.firstSeq(turnId);
    if (first !== undefined && first <= this.clearedThroughSeq) return 'turn';
    return this.deletedTurns.get(turnId);
  }

  /** Whether a read returns this event (deletion markers are bookkeeping: never shown). */
  visible(ev: SessionEvent): boolean {
    if (ev.seq <= this.clearedThroughSeq || deletionOf(ev)) return false;
    const scope = this.deletedTurns.get(ev.turnId);
    if (scope === 'turn') return false;
    if (scope === 'reply') return !REPLY_KINDS.has(ev.kind);
    return true;
  }
}
