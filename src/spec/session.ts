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

/** Read/write access to sessions, used by the kernel and (through the SDK) by plugins. */
export interface SessionsAPI {
  list(): Promise<SessionInfo[]>;
  get(id: string): Promise<SessionInfo | undefined>;
  events(id: string, opts?: { afterSeq?: number; limit?: number }): Promise<SessionEvent[]>;
  /** Appends an event and returns it with its seq. Durable when the promise resolves. */
  append(id: string, event: Omit<SessionEvent, 'seq' | 'at'> & { at?: number }): Promise<SessionEvent>;
  create(opts: { channel: string; title?: string; id?: string }): Promise<SessionInfo>;
  rename(id: string, title: string): Promise<void>;
}
