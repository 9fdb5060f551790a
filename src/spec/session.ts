/**
 * Sessions and the session log (C-9). A session is a channel + thread (`webui:<id>`, `cli:<id>`);
 * every event in it has a per-session sequence number.
 */

export type SessionEventKind =
  | 'user'
  | 'assistant'
  | 'tool_call'
  | 'tool_result'
  | 'reasoning'
  | 'interrupt'
  | 'injection'
  | 'system'
  | 'marker'
  | 'error';

export interface SessionEvent {
  seq: number;
  /** `"<sessionId>#<turnSeq>"`; all events of one turn share it. */
  turnId: string;
  kind: SessionEventKind;
  at: number;
  text: string;
  /** Kind-specific data: tool call args, injection source, marker target … */
  data?: Record<string, unknown>;
}

export interface SessionInfo {
  id: string;
  channel: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  turns: number;
  lastSeq: number;
}

/**
 * What a person deleted of a turn: the whole turn (their message and everything it produced) or
 * only the reply (the assistant's answer, its rounds, tool calls and errors).
 */
export type DeletionScope = 'turn' | 'reply';

/**
 * Which events a read returns. Without `beforeSeq`: the first `limit` events with
 * `seq > afterSeq`, oldest first. With `beforeSeq`: the LAST `limit` events with
 * `afterSeq < seq < beforeSeq` (a page read backwards), still oldest first. Deleted events and
 * deletion markers are left out unless `includeDeleted`.
 */
export interface SessionEventsQuery {
  afterSeq?: number;
  beforeSeq?: number;
  limit?: number;
  includeDeleted?: boolean;
}

/** Read/write access to sessions, used by the kernel and (through the SDK) by plugins. */
export interface SessionsAPI {
  list(): Promise<SessionInfo[]>;
  get(id: string): Promise<SessionInfo | undefined>;
  events(id: string, opts?: SessionEventsQuery): Promise<SessionEvent[]>;
  /** Appends an event and returns it with its seq. Durable when the promise resolves. */
  append(id: string, event: Omit<SessionEvent, 'seq' | 'at'> & { at?: number }): Promise<SessionEvent>;
  create(opts: { channel: string; title?: string; id?: string }): Promise<SessionInfo>;
  rename(id: string, title: string): Promise<void>;
  /** Seq of the first (not deleted) event of a turn; undefined when the session has no such turn. */
  locate?(id: string, turnId: string): Promise<number | undefined>;
  /**
   * Deletes turns, or only their replies, by appending a deletion marker (the log stays
   * append-only): reads leave them out from then on, and {@link SessionsAPI.deleted} reports them.
   */
  deleteTurns?(id: string, turnIds: string[], scope: DeletionScope): Promise<SessionEvent>;
  /** Deletes a session: it leaves the list and every read; the same id can be used again later. */
  remove?(id: string): Promise<void>;
  /** What was deleted of a turn (synchronous: the kernel filters the model's timeline with it). */
  deleted?(sessionId: string, turnId: string): DeletionScope | undefined;
}
