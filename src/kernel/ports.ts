import type { ChatRequest, ChatResponse, ConfigReader, ConfigValue, DeletionScope, ProviderStatus, SessionEvent, SessionInfo, StreamPart } from '../spec/index.js';
import { resolveTimeZone, TIME_ZONE_KEY } from '../spec/index.js';

/** What the kernel needs of the provider manager (L-1, C-6). */
export interface LlmPort {
  available(): boolean;
  run(
    req: Omit<ChatRequest, 'model'> & { model?: string },
    opts?: { signal?: AbortSignal; onPart?: (part: StreamPart, provider: string) => void },
  ): Promise<ChatResponse & { provider: string; model: string; latencyMs: number }>;
}

/** Provider administration for the LLM-source switching tool (L-3). */
export interface ProviderAdminPort {
  status(): ProviderStatus[];
  order(): string[];
  setOrder(names: string[]): Promise<void>;
}

/** Plugin administration for the plugin reload tool (C-5). */
export interface PluginAdminPort {
  list(): { name: string; state: string; kind: string }[];
  reload(name: string): Promise<void>;
}

/** What the kernel needs of the session store (C-9). */
export interface SessionPort {
  ensure(id: string, channel: string, title?: string): Promise<SessionInfo>;
  /** Renames a session (an untitled one is named after the first message a person sends). */
  rename?(id: string, title: string): Promise<void>;
  nextTurn(sessionId: string): { turnId: string; turnSeq: number };
  /**
   * `opts.renumber`: the event starts a new turn; when its id is already in the log by the time
   * it is written (an import swapped a log in meanwhile, decision 0380), it takes the id this gives.
   */
  append(id: string, event: Omit<SessionEvent, 'seq' | 'at'> & { at?: number }, opts?: { renumber?: () => string }): Promise<SessionEvent>;
  /** What the person deleted of a turn (its reply, or all of it): kept out of the model's timeline. */
  deleted?(sessionId: string, turnId: string): DeletionScope | undefined;
  /**
   * Logged inputs that never got an outcome (decision 0390), oldest first: what the agent resumes
   * or marks as not answered at start. A store without it resumes nothing.
   */
  unanswered?(): { sessionId: string; event: SessionEvent; channel: string; resumes: number }[];
}

/** The raw conversation text log (seed: Text Memory). */
export interface TextLogPort {
  append(record: Record<string, unknown>): void | Promise<void>;
}

/** Reads a config value, falling back when the key is not registered (kernel tests run without the registry). */
export function cfg<T extends ConfigValue>(config: ConfigReader | undefined, key: string, fallback: T): T {
  if (!config) return fallback;
  try {
    const v = config.get<T>(key);
    return v === undefined || v === null ? fallback : v;
  } catch {
    return fallback;
  }
}

/** The person's time zone (`core.agent.timezone` resolved; the system's when unset): what the prompt's times are in (decision 0270). */
export function timeZoneOf(config: ConfigReader | undefined): string {
  return resolveTimeZone(cfg(config, TIME_ZONE_KEY, ''));
}
