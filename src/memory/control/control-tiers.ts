import type { PluginLogger, SessionEvent, SessionInfo } from '../../spec/index.js';
import type { ColdArchive } from '../archive/index.js';
import type { RelevanceContext } from '../context/index.js';
import type { DocStore, MemoryDocument } from '../documents/index.js';
import type { EmbedderService } from '../embedder/index.js';
import type { GraphDB } from '../graph/index.js';
import type { RuleDistillPipeline } from '../distill/index.js';
import type { MemoryRecall } from '../recall/index.js';
import type { ControlDB } from './control-db.js';

/**
 * The session logs as memory control reads and redacts them (SessionStore fits): forget rewrites a
 * log with the forgotten turn's events kept as redaction markers (K-2).
 */
export interface ControlSessions {
  list(): Promise<SessionInfo[]>;
  /** With `includeDeleted`, turns the person deleted from the chat too (their text is still in the log). */
  events(id: string, opts?: { includeDeleted?: boolean }): Promise<SessionEvent[]>;
  /** Rewrites the log atomically: each matching event keeps its place with its text removed. Returns how many. */
  redact?(id: string, match: (e: SessionEvent) => boolean): Promise<number>;
  /** Every event of every log, deleted turns and sessions included. */
  eachLog?(fn: (sessionId: string, events: SessionEvent[]) => void): Promise<void>;
  /** Redacts in every log, those of deleted sessions too. */
  redactAll?(match: (e: SessionEvent) => boolean): Promise<number>;
}

/** The raw conversation text log (`logs/text*.jsonl`, TextLog fits). */
export interface ControlTextLog {
  redact(match: (r: { turnId?: string; text: string }) => boolean): Promise<number>;
}

/** What memory control works on: every tier (a tier that is down is undefined) and the logs. */
/** What undo needs of the knowledge base (KnowledgeBase fits). */
export interface ControlKnowledge {
  contentOf(name: string): string | undefined;
  create(name: string, content: string, opts: { overwrite: boolean; quiet: boolean }): Promise<unknown>;
  delete(name: string, opts: { quiet: boolean }): Promise<void>;
}

export interface ControlTiers {
  db: ControlDB;
  knowledge?(): ControlKnowledge | undefined;
  context(): RelevanceContext | undefined;
  docs(): DocStore | undefined;
  archive(): ColdArchive | undefined;
  graph(): GraphDB | undefined;
  recall: MemoryRecall;
  embedder: EmbedderService;
  rules?: RuleDistillPipeline;
  /**
   * Today's rules over turns read back from the logs (what a reindex distils), a fact already citing
   * such a turn left as it is; returns how many facts were committed. A replacement distils the new
   * message at once (decision 0550).
   */
  distill?: (docs: MemoryDocument[]) => Promise<number>;
  sessions?: ControlSessions;
  textLog?: ControlTextLog;
  /** Files set aside as damaged that may hold what was said (`*.corrupt-*`: logs, `context.json`, databases and their `-wal`, plugin JSON). */
  asideCopies?(): string[];
  /** The data folder: a forget deletes the files of its turns' messages under `<home>/media/` (decision 0370). */
  homeDir?: string;
  log: PluginLogger;
  now: () => number;
}

/**
 * True when every tier a sweep takes a turn out of is up: only a sweep made then leaves nothing of
 * the turn behind (a tier that is down keeps what it held, to be swept when it is up).
 */
export function everyTierUp(t: ControlTiers): boolean {
  return !!(t.context() && t.docs() && t.archive() && t.graph());
}

/** Every event of a log, deleted ones included: forget must reach what a chat deletion only hid. */
export const ALL = { includeDeleted: true } as const;

/** Every logged event of every session (deleted ones too when the store can), by session. */
export async function allLogs(t: ControlTiers): Promise<Map<string, SessionEvent[]>> {
  const out = new Map<string, SessionEvent[]>();
  if (!t.sessions) return out;
  if (t.sessions.eachLog) await t.sessions.eachLog((id, evs) => out.set(id, evs));
  else for (const s of await t.sessions.list()) out.set(s.id, await t.sessions.events(s.id, ALL).catch(() => []));
  return out;
}
